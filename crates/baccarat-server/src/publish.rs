//! Publication after a commit: what the writer's publisher thread does with
//! each batch once it is durable and before any of its requests is answered
//! (`writer.rs`, `writer/publishing.rs`), while the committer commits the
//! next batch.
//!
//! In this order, and why:
//! 1. **The anchors.** The batch's chains' heads go to the anchor file (in
//!    the next line, at most `anchor_every` from now). A batch that cannot
//!    be anchored stops the server (`fatal.rs`) and is neither published
//!    nor answered: its clients retry with their keys.
//! 2. **The tables' and wallets' views, the tournaments' views, the coup
//!    feed, the exposure monitor.** Before the answers, so a client that has
//!    its answer reads its own change in every view (the pit reads the EVs
//!    after the card it typed).
//! 3. **The batch's checkpoint, if it carries one.** It takes the feed as of
//!    this batch (read under the same lock that folded the batch in) and the
//!    anchor file's mark (written first, so the mark names every head the
//!    checkpoint's state has); a clean stop's is handed back to be written
//!    now, by the committer (it owns the store; it takes no other batch
//!    meanwhile), any other goes to the background checkpointer.
//! 4. **The push** ([`Wakes`]) last, once everything above is visible: a
//!    socket it wakes reads the batch in every view. It wakes only the
//!    sockets that can see something the batch changed (`publish/wakes.rs`).

use baccarat_core::TableId;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use crate::anchor::{AnchorError, AnchorKey};
use crate::casino::checkpoint::{Checkpoint, Checkpointer, WriteNow};
use crate::casino::tournaments::TournamentViews;
use crate::casino::Casino;
use crate::store::Commit;
use baccarat_casino::DueCheckpoint;
use baccarat_casino::Feed;
use baccarat_casino::{Cause, ExposureInput, Exposures, Thresholds, ViewChanges, Views};
use baccarat_core::Anchoring;

mod wakes;
pub use wakes::{TableWake, Touched, Wakes, Woken};

/// The read models the handlers and sockets share, kept up to date by the
/// [`Publisher`].
#[derive(Clone)]
pub struct ReadModels {
    pub views: Arc<RwLock<Views>>,
    pub tournaments: Arc<RwLock<TournamentViews>>,
    pub feed: Arc<RwLock<Feed>>,
    /// Every table's offers priced from what it has shown, and the alerts
    /// (`baccarat_casino::Exposures`).
    pub exposure: Arc<RwLock<Exposures>>,
    /// The push: each socket's wake-ups, woken after each batch with the
    /// count of batches published.
    pub wakes: Wakes,
}

impl ReadModels {
    /// The read models of a recovered casino and its recovered feed; every
    /// table priced at `thresholds` from the cards its feed says were shown.
    pub fn recovered(casino: &Casino, feed: Feed, thresholds: Thresholds) -> ReadModels {
        let views = Arc::new(RwLock::new(Views::default()));
        views.write().expect("views").rebuild(casino);
        let tournaments = Arc::new(RwLock::new(TournamentViews::of(casino)));
        for t in thresholds.tables.keys().filter(|t| !casino.tables.contains_key(t)) {
            // Not refused: a threshold may be set for a table before it is made.
            tracing::warn!(table = %t, "exposure_alert names a table this casino does not have (yet)");
        }
        let mut exposure = Exposures::new(thresholds);
        for (id, t) in &casino.tables {
            let shown = feed.shown.get(id).cloned().unwrap_or_default();
            let input = ExposureInput::of(*id, &t.engine);
            exposure.price(Some(input), *id, &shown, Cause::default(), (casino.clock)());
        }
        exposure.started();
        ReadModels {
            views,
            tournaments,
            feed: Arc::new(RwLock::new(feed)),
            exposure: Arc::new(RwLock::new(exposure)),
            wakes: Wakes::default(),
        }
    }

    /// What a batch changed in the views, prepared on the writer (it reads
    /// the casino: `Views::changes`) for the publisher to apply.
    pub fn prepare(&self) -> impl FnMut(&Casino, &Commit) -> ViewChanges + Send + 'static {
        let views = self.views.clone();
        move |c, commit| views.read().expect("views").changes(c, commit)
    }
}

/// Where a clean stop's checkpoint is written from: signed with the anchors'
/// own key (the key the start checked: the key file is not read again), the
/// anchor file made durable first.
pub struct StopCheckpoint {
    pub key: Arc<AnchorKey>,
    pub anchors: PathBuf,
}

/// What publishes each durable batch (see the module's notes), on the
/// writer's publisher thread.
pub struct Publisher {
    anchoring: Anchoring,
    read: ReadModels,
    checkpointer: Checkpointer,
    stop: StopCheckpoint,
    /// Batches published so far: what the push sends.
    version: u64,
    /// The server's clock: when each batch is published, as its wake-up
    /// carries it (the push's latency is measured from it).
    clock: baccarat_core::Clock,
}

impl Publisher {
    pub fn new(
        anchoring: Anchoring,
        read: ReadModels,
        checkpointer: Checkpointer,
        stop: StopCheckpoint,
        clock: baccarat_core::Clock,
    ) -> Publisher {
        Publisher { anchoring, read, checkpointer, stop, version: 0, clock }
    }

    /// Publish one durable batch, in the module's order; the checkpoint to
    /// write now, before the answers that wait for it (a clean stop's), if
    /// the batch carries one. Nothing more is published once the batch
    /// cannot be anchored (the server then stops).
    pub fn committed(
        &mut self,
        mut changes: ViewChanges,
        commit: Commit,
        due: Option<DueCheckpoint>,
    ) -> Option<WriteNow> {
        if let Err(e) = self.anchoring.committed(&crate::anchor::heads_of(&commit)) {
            self.anchoring.unanchored(&e);
            return None;
        }
        let mut touched = touched(&changes, &commit);
        touched.views = self.views_changed(&changes);
        let inputs = changes.take_exposure();
        self.read.views.write().expect("views").apply(changes);
        touched.tournaments = self.read.tournaments.write().expect("tournaments").absorb(&commit.records);
        let mut f = self.read.feed.write().expect("feed");
        let shown = f.absorb_all(&commit.events);
        self.price(inputs, shown, &f, &commit);
        let mut now = None;
        if let Some(DueCheckpoint { checkpoint: mut cp, asked }) = due {
            cp.feed = Some(f.state());
            match self.checkpoint(cp, asked) {
                Ok(written_now) => now = written_now,
                Err(e) => {
                    self.anchoring.unanchored(&e);
                    return None;
                }
            }
        }
        drop(f);
        self.version += 1;
        self.read.wakes.wake(&touched, Woken { version: self.version, at_ms: (self.clock)() });
        now
    }

    /// Price again each table whose shown cards the batch changed, or whose
    /// offers the writer copied (a limit changed): about 20 µs a table, on
    /// the publisher (`exposure_watch.rs`).
    fn price(&self, inputs: Vec<ExposureInput>, shown: Vec<(TableId, Cause)>, f: &Feed, commit: &Commit) {
        if inputs.is_empty() && shown.is_empty() {
            return;
        }
        let now = (self.clock)();
        let mut x = self.read.exposure.write().expect("exposure");
        let alerts = x.alerts(0).last().map_or(0, |a| a.id);
        let time = metrics::histogram!(crate::metrics::EXPOSURE_SECONDS);
        let mut inputs = inputs;
        for (table, cause) in &shown {
            let input = inputs.iter().position(|i| i.table == *table).map(|k| inputs.swap_remove(k));
            let started = std::time::Instant::now();
            x.price(input, *table, &f.shown.get(table).cloned().unwrap_or_default(), cause.clone(), now);
            time.record(started.elapsed().as_secs_f64());
        }
        // Nothing newly shown: priced again only if a maximum, the shoe or
        // the coup changed (a card dealt face down, a coup closed at the
        // same limits, cost nothing).
        inputs.retain(|i| x.offers_changed(i));
        for input in inputs {
            let table = input.table;
            let seq = commit.events.iter().rev().find(|(t, _, _)| *t == table).map_or(0, |e| e.1);
            let cards = f.shown.get(&table).cloned().unwrap_or_default();
            let started = std::time::Instant::now();
            x.price(Some(input), table, &cards, Cause { seq, cards: Vec::new() }, now);
            time.record(started.elapsed().as_secs_f64());
        }
        let mut raised = 0;
        for a in x.alerts(alerts) {
            raised += 1;
            tracing::warn!(
                table = a.table.0,
                shoe = a.shoe,
                coup = a.coup,
                seq = a.seq,
                bet = %a.bet,
                pay_table = %a.pay_table,
                ev = %a.ev,
                cards = ?a.cards.iter().map(ToString::to_string).collect::<Vec<_>>(),
                "exposure alert: a wager is above its table's threshold"
            );
        }
        if raised > 0 {
            metrics::counter!(crate::metrics::EXPOSURE_ALERTS).increment(raised);
        }
    }

    /// The tables whose public view the batch changed, among those watched
    /// by sockets signed in as no one (`publish/wakes.rs`): compared as the
    /// sockets show them (serialised), before the batch is applied. A new
    /// table changes every view.
    fn views_changed(&self, changes: &ViewChanges) -> Vec<TableId> {
        let wakes = &self.read.wakes;
        let watched: Vec<&baccarat_casino::TableView> =
            changes.tables().iter().filter(|t| wakes.view_watched(t.id)).collect();
        if watched.is_empty() {
            return Vec::new();
        }
        let views = self.read.views.read().expect("views");
        let shown = |t: &baccarat_casino::TableView| serde_json::to_vec(t).ok();
        watched
            .into_iter()
            .filter(|new| changes.all() || views.tables.iter().find(|o| o.id == new.id).map(shown) != Some(shown(new)))
            .map(|t| t.id)
            .collect()
    }

    /// A batch's checkpoint, its feed taken: the anchor file's mark, then a
    /// clean stop's (`asked`) handed back to be written now, any other
    /// offered to the background checkpointer. An error if the anchor file
    /// cannot be written (the caller stops the server).
    fn checkpoint(&self, mut cp: Box<Checkpoint>, asked: bool) -> Result<Option<WriteNow>, AnchorError> {
        cp.anchor = Some(self.anchoring.mark_at(cp.at_ms)?);
        if asked {
            return Ok(Some(WriteNow {
                checkpoint: cp,
                key: self.stop.key.clone(),
                anchors: self.stop.anchors.clone(),
            }));
        }
        self.checkpointer.offer(cp);
        Ok(None)
    }
}

/// The tables and players a batch's changes concern (its tournaments are
/// added as they are folded in): the tables whose views it changed, and
/// those it recorded events at (the coup feed's; among the former, taken
/// again so that a socket's coup never depends on that).
fn touched(changes: &ViewChanges, commit: &Commit) -> Touched {
    let mut tables: Vec<TableId> = changes.table_ids().chain(commit.events.iter().map(|(t, _, _)| *t)).collect();
    tables.sort_unstable();
    tables.dedup();
    let players = changes.players().collect();
    Touched { all: changes.all(), tables, views: Vec::new(), players, tournaments: Vec::new() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchor::{AnchorKey, AnchorLog};
    use crate::casino::Request;
    use crate::trust::{Actor, Mode};
    use baccarat_core::Fatal;
    use baccarat_rules::{Bet, Money};
    use baccarat_table::{Command, PlayerId, Spot};
    use futures_util::FutureExt;

    /// A fresh directory, removed on drop (`anchor.rs`'s test helper is the
    /// core crate's own).
    struct Tmp(PathBuf);
    impl Tmp {
        fn new() -> Tmp {
            let dir = std::env::temp_dir().join(format!("publish-test-{}", baccarat_core::random_hex(8)));
            std::fs::create_dir(&dir).unwrap();
            Tmp(dir)
        }
        fn key(&self, name: &str) -> AnchorKey {
            AnchorKey::load_or_create(&self.0.join(name)).unwrap()
        }
    }
    impl Drop for Tmp {
        fn drop(&mut self) {
            if !std::thread::panicking() {
                let _ = std::fs::remove_dir_all(&self.0);
            }
        }
    }

    /// A publisher on a fresh casino: a line per batch, a SQLite store.
    fn publisher(tmp: &Tmp, casino: &Casino) -> (Publisher, ReadModels) {
        let anchors = tmp.0.join("db.anchors");
        let key = tmp.key("db.key");
        let log = AnchorLog::open(&anchors, key.clone()).unwrap();
        let anchoring = Anchoring::start(log, std::time::Duration::ZERO, Fatal::exiting());
        let read = ReadModels::recovered(casino, Feed::default(), Thresholds::default());
        let db = crate::store::Db::Sqlite(tmp.0.join("db.sqlite"));
        let checkpointer =
            baccarat_cluster::start_checkpointer(&db, key.clone(), &anchors, None, casino.checkpointer_busy.clone());
        let stop = StopCheckpoint { key: Arc::new(key), anchors };
        let clock = crate::casino::system_clock();
        (Publisher::new(anchoring, read.clone(), checkpointer.unwrap(), stop, clock), read)
    }

    const CONFIG: &str = "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 100000\n";

    /// Handle `requests` as one batch, on the writer's side, and publish it.
    fn batch(p: &mut Publisher, read: &ReadModels, c: &mut Casino, requests: Vec<Request>) {
        let mut commit = Commit::default();
        for r in requests {
            c.handle(r, &mut commit);
        }
        let changes = read.views.read().unwrap().changes(c, &commit);
        assert!(p.committed(changes, commit, None).is_none());
    }

    /// A publisher whose casino has published RNG tables 1 and 2, a shoe
    /// started at each, and `player` a deposit.
    fn two_tables(tmp: &Tmp, player: PlayerId) -> (Publisher, ReadModels, Casino) {
        let mut c = Casino::new();
        let (mut p, read) = publisher(tmp, &c);
        let mut commit = Commit::default();
        for id in [TableId(1), TableId(2)] {
            c.create_table(id, "T", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
        }
        let changes = read.views.read().unwrap().changes(&c, &commit);
        p.committed(changes, commit, None);
        let deposit = Request::Deposit { player, amount: Money(100_000), key: "start".parse().unwrap() };
        batch(
            &mut p,
            &read,
            &mut c,
            vec![deposit, Request::NewShoe { table: TableId(1) }, Request::NewShoe { table: TableId(2) }],
        );
        (p, read, c)
    }

    fn open_betting(table: TableId) -> Request {
        let command = Command::OpenBetting { no_bet: false, closes_at: None };
        Request::Table { table, command, by: Actor::Server }
    }

    /// Whether `w` was woken, taking the wake-up (it never waits).
    /// A wager of 50.00 on Banker at `table`'s first box, by `player`.
    fn banker_50(table: TableId, player: PlayerId) -> Request {
        let (spot, bet, amount) = (Spot::Box(1), Bet::Banker, Money(5000));
        Request::Wager { table, player, spot, bet, amount, ante: Money::ZERO, key: "w".parse().unwrap() }
    }

    fn took(w: &mut TableWake) -> bool {
        let woken = w.woken();
        if woken {
            assert_eq!(w.changed().now_or_never(), Some(true));
        }
        woken
    }

    #[test]
    fn a_batch_at_one_table_wakes_its_sockets_once_its_views_are_published_and_no_others() {
        let tmp = Tmp::new();
        let (mut p, read, mut c) = two_tables(&tmp, PlayerId(7));
        let (mut one, mut two) = (read.wakes.table(TableId(1), None), read.wakes.table(TableId(2), None));
        // The views count their own versions.
        let before = read.views.read().unwrap().version;
        batch(&mut p, &read, &mut c, vec![open_betting(TableId(1))]);
        assert_eq!(read.views.read().unwrap().version, before + 1);
        assert!(took(&mut one), "table 1's batch wakes table 1's socket");
        assert!(!took(&mut two), "and not table 2's");
        batch(&mut p, &read, &mut c, vec![open_betting(TableId(2))]);
        assert!(!took(&mut one));
        assert!(took(&mut two));
        // A batch that changes nothing wakes no one.
        batch(&mut p, &read, &mut c, vec![]);
        assert!(!took(&mut one) && !took(&mut two));
    }

    #[test]
    fn a_balance_change_wakes_that_players_sockets_wherever_they_watch() {
        let (tmp, me, other) = (Tmp::new(), PlayerId(7), PlayerId(8));
        let (mut p, read, mut c) = two_tables(&tmp, me);
        batch(&mut p, &read, &mut c, vec![open_betting(TableId(1))]);
        let (mut mine, mut theirs) =
            (read.wakes.table(TableId(2), Some(me)), read.wakes.table(TableId(2), Some(other)));
        let mut anyone = read.wakes.table(TableId(2), None);
        // A deposit, at no table.
        batch(
            &mut p,
            &read,
            &mut c,
            vec![Request::Deposit { player: me, amount: Money(500), key: "d".parse().unwrap() }],
        );
        assert!(took(&mut mine), "a deposit wakes the player's socket");
        assert!(!took(&mut theirs) && !took(&mut anyone), "and no one else's at that table");
        // A wager at table 1 moves the wallet shown at table 2.
        let wager = banker_50(TableId(1), me);
        batch(&mut p, &read, &mut c, vec![wager]);
        assert!(took(&mut mine), "a wager at another table wakes the player's socket");
        assert!(!took(&mut theirs) && !took(&mut anyone));
    }

    #[test]
    fn a_wager_wakes_no_one_watching_the_public_view_and_a_change_of_phase_does() {
        let (tmp, me) = (Tmp::new(), PlayerId(7));
        let (mut p, read, mut c) = two_tables(&tmp, me);
        batch(&mut p, &read, &mut c, vec![open_betting(TableId(1))]);
        let (mut anyone, mut mine) = (read.wakes.table_view(TableId(1)), read.wakes.table(TableId(1), Some(me)));
        // A player's first wager seats them: the lobby's count of players
        // seated is in the public view.
        batch(&mut p, &read, &mut c, vec![banker_50(TableId(1), me)]);
        assert!(took(&mut mine) && took(&mut anyone), "a player newly seated changes the public view");
        let Request::Wager { table, player, spot, bet, amount, ante, .. } = banker_50(TableId(1), me) else {
            unreachable!()
        };
        let again = Request::Wager { table, player, spot, bet, amount, ante, key: "w2".parse().unwrap() };
        batch(&mut p, &read, &mut c, vec![again]);
        assert!(took(&mut mine), "the player's socket sees their wager");
        assert!(!took(&mut anyone), "a seated player's wager changes no public view");
        let close = Request::Table { table: TableId(1), command: Command::CloseBetting, by: Actor::Server };
        batch(&mut p, &read, &mut c, vec![close]);
        assert!(took(&mut anyone), "no more bets changes it");
        assert!(took(&mut mine));
    }

    #[test]
    fn a_new_table_wakes_every_socket() {
        let tmp = Tmp::new();
        let (mut p, read, mut c) = two_tables(&tmp, PlayerId(7));
        let (mut one, mut two) = (read.wakes.table(TableId(1), None), read.wakes.table(TableId(2), Some(PlayerId(8))));
        let mut commit = Commit::default();
        c.create_table(TableId(3), "T", "nsw-2021", CONFIG, Mode::Rng, Money(100_000_000), &mut commit).unwrap();
        let changes = read.views.read().unwrap().changes(&c, &commit);
        p.committed(changes, commit, None);
        assert!(took(&mut one) && took(&mut two));
    }

    #[test]
    fn a_clean_stops_checkpoint_is_handed_back_with_its_feed_and_mark() {
        let (tmp, casino) = (Tmp::new(), Casino::new());
        let (mut p, read) = publisher(&tmp, &casino);
        let commit = Commit::default();
        let due = DueCheckpoint { checkpoint: Box::new(casino.checkpoint()), asked: true };
        let changes = read.views.read().unwrap().changes(&casino, &commit);
        let now = p.committed(changes, commit, Some(due)).expect("a clean stop's checkpoint is written now");
        assert!(now.checkpoint.feed.is_some());
        assert!(now.checkpoint.anchor.is_some());
        assert_eq!(now.anchors, tmp.0.join("db.anchors"));
    }
}
