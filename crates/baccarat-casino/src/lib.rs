//! The single-machine casino, above the durable floor (`baccarat-core`) and
//! below the cluster and the edge (`baccarat-server`): it knows no HTTP and no
//! PostgreSQL, and the build refuses it, since it depends on neither.
//!
//! * `casino`: tables and money (wagers, settlement, the cage), tournaments,
//!   promotions, players' own limits, recovery from a store;
//! * `writer`: the single writer that applies each batch of requests and
//!   hands it to the committer, with the `Funding` a partition's bank plugs
//!   in from above;
//! * `casino::checkpoint`, `casino::checkpoint_rows`, `checkpoint_check`: the
//!   casino's state as a batch leaves it, sealed and signed;
//! * `table_view`, `coup_feed` (and its `lines`): the read models published after
//!   each commit;
//! * `exposure`: the exact EV of every offered wager from the cards a table
//!   has shown (issue 50, part 3), and its alert;
//! * `float`: the house float that covers the worst case of a coup;
//! * `pacer`: what an RNG table's pace calls for next, from its typed view;
//! * `books`: the gaming day and its books, a pure fold over the records.
//! * `table_check`: a table's configuration checked as a creation would, changing nothing.
//!
//! The surface (issue 46): the read models, the writer and the metered
//! counts are named at the root (`TableView`, `CoupFeed`, `Writer`…) and
//! their modules are private; `casino` (the state and its commands, with
//! its areas as submodules), `books`, `pacer` and `table_check` stay public
//! namespaces, since their items read best with the module in front
//! (`pacer::next`, `table_check::problems`, `books::differences`).
//!
//! ```
//! use baccarat_casino::casino::Casino;
//! use baccarat_casino::Views;
//!
//! let casino = Casino::new();
//! assert!(casino.tables.is_empty());
//! assert!(Views::default().tables.is_empty());
//! ```

// The floor's modules, under the paths this crate's modules name them by.
use baccarat_core::{anchor, audit, ledger, store, trust};

pub mod books;
pub mod casino;
mod checkpoint_check;
mod coup_feed;
/// The live exposure monitor (issue 50, part 3).
mod exposure;
/// Its read model: every table priced, the alerts, the thresholds.
mod exposure_watch;
mod float;
mod metered;
pub mod pacer;
/// A table's configuration checked without making the table.
pub mod table_check;
mod table_view;
mod writer;

pub use checkpoint_check::latest_without_read_model;
pub use coup_feed::{CoupFeed, CoupResult, Feed, HistoryLine, Notice, ShoeLine, WagerLine, WagerStatus, RECALL_COUPS};
pub use exposure::{above, exposure_of, table_exposure, OfferExposure, ShownCards, TableExposure, DEFAULT_THRESHOLD};
pub use exposure_watch::{
    concerns_exposure, parse_threshold, reveals, Cause, ExposureAlert, ExposureInput, Exposures, OfferWatch,
    TableWatch, Thresholds, ALERTS,
};
pub use metered::{Wagers, BATCH_SIZE};
pub use table_view::{AnteView, HandOut, OfferView, PayLine, PhaseView, TableView, ViewChanges, ViewDealing, Views};
pub use writer::{Busy, DueCheckpoint, Funding, Writer};
