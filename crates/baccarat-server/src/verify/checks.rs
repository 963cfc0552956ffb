//! A table's configuration against its chain, and the RNG table's promise
//! that no person decided a card.

use baccarat_core::TableId;
use baccarat_table::Event;

use crate::audit::{Body, CasinoEvent};
use crate::store::TableRow;
use crate::trust::{Actor, Mode};

use super::voids::Voids;
use super::Void;

/// The table's definition in the database is the one its chain last recorded.
#[derive(Default)]
pub(super) struct ConfigCheck {
    last: Option<(String, String, String, Mode, bool)>,
}

impl ConfigCheck {
    pub(super) fn feed(&mut self, b: &Body) {
        if let Some(CasinoEvent::TableConfigured { name, rulebook, config, mode, open, .. }) = &b.casino {
            self.last = Some((name.clone(), rulebook.clone(), config.clone(), *mode, *open));
        }
    }

    pub(super) fn problem(&self, row: &TableRow) -> Option<String> {
        match &self.last {
            None => Some(format!("table {}: its chain records no configuration", row.id)),
            Some((name, rulebook, config, mode, open)) => (*name != row.name
                || *rulebook != row.rulebook
                || *config != row.config
                || mode.id() != row.mode
                || *open != row.open)
                .then(|| {
                    format!(
                        "table {}: its definition in the database is not the one its chain recorded (configuration changed outside the server)",
                        row.id
                    )
                }),
        }
    }
}

/// On an RNG table the RNG alone decided every card: no shoe was started, no
/// card dealt and no coup reconstructed by a person. Voids after the cards
/// were out are listed for the inspector.
pub(super) struct RngCheck {
    table: TableId,
    voids_of: Voids,
    pub(super) problems: Vec<String>,
    pub(super) voids: Vec<Void>,
}

impl RngCheck {
    pub(super) fn new(table: TableId) -> RngCheck {
        RngCheck { table, voids_of: Voids::new(table), problems: Vec::new(), voids: Vec::new() }
    }

    pub(super) fn feed(&mut self, seq: u64, b: &Body) {
        let table = self.table;
        self.voids.extend(self.voids_of.feed(b));
        let Some(e) = &b.event else { return };
        let person = matches!(b.by, Some(Actor::Person { .. }));
        match e {
            Event::ShoeStarted { seed, .. } if person || seed.is_none() => self.problems.push(format!(
                "table {table} record {seq}: an RNG table's shoe was not shuffled by the server from its own seed"
            )),
            Event::CardDealt { .. } if person => {
                self.problems.push(format!("table {table} record {seq}: a person dealt a card at an RNG table"))
            }
            Event::Reconstructed { .. } => self.problems.push(format!(
                "table {table} record {seq}: an RNG table's cards were replaced or reordered (a reconstruction)"
            )),
            _ => {}
        }
    }
}

/// A table closed for good (`casino/closing.rs`) records nothing after its
/// `table_closed` record: no coup, no configuration, no second close. (Its
/// money's way back to the cage is the reconciliation's to check.)
#[derive(Default)]
pub(super) struct ClosedCheck {
    closed_at: Option<u64>,
    pub(super) problems: Vec<String>,
}

impl ClosedCheck {
    pub(super) fn feed(&mut self, table: TableId, seq: u64, b: &Body) {
        if let Some(at) = self.closed_at {
            self.problems.push(format!(
                "table {table} record {seq}: recorded after the table was closed for good (record {at})"
            ));
        } else if matches!(b.casino, Some(CasinoEvent::TableClosed { .. })) {
            self.closed_at = Some(seq);
        }
    }
}
