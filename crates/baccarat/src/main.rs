//! `baccarat`: a casino's baccarat table server (its tables, pit console and
//! back office), the audit of its records (`verify`), and the odds, rulebook
//! and simulation tools behind it.
//!
//! Errors print one line beginning `error:` (or a list when a file has several
//! problems) and exit with status 2; nothing panics on bad input.

mod cmd;

use std::process::ExitCode;

/// mimalloc instead of the system's allocator: the server frees a busy coup's
/// tens of thousands of wagers at once, and glibc's allocator consolidating
/// its free lists then stalled the single writer for 40–180 ms (perf:
/// `malloc_consolidate`, `_int_malloc`), stalling every table.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "baccarat",
    version = concat!(
        env!("CARGO_PKG_VERSION"),
        " (commit ",
        env!("BACCARAT_COMMIT"),
        ", built ",
        env!("BACCARAT_BUILD_DATE"),
        ")"
    ),
    about = "A casino's baccarat table server from real rulebooks (RNG and live tables, the pit console, the back \
             office, a signed audit chain), the audit of its records, and the odds, rulebook and simulation tools",
    after_help = GROUPS
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// The commands by what they are for (clap lists them in one list).
const GROUPS: &str = "\
Running a casino:    serve, admin, backup, key, verify, archive, migrate, partitions, loadgen
Rulebooks and odds:  odds, profiles, profile, table, simulate, roads
Fair play:           shoe, rng, tournament, promotion

Try the demo: baccarat serve --demo, then open http://127.0.0.1:8080/.
The operator's manual is docs/README.md; every serve setting is in
docs/configuration.md (baccarat serve --print-config shows those in effect).";

#[derive(Subcommand)]
enum Command {
    /// Run the table server: RNG and live tables, the players' pages, the pit
    /// console and the back office over HTTP and WebSocket, on an embedded
    /// database or on PostgreSQL (one server serves, others stand by).
    Serve(Box<cmd::serve::ServeArgs>),
    /// The back office over a running server's API: people, players and the
    /// cage, tables, the gaming day and its books. Signs in as
    /// BACCARAT_ADMIN_USER (default admin) with BACCARAT_ADMIN_PASSWORD, else
    /// a password typed at the terminal.
    Admin(cmd::admin::Args),
    /// Audit a casino's records: audit chains against their signed anchors,
    /// seeds, cards, results, settlements, the ledger; non-zero on any difference.
    Verify(cmd::verify::VerifyArgs),
    /// Move history older than some days out of the live tables (SQLite: into
    /// a write-once file per month; PostgreSQL: detached month partitions),
    /// still read by verify, recall and a full replay.
    Archive(cmd::archive::ArchiveArgs),
    /// A consistent copy of a SQLite casino while it serves: the database, its
    /// anchor file up to the copy's point and the public key (the signing key
    /// with --include-key); restore by copying the directory back.
    Backup(cmd::backup::BackupArgs),
    /// The server's signing key: show the public key to publish and pin, or
    /// rotate it (the server stopped).
    #[command(subcommand)]
    Key(cmd::key::KeyCommand),
    /// Copy a SQLite casino into an empty PostgreSQL database and check the copy.
    Migrate(cmd::migrate::MigrateArgs),
    /// The partitions of a PostgreSQL casino, and where each is served.
    Partitions(cmd::partitions::PartitionsArgs),
    /// Drive many players at many tables of a running server on loopback.
    Loadgen(cmd::loadgen::Args),
    /// Exact odds of every wager a rulebook permits for any shoe, and the effect of removal (--eor).
    Odds(cmd::odds::Args),
    /// List the built-in rulebook profiles.
    Profiles(cmd::profiles::ListArgs),
    /// Show or check one rulebook profile.
    #[command(subcommand)]
    Profile(cmd::profiles::ProfileCommand),
    /// Check a table configuration against its rulebook.
    #[command(subcommand)]
    Table(cmd::table::TableCommand),
    /// Play whole shoes (shuffle, cut, burn, cutting card, last coup) and settle
    /// every offered wager at a flat stake.
    Simulate(cmd::simulate::Args),
    /// The roads (bead plate, big road, derived roads, ask-road) for results
    /// read from stdin as B, P and T.
    Roads(cmd::roads::Args),
    /// Deal a published shoe again from its seed and check the seed against
    /// the commitment published before the shoe started.
    Shoe(cmd::shoe::Args),
    /// The shuffle's statistical evidence: raw keystream, card positions, report.
    #[command(subcommand)]
    Rng(cmd::rng::RngCommand),
    /// Tournament conditions (NSW 15.4): check a conditions file, or show it
    /// as players read it.
    #[command(subcommand)]
    Tournament(cmd::tournament::TournamentCommand),
    /// Promotional prizes (NSW 16): check terms, make a draw's seed, draw.
    #[command(subcommand)]
    Promotion(cmd::promotion::PromotionCommand),
}

/// Writes out what the log still holds (`cmd/logging.rs`) when `main` ends,
/// by returning or by a panic; an earlier exit goes through
/// `baccarat_core::exit::exit`, which does the same.
struct FlushAtEnd;

impl Drop for FlushAtEnd {
    fn drop(&mut self) {
        baccarat_core::exit::flush();
    }
}

fn main() -> ExitCode {
    let _flush = FlushAtEnd;
    // The matches are kept: `serve --print-config` tells a flag from its
    // environment variable by them.
    let matches = Cli::command().get_matches();
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    let serve_matches = matches.subcommand_matches("serve").cloned().unwrap_or_default();
    // `serve` sets up its own log, as its settings say (`cmd/logging.rs`).
    if !matches!(cli.command, Command::Serve(_)) {
        cmd::logging::init_quiet();
    }
    let result = match cli.command {
        Command::Odds(a) => cmd::odds::run(a),
        Command::Profiles(a) => cmd::profiles::list(a),
        Command::Profile(c) => cmd::profiles::run(c),
        Command::Table(c) => cmd::table::run(c),
        Command::Roads(a) => cmd::roads::run(a),
        Command::Simulate(a) => cmd::simulate::run_cmd(a),
        Command::Serve(a) => cmd::serve::run_serve(*a, &serve_matches),
        Command::Verify(a) => cmd::verify::run_verify(a),
        Command::Archive(a) => cmd::archive::run(a),
        Command::Backup(a) => cmd::backup::run(a),
        Command::Key(c) => cmd::key::run(c),
        Command::Migrate(a) => cmd::migrate::run(a),
        Command::Partitions(a) => cmd::partitions::run(a),
        Command::Loadgen(a) => cmd::loadgen::run(a),
        Command::Rng(c) => cmd::rng::run(c),
        Command::Shoe(a) => cmd::shoe::run(a),
        Command::Tournament(c) => cmd::tournament::run(c),
        Command::Promotion(c) => cmd::promotion::run(c),
        Command::Admin(a) => cmd::admin::run(a),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            // The log's last lines (why it failed) before this one.
            baccarat_core::exit::flush();
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_command_line_is_well_formed() {
        Cli::command().debug_assert();
    }

    /// The top-level help says what the server is, and groups every
    /// command: a command added without its place in [`GROUPS`] fails here.
    #[test]
    fn the_help_says_what_it_is_and_groups_every_command() {
        let cli = Cli::command();
        let about = cli.get_about().map(|a| a.to_string()).unwrap_or_default();
        for words in ["table server", "pit console", "back office", "audit", "odds", "simulation"] {
            assert!(about.contains(words), "the about text lacks {words:?}: {about}");
        }
        let grouped: Vec<&str> = GROUPS
            .lines()
            .filter_map(|l| l.split_once(':'))
            .flat_map(|(_, names)| names.split(','))
            .map(str::trim)
            .collect();
        for sub in cli.get_subcommands() {
            assert!(grouped.contains(&sub.get_name()), "`baccarat {}` is in no group of GROUPS", sub.get_name());
        }
        let first = cli.get_subcommands().next().map(|c| c.get_name().to_string());
        assert_eq!(first.as_deref(), Some("serve"), "the server comes first");
    }
}
