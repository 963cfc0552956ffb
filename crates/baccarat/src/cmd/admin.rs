//! `baccarat admin --url URL …`: the back office from the command line, a
//! thin wrapper of the server's HTTP API (issue 47's contract, "The CLI").
//!
//! It signs in as `BACCARAT_ADMIN_USER` (default `admin`) with
//! `BACCARAT_ADMIN_PASSWORD`, else a password typed at the terminal; never a
//! flag (`credentials.rs`). Amounts are typed in major units with at most two
//! decimals, `1000.50` (`amount.rs`), and sent as cents. It prints a line of
//! text, or with `--json` the API's answer; a refusal prints the API's words
//! and exits with status 2, and (the API's promise) changes nothing.

mod amount;
mod books;
mod client;
mod credentials;
mod players;
mod tables;
mod users;

use anyhow::Result;
use clap::Subcommand;
use serde_json::Value;

use client::Client;
use credentials::Terminal;

#[derive(clap::Args, Debug)]
pub struct Args {
    /// The server's address, e.g. http://127.0.0.1:8080 (http:// only).
    #[arg(long)]
    url: String,
    /// Print the API's JSON answer instead of a line of text.
    #[arg(long, global = true)]
    json: bool,
    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(Subcommand, Debug, PartialEq)]
pub enum AdminCommand {
    /// Accounts: staff of every role, and players.
    #[command(subcommand)]
    Users(users::UsersCommand),
    /// Players' accounts and the cage: create, deposit, cash out.
    #[command(subcommand)]
    Players(players::PlayersCommand),
    /// Tables: create from a configuration file, list, close; fill and credit their float.
    #[command(subcommand)]
    Tables(tables::TablesCommand),
    /// The casino's gaming day: its time zone and cut-off hour.
    #[command(subcommand)]
    GamingDay(books::GamingDayCommand),
    /// The books of a gaming day.
    #[command(subcommand)]
    Report(books::ReportCommand),
}

/// What a subcommand answers: the API's JSON (printed with `--json`) and
/// the words a person reads.
#[derive(Debug)]
pub struct Shown {
    json: Value,
    text: String,
}

impl Shown {
    fn new(json: Value, text: String) -> Shown {
        Shown { json, text }
    }
}

/// An idempotency key as the server takes it (1 to 128 bytes), refused here
/// in the server's own words before anything is sent.
fn key_arg(s: &str) -> Result<String, String> {
    baccarat_core::ledger::keys::IdempotencyKey::parse(s.to_string())
        .map(|k| k.into_string())
        .map_err(|e| e.to_string())
}

/// Read the passwords (the admin's, and a new one where the subcommand
/// sets one) before anything is sent, sign in, do the one thing, sign out.
pub fn run(a: Args) -> Result<()> {
    // (clap's `conflicts_with` misses a `--json` given before the subcommand.)
    if a.json && matches!(a.command, AdminCommand::Report(books::ReportCommand::Day { csv: true, .. })) {
        anyhow::bail!("--csv and --json: the report is one or the other");
    }
    let env = credentials::process_env;
    let mut prompt = Terminal;
    let (name, password) = credentials::admin(&env, &mut prompt)?;
    let new_password = match new_password_for(&a.command) {
        Some(whom) => Some(credentials::new_password(&whom, &env, &mut prompt)?),
        None => None,
    };
    let rt = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let shown = rt.block_on(async {
        let c = Client::sign_in(&a.url, &name, &password).await?;
        let shown = dispatch(&c, a.command, new_password).await;
        c.sign_out().await;
        shown
    })?;
    match a.json {
        true => println!("{}", serde_json::to_string_pretty(&shown.json)?),
        false if shown.text.is_empty() => {}
        false => println!("{}", shown.text),
    }
    Ok(())
}

fn new_password_for(c: &AdminCommand) -> Option<String> {
    match c {
        AdminCommand::Users(u) => users::new_password_for(u),
        AdminCommand::Players(p) => players::new_password_for(p),
        _ => None,
    }
}

async fn dispatch(c: &Client, cmd: AdminCommand, new_password: Option<String>) -> Result<Shown> {
    match cmd {
        AdminCommand::Users(u) => users::run(c, u, new_password).await,
        AdminCommand::Players(p) => players::run(c, p, new_password).await,
        AdminCommand::Tables(t) => tables::run(c, t).await,
        AdminCommand::GamingDay(g) => books::gaming_day(c, g).await,
        AdminCommand::Report(r) => books::report(c, r).await,
    }
}

#[cfg(test)]
mod tests;
