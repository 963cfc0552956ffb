//! A first run's casino: one table per rulebook and a live table for the pit
//! console, staff and demo players holding play chips (made by whichever
//! server of a casino starts first; a partition's players' chips are paid
//! into the shared bank at its cage).

use std::sync::Arc;

use baccarat_rules::Money;

use crate::auth::{random_hex, Role, Users};
use crate::casino::{Casino, Mode, Request, DEFAULT_FLOAT};
use crate::ledger::keys::ColdKeys;
use crate::serve_config::ServeConfig;
use crate::serve_error::ServeError;
use crate::store::Commit;

/// The demo tables: one per rulebook (RNG), and a live NSW table for the pit
/// console. Limits are in cents.
pub const DEMO_TABLES: [(u32, &str, &str, Mode, &str); 5] = [
    (1, "Sydney NSW", "nsw-2021", Mode::Rng, "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\ndifferential = 1000000\n[bets.player_pair]\n[bets.banker_pair]\n[bets.super_six]\n[bets.tiger_tie]\n"),
    (2, "Melbourne AU", "au-casino", Mode::Rng, "rulebook = \"au-casino\"\nchip = 100\nmin = 2000\nmax = 500000\n[bets.tie]\npay_table = \"8_to_1\"\n[bets.perfect_pair_player]\npay_table = \"scale_one\"\n[bets.perfect_pair_banker]\npay_table = \"scale_one\"\n[bets.dragon_bonus_player]\npay_table = \"table_1\"\n[bets.dragon_bonus_banker]\npay_table = \"table_1\"\n"),
    (3, "Resort squeeze", "resort-house", Mode::Rng, "rulebook = \"resort-house\"\nchip = 100\nmin = 1000\nmax = 200000\ndealing = \"squeeze\"\n[bets.player_pair]\n[bets.banker_pair]\n"),
    (4, "European", "european-casino", Mode::Rng, "rulebook = \"european-casino\"\nchip = 100\nmin = 1000\nmax = 300000\ndifferential = 500000\n[bets.player_pair]\n[bets.banker_pair]\n"),
    (5, "Live pit NSW", "nsw-2021", Mode::Live, "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\ndifferential = 1000000\n[bets.player_pair]\n[bets.banker_pair]\n"),
];

/// The demo casino, written into `commit`; the admin's password if this
/// server made the people (none if another server of the casino had).
pub fn casino(
    cfg: &ServeConfig,
    users: &Users,
    keys: Arc<dyn ColdKeys>,
    lease: Option<&crate::pg_store::Lease>,
    commit: &mut Commit,
) -> Result<(Casino, Option<String>), ServeError> {
    let mut c = Casino::new();
    c.ceiling = cfg.ceiling;
    c.clock = cfg.clock.clone();
    c.ledger.set_retention(cfg.key_retention.as_millis() as u64);
    c.ledger.keys.set_cold(keys, crate::ledger::keys::DEFAULT_HOT_MS);
    for (id, name, rb, mode, config) in DEMO_TABLES {
        c.create_table(id, name, rb, config, mode, DEFAULT_FLOAT, commit).map_err(ServeError::casino)?;
    }
    // A partition's people are the casino's, made by whichever of its
    // servers starts first; its players' chips are at the bank.
    let mut people = users.count()? == 0;
    let admin = random_hex(12);
    // Two partitions' servers starting at once on a new casino (or one
    // process standing by for another partition: `standby_for.rs`) both
    // find no people: the one whose admin is made second leaves them to
    // the first.
    if people {
        match users.create("admin", Role::Admin, &admin) {
            Ok(_) => {}
            Err(crate::auth::AuthError::Taken(_)) => people = false,
            Err(e) => return Err(e.into()),
        }
    }
    if people {
        for (name, role) in [
            ("dealer", Role::Dealer),
            ("supervisor", Role::Supervisor),
            ("inspector", Role::Inspector),
            ("manager", Role::TournamentManager),
        ] {
            users.create(name, role, &cfg.demo_password)?;
        }
    }
    // (Connecting migrates the bank's schema, which the commit below
    // writes to.)
    if let (Some(p), Some(url)) = (&cfg.partition, &cfg.postgres) {
        c.set_partition(p);
        crate::pg_store::bank::Bank::connect(url).map_err(ServeError::Bank)?;
    }
    for i in (1..=5).filter(|_| people) {
        let id = users.create(&format!("player{i}"), Role::Player, &cfg.demo_password)?;
        let player = baccarat_table::engine::PlayerId(id);
        match &cfg.partition {
            // Paid into the bank by this commit, at this partition's cage.
            Some(p) => {
                let reference = crate::pg_store::bank::cage_reference(p, id, "demo chips");
                c.caged(player, Money(1_000_000), &reference, commit).map_err(ServeError::casino)?;
            }
            None => {
                let deposit = Request::Deposit { player, amount: Money(1_000_000), key: "demo chips".into() };
                c.handle(deposit, commit);
            }
        }
    }
    if let Some(l) = lease {
        c.served(&cfg.instance, l.epoch, commit);
    }
    Ok((c, people.then_some(admin)))
}
