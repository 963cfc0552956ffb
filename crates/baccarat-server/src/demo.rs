//! The demo casino (`serve --demo` on a fresh database: `founding.rs`): one
//! table per rulebook and a live table for the pit console, staff and demo
//! players holding play chips (made by whichever server of a casino starts
//! first; a partition's players' chips are paid into the shared bank at its
//! cage).

use baccarat_core::TableId;
use baccarat_rules::Money;

use crate::auth::{Role, Users};
use crate::casino::{Casino, Mode, Request, DEFAULT_FLOAT};
use crate::serve_config::ServeConfig;
use crate::serve_error::ServeError;
use crate::store::Commit;

/// The demo tables: one per rulebook (RNG), and a live NSW table for the pit
/// console. Limits are in cents.
pub const DEMO_TABLES: [(TableId, &str, &str, Mode, &str); 5] = [
    (TableId(1), "Sydney NSW", "nsw-2021", Mode::Rng, "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\ndifferential = 1000000\n[bets.player_pair]\n[bets.banker_pair]\n[bets.super_six]\n[bets.tiger_tie]\n"),
    (TableId(2), "Melbourne AU", "au-casino", Mode::Rng, "rulebook = \"au-casino\"\nchip = 100\nmin = 2000\nmax = 500000\n[bets.tie]\npay_table = \"8_to_1\"\n[bets.perfect_pair_player]\npay_table = \"scale_one\"\n[bets.perfect_pair_banker]\npay_table = \"scale_one\"\n[bets.dragon_bonus_player]\npay_table = \"table_1\"\n[bets.dragon_bonus_banker]\npay_table = \"table_1\"\n"),
    (TableId(3), "Resort squeeze", "resort-house", Mode::Rng, "rulebook = \"resort-house\"\nchip = 100\nmin = 1000\nmax = 200000\ndealing = \"squeeze\"\n[bets.player_pair]\n[bets.banker_pair]\n"),
    (TableId(4), "European", "european-casino", Mode::Rng, "rulebook = \"european-casino\"\nchip = 100\nmin = 1000\nmax = 300000\ndifferential = 500000\n[bets.player_pair]\n[bets.banker_pair]\n"),
    (TableId(5), "Live pit NSW", "nsw-2021", Mode::Live, "rulebook = \"nsw-2021\"\nchip = 100\nmin = 1000\nmax = 500000\ndifferential = 1000000\n[bets.player_pair]\n[bets.banker_pair]\n"),
];

/// The demo tables, written into `commit`.
pub fn tables(c: &mut Casino, commit: &mut Commit) -> Result<(), ServeError> {
    for (id, name, rb, mode, config) in DEMO_TABLES {
        c.create_table(id, name, rb, config, mode, DEFAULT_FLOAT, commit).map_err(ServeError::casino)?;
    }
    Ok(())
}

/// The demo's staff, one of each role, with the demo password.
pub fn staff(cfg: &ServeConfig, users: &Users) -> Result<(), ServeError> {
    for (name, role) in [
        ("dealer", Role::Dealer),
        ("supervisor", Role::Supervisor),
        ("inspector", Role::Inspector),
        ("surveillance", Role::Surveillance),
        ("manager", Role::TournamentManager),
    ] {
        users.create(name, role, &cfg.demo_password)?;
    }
    Ok(())
}

/// The demo's players, `player1` to `player5`, each with 10,000.00 of play
/// chips: at this server's cage, or at the bank for a partition's.
pub fn players(cfg: &ServeConfig, users: &Users, c: &mut Casino, commit: &mut Commit) -> Result<(), ServeError> {
    for i in 1..=5 {
        let id = users.create(&format!("player{i}"), Role::Player, &cfg.demo_password)?;
        let player = id.as_player();
        match &cfg.partition {
            // Paid into the bank by this commit, at this partition's cage.
            Some(p) => {
                let reference = crate::pg_store::bank::cage_reference(p, id.0, "demo chips");
                c.caged(player, Money(1_000_000), &reference, commit).map_err(ServeError::casino)?;
            }
            None => {
                let deposit = Request::Deposit {
                    player,
                    amount: Money(1_000_000),
                    key: "demo chips".parse().expect("the demo's key is a valid idempotency key"),
                };
                c.handle(deposit, commit);
            }
        }
    }
    Ok(())
}
