//! `baccarat admin players …`: a player's account and the cage's movements
//! of their wallet (`POST /api/players`, `…/deposit`, `…/cash-out`).

use anyhow::Result;
use baccarat_rules::Money;
use clap::Subcommand;
use reqwest::Method;
use serde_json::json;

use super::amount::{parse_amount, positive_amount, shown};
use super::client::Client;
use super::{key_arg, Shown};

#[derive(Subcommand, Debug, PartialEq)]
pub enum PlayersCommand {
    /// Create a player with a wallet. The password comes from
    /// BACCARAT_NEW_PASSWORD, else it is typed twice.
    Add {
        name: String,
        /// Opening play chips, e.g. 1000 or 1000.50 (default none).
        #[arg(long, value_parser = parse_amount, default_value = "0")]
        chips: Money,
    },
    /// Pay money into a player's wallet.
    Deposit {
        id: u32,
        /// e.g. 1000 or 1000.50 (major units, at most two decimals).
        #[arg(value_parser = positive_amount)]
        amount: Money,
        /// The idempotency key: the same key again is the same deposit, never a second.
        #[arg(long, value_parser = key_arg)]
        key: String,
    },
    /// Pay money out of a player's wallet to the cage (what open wagers hold stays).
    CashOut {
        id: u32,
        /// e.g. 1000 or 1000.50 (major units, at most two decimals).
        #[arg(value_parser = positive_amount)]
        amount: Money,
        /// The idempotency key: the same key again is the same cash-out, never a second.
        #[arg(long, value_parser = key_arg)]
        key: String,
    },
}

/// For whom a new password is read before signing in, if any.
pub fn new_password_for(c: &PlayersCommand) -> Option<String> {
    match c {
        PlayersCommand::Add { name, .. } => Some(format!("{name:?}")),
        _ => None,
    }
}

pub async fn run(c: &Client, cmd: PlayersCommand, password: Option<String>) -> Result<Shown> {
    Ok(match cmd {
        PlayersCommand::Add { name, chips } => {
            let body = json!({ "name": name, "password": password.unwrap_or_default(), "chips": chips.0 });
            let v = c.call(Method::POST, "/api/players", Some(body)).await?;
            let with = if chips.0 > 0 { format!(" with {chips} in chips") } else { String::new() };
            let text = format!("created player {} {}{with}", v["player"], v["name"]);
            Shown::new(v, text)
        }
        PlayersCommand::Deposit { id, amount, key } => {
            let body = json!({ "amount": amount.0, "key": key });
            let v = c.call(Method::POST, &format!("/api/players/{id}/deposit"), Some(body)).await?;
            let text = format!("deposited {amount} to player {id}; wallet {}", shown(&v["balance"]));
            Shown::new(v, text)
        }
        PlayersCommand::CashOut { id, amount, key } => {
            let body = json!({ "amount": amount.0, "key": key });
            let v = c.call(Method::POST, &format!("/api/players/{id}/cash-out"), Some(body)).await?;
            let text =
                format!("cashed out {} from player {id}; wallet {}", shown(&v["cashed_out"]), shown(&v["balance"]));
            Shown::new(v, text)
        }
    })
}
