//! The push's wake-ups: a channel per thing a socket's message shows, so a
//! batch wakes only the sockets that can see something it changed.
//!
//! **Why per table.** One channel for every batch woke every socket of every
//! table on every batch: each rebuilt its message (the table's view, the
//! coup, its balance) and compared it with the last one sent, only to find,
//! at every table but the batch's own, nothing to send. With a channel per
//! table, a batch at one table costs the sockets of the others nothing.
//!
//! **What wakes whom** (the publisher's [`Touched`], `publish.rs`):
//! - A **table's socket** ([`TableWake`]) shows that table's view and coup
//!   (and, to staff, its pit: the coup's wagers, notices and shoes, all of
//!   that table's feed) and, to a player, their own wallet. It is woken by a
//!   batch that changed that table's view or recorded events at it, and by
//!   one that changed its player's wallet, at whichever table or none (a
//!   deposit, a wager or a payout at another table). Tokens wake a player's
//!   sockets too: the message does not show them today, but they are rare
//!   and a wake-up that changes nothing sends nothing.
//! - A **tournament's socket** is woken by a batch that recorded an event
//!   of that tournament (its public summary and play are folded from those
//!   alone).
//! - A **socket signed in as no one** ([`Wakes::table_view`]) shows the
//!   table's public view and coup alone: it is woken only by a batch that
//!   changed that view (the publisher compares the view before and after,
//!   for watched tables only), not by every wager recorded at the table: at
//!   a table watched by thousands and bet on by some, a wager wakes its
//!   player's sockets, not the thousands.
//! - A **new table** (the set of tables changed: every view is rebuilt)
//!   wakes every socket.
//!
//! A woken socket rebuilds its message and sends it only if it differs from
//! the last it sent, as before, so what a client receives is unchanged: the
//! same messages, in the same order, whenever something it sees changes. It
//! also checks its session then (a signed-out socket closes when next woken,
//! now by a change it could see rather than by any batch at all).
//!
//! **A slow socket loses nothing.** Each channel is a `tokio::sync::watch`
//! of the batch count: it keeps only the latest value, and a receiver that
//! missed several wake-ups sees one, then reads the read models, which are
//! already at the latest batch. (The old broadcast's `Lagged` was the same
//! thing, handled by hand.)
//!
//! **What a wake-up carries** ([`Woken`]): the count of batches published
//! with it, and when it was published (the server's injected clock, ms): a
//! socket's message says when the change it shows was committed, so that a
//! client on the same machine can time the push (`loadgen --viewers`). A
//! channel made after some batches starts at the latest, so that a count
//! read from it never names a state older than the views (the table
//! sockets' shared messages rely on it: `http/table_push.rs`).
//!
//! **Channels live while watched.** A channel is made when the first socket
//! watching its table, player or tournament subscribes (after the upgrade
//! found the table or tournament), and dropped when a batch would wake it
//! and no socket holds it any more: the maps stay the size of what is being
//! watched, not of every player who ever opened a page.

use baccarat_core::{TableId, TournamentId};
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};

use baccarat_table::PlayerId;
use tokio::sync::watch;

/// Who one batch's changes concern (see the module's notes).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Touched {
    /// The set of tables changed: every socket is woken.
    pub all: bool,
    /// Tables whose view changed, or that recorded events (the coup feed).
    pub tables: Vec<TableId>,
    /// Tables whose public view changed, among those watched by sockets
    /// signed in as no one (a wager changes no one's message but its
    /// player's: their sockets are not woken by it).
    pub views: Vec<TableId>,
    /// Players whose wallet or tokens changed.
    pub players: Vec<PlayerId>,
    /// Tournaments whose records the batch carries.
    pub tournaments: Vec<TournamentId>,
}

/// One wake-up: the count of batches published with it, and when (ms since
/// the epoch, by the server's clock).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Woken {
    pub version: u64,
    pub at_ms: u64,
}

/// The channels of one kind of thing watched, by its id: each carries the
/// wake-up it last had; beside them the latest wake-up of any, which a new
/// channel starts at (under the same lock, so none misses a batch).
struct Channels<K>(Mutex<(HashMap<K, watch::Sender<Woken>>, Woken)>);

impl<K> Default for Channels<K> {
    fn default() -> Channels<K> {
        Channels(Mutex::new((HashMap::new(), Woken::default())))
    }
}

impl<K: Copy + Eq + Hash> Channels<K> {
    /// A receiver that sees the next wake-up of `k` (not any before it).
    fn subscribe(&self, k: K) -> watch::Receiver<Woken> {
        let (m, latest) = &mut *self.0.lock().expect("wakes lock");
        m.entry(k).or_insert_with(|| watch::Sender::new(*latest)).subscribe()
    }

    /// Wake the watchers of `keys`; a channel no one watches any more is
    /// dropped instead.
    fn wake(&self, keys: impl IntoIterator<Item = K>, woken: Woken) {
        let (m, latest) = &mut *self.0.lock().expect("wakes lock");
        *latest = woken;
        for k in keys {
            if let Entry::Occupied(e) = m.entry(k) {
                if e.get().receiver_count() == 0 {
                    e.remove();
                } else {
                    e.get().send_replace(woken);
                }
            }
        }
    }

    /// Wake every watcher (a new table); drop the channels no one watches.
    fn wake_every(&self, woken: Woken) {
        let (m, latest) = &mut *self.0.lock().expect("wakes lock");
        *latest = woken;
        m.retain(|_, tx| {
            let watched = tx.receiver_count() > 0;
            if watched {
                tx.send_replace(woken);
            }
            watched
        });
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.0.lock().unwrap().0.len()
    }
}

#[derive(Default)]
struct Inner {
    tables: Channels<TableId>,
    /// The public views alone: what a socket signed in as no one shows.
    views: Channels<TableId>,
    players: Channels<PlayerId>,
    tournaments: Channels<TournamentId>,
}

/// Every socket's wake-up channels, kept beside the read models
/// ([`super::ReadModels`]) and woken by the [`super::Publisher`] once a batch
/// is visible in them.
#[derive(Clone, Default)]
pub struct Wakes(Arc<Inner>);

impl Wakes {
    /// What a table's socket waits on: its table, and `player`'s wallet if
    /// it is a player's.
    pub fn table(&self, table: TableId, player: Option<PlayerId>) -> TableWake {
        let mut w = TableWake { table: self.0.tables.subscribe(table), player: None };
        w.follow(self, player);
        w
    }

    /// What a socket signed in as no one waits on: its table's public view
    /// (`Touched::views`), not every wager recorded there.
    pub fn table_view(&self, table: TableId) -> TableWake {
        TableWake { table: self.0.views.subscribe(table), player: None }
    }

    /// Whether any socket signed in as no one watches `table`'s view (the
    /// publisher compares its views only then).
    pub fn view_watched(&self, table: TableId) -> bool {
        self.0.views.0.lock().expect("wakes lock").0.get(&table).is_some_and(|tx| tx.receiver_count() > 0)
    }

    /// What a tournament's socket waits on.
    pub fn tournament(&self, tournament: TournamentId) -> watch::Receiver<Woken> {
        self.0.tournaments.subscribe(tournament)
    }

    /// Wake the sockets a batch concerns with `woken`: the count of batches
    /// published with it, and when.
    pub fn wake(&self, t: &Touched, woken: Woken) {
        if t.all {
            self.0.tables.wake_every(woken);
            self.0.views.wake_every(woken);
            self.0.players.wake_every(woken);
            self.0.tournaments.wake_every(woken);
            return;
        }
        self.0.tables.wake(t.tables.iter().copied(), woken);
        self.0.views.wake(t.views.iter().copied(), woken);
        self.0.players.wake(t.players.iter().copied(), woken);
        self.0.tournaments.wake(t.tournaments.iter().copied(), woken);
    }
}

/// A table's socket's wake-ups: its table's, and its player's once the
/// socket is a player's (it may sign in after it opened).
pub struct TableWake {
    table: watch::Receiver<Woken>,
    player: Option<watch::Receiver<Woken>>,
}

impl TableWake {
    /// Watch `player`'s wallet from now on (none: no one's); called when
    /// the socket's viewer changes, before its next message is built.
    pub fn follow(&mut self, wakes: &Wakes, player: Option<PlayerId>) {
        self.player = player.map(|p| wakes.0.players.subscribe(p));
    }

    /// Until the next wake-up of either; `false` once the channels are gone
    /// (the server's state dropped). Cancel-safe: a wake-up not returned is
    /// kept for the next call.
    pub async fn changed(&mut self) -> bool {
        match &mut self.player {
            None => self.table.changed().await.is_ok(),
            Some(p) => tokio::select! {
                r = self.table.changed() => r.is_ok(),
                r = p.changed() => r.is_ok(),
            },
        }
    }

    /// The table's latest wake-up, taken (the count its state is at least
    /// as new as), and the latest commit time of the table's and the
    /// player's wake-ups (what the message shows).
    pub fn seen(&mut self) -> (Woken, u64) {
        let table = *self.table.borrow_and_update();
        let player = self.player.as_mut().map_or(0, |p| p.borrow_and_update().at_ms);
        (table, table.at_ms.max(player))
    }

    /// Whether a wake-up is waiting (the tests' look, without waiting).
    #[cfg(test)]
    pub(super) fn woken(&self) -> bool {
        self.table.has_changed().unwrap_or(true)
            || self.player.as_ref().is_some_and(|p| p.has_changed().unwrap_or(true))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Batch `v`, published at `v` seconds.
    fn at(v: u64) -> Woken {
        Woken { version: v, at_ms: v * 1000 }
    }

    fn tables(ids: &[TableId]) -> Touched {
        Touched { tables: ids.to_vec(), ..Touched::default() }
    }

    #[test]
    fn a_table_wakes_its_own_watchers_only() {
        let w = Wakes::default();
        let (one, two) = (w.table(TableId(1), None), w.table(TableId(2), None));
        w.wake(&tables(&[TableId(1)]), at(1));
        assert!(one.woken());
        assert!(!two.woken());
    }

    #[test]
    fn a_public_views_watchers_are_woken_by_its_changes_only() {
        let w = Wakes::default();
        let (anyone, player) = (w.table_view(TableId(1)), w.table(TableId(1), Some(PlayerId(7))));
        assert!(w.view_watched(TableId(1)) && !w.view_watched(TableId(2)));
        // A wager: the table's events, not its view.
        w.wake(&tables(&[TableId(1)]), at(1));
        assert!(!anyone.woken() && player.woken());
        w.wake(&Touched { tables: vec![TableId(1)], views: vec![TableId(1)], ..Touched::default() }, at(2));
        assert!(anyone.woken());
        drop(anyone);
        assert!(!w.view_watched(TableId(1)), "no one watches it any more");
    }

    #[test]
    fn a_players_change_wakes_their_sockets_at_any_table() {
        let w = Wakes::default();
        let (mine, theirs) = (w.table(TableId(2), Some(PlayerId(7))), w.table(TableId(2), Some(PlayerId(8))));
        w.wake(&Touched { players: vec![PlayerId(7)], ..Touched::default() }, at(1));
        assert!(mine.woken());
        assert!(!theirs.woken());
    }

    #[test]
    fn a_new_table_wakes_everyone() {
        let w = Wakes::default();
        let (one, mine, cup) =
            (w.table(TableId(1), None), w.table(TableId(2), Some(PlayerId(7))), w.tournament(TournamentId(3)));
        w.wake(&Touched { all: true, ..Touched::default() }, at(1));
        assert!(one.woken() && mine.woken());
        assert!(cup.has_changed().unwrap());
    }

    /// A slow watcher sees one wake-up with the latest count, however many
    /// it missed.
    #[tokio::test]
    async fn a_lagging_watcher_is_woken_once_at_the_latest_batch() {
        let w = Wakes::default();
        let mut cup = w.tournament(TournamentId(3));
        for v in 1..=5 {
            w.wake(&Touched { tournaments: vec![TournamentId(3)], ..Touched::default() }, at(v));
        }
        cup.changed().await.unwrap();
        assert_eq!(*cup.borrow_and_update(), at(5));
        assert!(!cup.has_changed().unwrap());
    }

    /// A channel no one watches is dropped when next woken; a later
    /// watcher gets a new one.
    #[test]
    fn a_channel_lives_while_watched() {
        let w = Wakes::default();
        drop(w.table(TableId(1), None));
        assert_eq!(w.0.tables.len(), 1);
        w.wake(&tables(&[TableId(1)]), at(1));
        assert_eq!(w.0.tables.len(), 0);
        let mut again = w.table(TableId(1), None);
        assert_eq!(again.seen(), (at(1), 1000), "a new channel starts at the latest batch");
        w.wake(&tables(&[TableId(1)]), at(2));
        assert!(again.woken());
        assert_eq!(again.seen(), (at(2), 2000));
    }
}
