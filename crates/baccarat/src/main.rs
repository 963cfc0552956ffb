//! `baccarat`: exact odds and rulebook profiles from the command line.
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

use clap::{Parser, Subcommand};

#[derive(Parser)]
#[command(
    name = "baccarat",
    version = concat!(env!("CARGO_PKG_VERSION"), " (commit ", env!("BACCARAT_COMMIT"), ")"),
    about = "Casino baccarat from real rulebooks: the table server and its back office, exact odds, simulation, verify"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Exact odds of every wager a rulebook permits, by full enumeration of the shoe.
    Odds(cmd::odds::Args),
    /// List the built-in rulebook profiles.
    Profiles(cmd::profiles::ListArgs),
    /// Show or check one rulebook profile.
    #[command(subcommand)]
    Profile(cmd::profiles::ProfileCommand),
    /// The roads (bead plate, big road, derived roads, ask-road) for results
    /// read from stdin as B, P and T.
    Roads(cmd::roads::Args),
    /// Play whole shoes (shuffle, cut, burn, cutting card, last coup) and settle
    /// every offered wager at a flat stake.
    Simulate(cmd::simulate::Args),
    /// Run the table server (HTTP and WebSocket) on an embedded database, or
    /// on PostgreSQL (one server serves, others stand by).
    Serve(Box<cmd::serve::ServeArgs>),
    /// Check a database: audit chains, seeds, cards, results, settlements, ledger.
    Verify(cmd::verify::VerifyArgs),
    /// The server's signing key: show the public key to publish and pin, or
    /// rotate it (the server stopped).
    #[command(subcommand)]
    Key(cmd::key::KeyCommand),
    /// Move history older than some days out of the live tables (SQLite: into
    /// a write-once file per month; PostgreSQL: detached month partitions),
    /// still read by verify, recall and a full replay.
    Archive(cmd::archive::ArchiveArgs),
    /// Copy a SQLite casino into an empty PostgreSQL database and check the copy.
    Migrate(cmd::migrate::MigrateArgs),
    /// The partitions of a PostgreSQL casino, and where each is served.
    Partitions(cmd::partitions::PartitionsArgs),
    /// Drive many players at many tables of a running server on loopback.
    Loadgen(cmd::loadgen::Args),
    /// Check a table configuration against its rulebook.
    #[command(subcommand)]
    Table(cmd::table::TableCommand),
    /// Tournament conditions (NSW 15.4): check a conditions file, or show it
    /// as players read it.
    #[command(subcommand)]
    Tournament(cmd::tournament::TournamentCommand),
    /// Promotional prizes (NSW 16): check terms, make a draw's seed, draw.
    #[command(subcommand)]
    Promotion(cmd::promotion::PromotionCommand),
    /// The shuffle's statistical evidence: raw keystream, card positions, report.
    #[command(subcommand)]
    Rng(cmd::rng::RngCommand),
    /// Deal a published shoe again from its seed and check the seed against
    /// the commitment published before the shoe started.
    Shoe(cmd::shoe::Args),
    /// The back office over a running server's API: people, players and the
    /// cage, tables, the gaming day and its books. Signs in as
    /// BACCARAT_ADMIN_USER (default admin) with BACCARAT_ADMIN_PASSWORD, else
    /// a password typed at the terminal.
    Admin(cmd::admin::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Odds(a) => cmd::odds::run(a),
        Command::Profiles(a) => cmd::profiles::list(a),
        Command::Profile(c) => cmd::profiles::run(c),
        Command::Table(c) => cmd::table::run(c),
        Command::Roads(a) => cmd::roads::run(a),
        Command::Simulate(a) => cmd::simulate::run_cmd(a),
        Command::Serve(a) => cmd::serve::run_serve(*a),
        Command::Verify(a) => cmd::verify::run_verify(a),
        Command::Archive(a) => cmd::archive::run(a),
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
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}
