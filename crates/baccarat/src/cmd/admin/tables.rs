//! `baccarat admin tables …`: tables made from a configuration file, listed,
//! closed for good, and their float filled from and credited to the cage.

use std::path::PathBuf;

use anyhow::{Context, Result};
use baccarat_rules::Money;
use clap::Subcommand;
use reqwest::Method;
use serde_json::{json, Value};

use super::amount::{positive_amount, shown};
use super::client::Client;
use super::{key_arg, Shown};

#[derive(Subcommand, Debug, PartialEq)]
pub enum TablesCommand {
    /// Create a table from a configuration file (TOML, as `baccarat table
    /// check` reads it). The same name and configuration again answers the
    /// existing table.
    Add {
        name: String,
        #[arg(long)]
        config: PathBuf,
        /// rng (the server deals) or live (a dealer's console).
        #[arg(long, value_parser = ["rng", "live"], default_value = "rng")]
        mode: String,
        /// The table's opening float from the cage (e.g. 50000.00): the most
        /// its open wagers may win at once until it is filled [default: the
        /// server's, 10^9.00, never short].
        #[arg(long, value_parser = positive_amount)]
        float: Option<Money>,
    },
    /// Every table, one a line.
    List,
    /// Close a table for good: now, or when its coup in progress settles;
    /// its float goes back to the cage.
    Close { id: u32 },
    /// Chips from the cage to the table's float.
    Fill {
        id: u32,
        #[arg(value_parser = positive_amount)]
        amount: Money,
        /// The idempotency key: the same key again is the same fill, never a second.
        #[arg(long, value_parser = key_arg)]
        key: String,
    },
    /// Chips from the table's float back to the cage.
    Credit {
        id: u32,
        #[arg(value_parser = positive_amount)]
        amount: Money,
        /// The idempotency key: the same key again is the same credit, never a second.
        #[arg(long, value_parser = key_arg)]
        key: String,
    },
}

pub async fn run(c: &Client, cmd: TablesCommand) -> Result<Shown> {
    Ok(match cmd {
        TablesCommand::Add { name, config, mode, float } => {
            let text = std::fs::read_to_string(&config).with_context(|| format!("cannot read {}", config.display()))?;
            let body = json!({ "name": name, "config": text, "mode": mode, "float": float.map(|f| f.0) });
            let v = c.call(Method::POST, "/api/tables", Some(body)).await?;
            // The same name and configuration again answers the same table (the
            // contract), so the words do not claim it is new.
            let text = format!("table {} {name:?} ({mode}) is set up", v["table"]);
            Shown::new(v, text)
        }
        TablesCommand::List => {
            let v = c.call(Method::GET, "/api/tables", None).await?;
            let rows: Vec<String> = v["tables"].as_array().map(|t| t.iter().map(row).collect()).unwrap_or_default();
            let text = if rows.is_empty() { "no tables".to_string() } else { rows.join("\n") };
            Shown::new(v, text)
        }
        TablesCommand::Close { id } => {
            let v = c.call(Method::POST, &format!("/api/tables/{id}/close"), Some(json!({}))).await?;
            let text = match v["closed"].as_bool() {
                Some(true) => format!("closed table {id}; {} credited to the cage", shown(&v["credited"])),
                _ => format!("table {id} closes when its coup in progress settles"),
            };
            Shown::new(v, text)
        }
        TablesCommand::Fill { id, amount, key } => {
            let v = move_float(c, id, "fill", amount, key).await?;
            let text = format!("filled table {id} with {amount}; float {}", shown(&v["float"]));
            Shown::new(v, text)
        }
        TablesCommand::Credit { id, amount, key } => {
            let v = move_float(c, id, "credit", amount, key).await?;
            let text = format!("credited {amount} from table {id} to the cage; float {}", shown(&v["float"]));
            Shown::new(v, text)
        }
    })
}

async fn move_float(c: &Client, id: u32, way: &str, amount: Money, key: String) -> Result<Value> {
    let body = json!({ "amount": amount.0, "key": key });
    Ok(c.call(Method::POST, &format!("/api/tables/{id}/{way}"), Some(body)).await?)
}

/// `3 "Salon" nsw-2021 rng open, 10.00 to 5000.00`.
fn row(t: &Value) -> String {
    let state = match (t["closed"].as_bool(), t["open"].as_bool()) {
        (Some(true), _) => "closed for good",
        (_, Some(true)) => "open",
        _ => "not open",
    };
    format!(
        "{} {} {} {} {state}, {} to {}",
        t["id"],
        t["name"],
        t["rulebook"].as_str().unwrap_or("?"),
        t["mode"].as_str().unwrap_or("?"),
        shown(&t["min"]),
        shown(&t["max"])
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_table_reads_as_one_line() {
        let t = json!({"id": 3, "name": "Salon", "rulebook": "nsw-2021", "mode": "rng", "open": true,
            "min": 1000, "max": 500000});
        assert_eq!(row(&t), "3 \"Salon\" nsw-2021 rng open, 10.00 to 5000.00");
        let t = json!({"id": 4, "name": "B", "rulebook": "au-casino", "mode": "live", "open": false,
            "closed": true, "min": 100, "max": 100});
        assert_eq!(row(&t), "4 \"B\" au-casino live closed for good, 1.00 to 1.00");
    }
}
