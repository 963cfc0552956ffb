//! Publication after a commit: what the committer does with each batch once
//! it is durable and before any of its requests is answered (`writer.rs`).
//!
//! In this order, and why:
//! 1. **The anchors.** The batch's chains' heads go to the anchor file (in
//!    the next line, at most `anchor_every` from now). A batch that cannot
//!    be anchored stops the server (`fatal.rs`) and is neither published
//!    nor answered: its clients retry with their keys.
//! 2. **The tables' and wallets' views, the tournaments' views, the coup
//!    feed.** Before the answers, so a client that has its answer reads its
//!    own change in every view.
//! 3. **The batch's checkpoint, if it carries one.** It takes the feed as of
//!    this batch (read under the same lock that folded the batch in) and the
//!    anchor file's mark (written first, so the mark names every head the
//!    checkpoint's state has); a clean stop's is handed back to be written
//!    now, on the committer, any other goes to the background checkpointer.
//! 4. **The push** (`changed`) last, once everything above is visible: a
//!    socket it wakes reads the batch in every view.

use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use tokio::sync::broadcast;

use crate::anchor::{AnchorError, AnchorKey};
use crate::anchoring::Anchoring;
use crate::casino::checkpoint::{Checkpoint, Checkpointer, WriteNow};
use crate::casino::tournaments::TournamentViews;
use crate::casino::Casino;
use crate::coup_feed::Feed;
use crate::store::Commit;
use crate::table_view::{ViewChanges, Views};
use crate::writer::DueCheckpoint;

/// The read models the handlers and sockets share, kept up to date by the
/// [`Publisher`].
#[derive(Clone)]
pub struct ReadModels {
    pub views: Arc<RwLock<Views>>,
    pub tournaments: Arc<RwLock<TournamentViews>>,
    pub feed: Arc<RwLock<Feed>>,
    /// The push: the count of batches published, sent after each.
    pub changed: broadcast::Sender<u64>,
}

impl ReadModels {
    /// The read models of a recovered casino and its recovered feed.
    pub fn recovered(casino: &Casino, feed: Feed) -> ReadModels {
        let views = Arc::new(RwLock::new(Views::default()));
        views.write().expect("views").rebuild(casino);
        let tournaments = Arc::new(RwLock::new(TournamentViews::of(casino)));
        let (changed, _) = broadcast::channel(1024);
        ReadModels { views, tournaments, feed: Arc::new(RwLock::new(feed)), changed }
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
/// committer.
pub struct Publisher {
    anchoring: Anchoring,
    read: ReadModels,
    checkpointer: Checkpointer,
    stop: StopCheckpoint,
    /// Batches published so far: what the push sends.
    version: u64,
}

impl Publisher {
    pub fn new(anchoring: Anchoring, read: ReadModels, checkpointer: Checkpointer, stop: StopCheckpoint) -> Publisher {
        Publisher { anchoring, read, checkpointer, stop, version: 0 }
    }

    /// Publish one durable batch, in the module's order; the checkpoint to
    /// write now, before the answers that wait for it (a clean stop's), if
    /// the batch carries one. Nothing more is published once the batch
    /// cannot be anchored (the server then stops).
    pub fn committed(&mut self, changes: ViewChanges, commit: Commit, due: Option<DueCheckpoint>) -> Option<WriteNow> {
        if let Err(e) = self.anchoring.committed(&crate::anchor::heads_of(&commit)) {
            self.anchoring.unanchored(&e);
            return None;
        }
        self.read.views.write().expect("views").apply(changes);
        self.read.tournaments.write().expect("tournaments").absorb(&commit.records);
        let mut f = self.read.feed.write().expect("feed");
        f.absorb_all(&commit.events);
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
        let _ = self.read.changed.send(self.version);
        now
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anchor::{AnchorKey, AnchorLog};
    use crate::fatal::Fatal;

    /// A fresh directory, removed on drop (`anchor.rs`'s test helper is the
    /// core crate's own).
    struct Tmp(PathBuf);
    impl Tmp {
        fn new() -> Tmp {
            let dir = std::env::temp_dir().join(format!("publish-test-{}", crate::entropy::random_hex(8)));
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
        let read = ReadModels::recovered(casino, Feed::default());
        let db = crate::store::Db::Sqlite(tmp.0.join("db.sqlite"));
        let checkpointer =
            crate::backend::start_checkpointer(&db, key.clone(), &anchors, None, casino.checkpointer_busy.clone());
        let stop = StopCheckpoint { key: Arc::new(key), anchors };
        (Publisher::new(anchoring, read.clone(), checkpointer.unwrap(), stop), read)
    }

    #[test]
    fn each_batch_is_pushed_with_its_count_once_its_views_are_published() {
        let (tmp, casino) = (Tmp::new(), Casino::new());
        let (mut p, read) = publisher(&tmp, &casino);
        let mut pushed = read.changed.subscribe();
        // The views count their own versions (a start's rebuild is one).
        let rebuilt = read.views.read().unwrap().version;
        for n in 1..=2u64 {
            let changes = read.views.read().unwrap().changes(&casino, &Commit::default());
            assert!(p.committed(changes, Commit::default(), None).is_none());
            assert_eq!(pushed.try_recv(), Ok(n));
            assert_eq!(read.views.read().unwrap().version, rebuilt + n);
        }
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
