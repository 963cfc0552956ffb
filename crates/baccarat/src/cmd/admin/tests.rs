//! `baccarat admin`'s arguments, parsed by the command's own parser (main's
//! `Cli`): what is taken, and what is refused before anything is sent.

use baccarat_core::trust::Role;
use baccarat_rules::Money;
use clap::Parser;

use super::books::{GamingDayCommand, ReportCommand};
use super::players::PlayersCommand;
use super::tables::TablesCommand;
use super::users::UsersCommand;
use super::{AdminCommand, Args};

fn parse(args: &[&str]) -> Result<Args, String> {
    let all = [&["baccarat", "admin", "--url", "http://127.0.0.1:1"], args].concat();
    match crate::Cli::try_parse_from(all) {
        Ok(crate::Cli { command: crate::Command::Admin(a) }) => Ok(a),
        Ok(_) => Err("another command".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn command(args: &[&str]) -> AdminCommand {
    parse(args).unwrap_or_else(|e| panic!("{args:?}: {e}")).command
}

fn refused(args: &[&str], needle: &str) {
    let e = parse(args).err().unwrap_or_else(|| panic!("{args:?} was taken"));
    assert!(e.contains(needle), "{args:?}: {e:?} lacks {needle:?}");
}

#[test]
fn a_password_is_never_a_flag() {
    refused(&["--password", "pw", "users", "list"], "--password");
    refused(&["users", "list", "--password", "pw"], "--password");
    refused(&["users", "password", "7", "--password", "pw"], "--password");
    refused(&["users", "add", "bo", "--role", "dealer", "--password=pw"], "--password");
    refused(&["players", "add", "bo", "--password", "pw"], "--password");
}

#[test]
fn users_subcommands_take_ids_and_roles_by_their_api_names() {
    assert_eq!(
        command(&["users", "add", "alice", "--role", "dealer"]),
        AdminCommand::Users(UsersCommand::Add { name: "alice".into(), role: Role::Dealer })
    );
    assert_eq!(
        command(&["users", "role", "7", "tournament_manager"]),
        AdminCommand::Users(UsersCommand::Role { id: 7, role: Role::TournamentManager })
    );
    assert_eq!(command(&["users", "disable", "7"]), AdminCommand::Users(UsersCommand::Disable { id: 7 }));
    assert_eq!(
        command(&["users", "list", "--role", "player", "--q", "ali", "--all"]),
        AdminCommand::Users(UsersCommand::List {
            role: Some(Role::Player),
            q: Some("ali".into()),
            all: true,
            after: None,
            limit: None
        })
    );
    refused(&["users", "add", "alice", "--role", "boss"], "not a role");
    refused(&["users", "add", "alice"], "--role");
    refused(&["users", "disable", "-1"], "-1");
    refused(&["users", "list", "--limit", "0"], "0");
    refused(&["users", "list", "--limit", "501"], "501");
}

#[test]
fn amounts_are_major_units_with_at_most_two_decimals() {
    assert_eq!(
        command(&["players", "deposit", "5", "1000.50", "--key", "slip-1"]),
        AdminCommand::Players(PlayersCommand::Deposit { id: 5, amount: Money(100_050), key: "slip-1".into() })
    );
    assert_eq!(
        command(&["players", "add", "bo", "--chips", "250"]),
        AdminCommand::Players(PlayersCommand::Add { name: "bo".into(), chips: Money(25_000) })
    );
    assert_eq!(
        command(&["players", "add", "bo"]),
        AdminCommand::Players(PlayersCommand::Add { name: "bo".into(), chips: Money(0) })
    );
    refused(&["players", "deposit", "5", "10.005", "--key", "k"], "at most two decimals");
    refused(&["players", "deposit", "5", "0", "--key", "k"], "more than 0");
    refused(&["players", "cash-out", "5", "1e3", "--key", "k"], "amount");
    refused(&["tables", "fill", "3", "1,000", "--key", "k"], "amount");
    refused(&["tables", "credit", "3", "-5", "--key", "k"], "");
}

#[test]
fn a_movement_of_money_needs_a_key_the_server_would_take() {
    refused(&["players", "deposit", "5", "10"], "--key");
    refused(&["players", "cash-out", "5", "10", "--key", ""], "key");
    let long = "k".repeat(129);
    refused(&["tables", "fill", "3", "10", "--key", &long], "key");
    assert_eq!(
        command(&["tables", "credit", "3", "10", "--key", "c-1"]),
        AdminCommand::Tables(TablesCommand::Credit { id: 3, amount: Money(1000), key: "c-1".into() })
    );
}

#[test]
fn tables_add_takes_a_config_file_and_a_mode() {
    assert_eq!(
        command(&["tables", "add", "Salon", "--config", "salon.toml"]),
        AdminCommand::Tables(TablesCommand::Add {
            name: "Salon".into(),
            config: "salon.toml".into(),
            mode: "rng".into(),
            float: None,
        })
    );
    let with = command(&["tables", "add", "Salon", "--config", "salon.toml", "--float", "50000.00"]);
    assert!(matches!(
        with,
        AdminCommand::Tables(TablesCommand::Add { float: Some(baccarat_rules::Money(5_000_000)), .. })
    ));
    refused(&["tables", "add", "Salon", "--config", "x.toml", "--float", "10.001"], "10.001");
    refused(&["tables", "add", "Salon", "--config", "x.toml", "--float", "0"], "more than 0");
    refused(&["tables", "add", "Salon"], "--config");
    refused(&["tables", "add", "Salon", "--config", "x.toml", "--mode", "auto"], "auto");
}

#[test]
fn the_gaming_day_and_the_report_take_an_hour_and_a_date() {
    assert_eq!(
        command(&["gaming-day", "set", "Australia/Sydney", "6"]),
        AdminCommand::GamingDay(GamingDayCommand::Set { zone: "Australia/Sydney".into(), hour: 6 })
    );
    refused(&["gaming-day", "set", "UTC", "24"], "24");
    assert_eq!(
        command(&["report", "day", "2026-05-01", "--csv", "--out", "day.csv"]),
        AdminCommand::Report(ReportCommand::Day {
            date: Some("2026-05-01".into()),
            csv: true,
            out: Some("day.csv".into())
        })
    );
    refused(&["report", "day", "1 May"], "not a date");
    refused(&["report", "day", "2026-05-01", "--csv", "--json"], "--json");
    // Before the subcommand clap lets it by; `run` refuses it before signing in.
    let both = parse(&["--json", "report", "day", "2026-05-01", "--csv"]).unwrap();
    let e = super::run(both).unwrap_err();
    assert!(e.to_string().contains("--csv and --json"), "{e}");
}

#[test]
fn json_may_follow_the_subcommand() {
    assert!(parse(&["tables", "list", "--json"]).unwrap().json);
    assert!(parse(&["--json", "tables", "list"]).unwrap().json);
    assert!(!parse(&["tables", "list"]).unwrap().json);
}

#[test]
fn the_url_is_required() {
    let e = crate::Cli::try_parse_from(["baccarat", "admin", "tables", "list"]).err().expect("refused");
    assert!(e.to_string().contains("--url"), "{e}");
}
