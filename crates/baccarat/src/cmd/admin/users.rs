//! `baccarat admin users …`: people and their roles, over `/api/users`
//! (issue 47's contract, "People").

use anyhow::{bail, Result};
use baccarat_core::trust::Role;
use clap::Subcommand;
use reqwest::Method;
use serde_json::{json, Value};

use super::client::{with_query, Client};
use super::Shown;

#[derive(Subcommand, Debug, PartialEq)]
pub enum UsersCommand {
    /// Create an account (a player gets a wallet). The password comes from
    /// BACCARAT_NEW_PASSWORD, else it is typed twice.
    Add {
        name: String,
        /// player, dealer, supervisor, inspector, admin or tournament_manager.
        #[arg(long, value_parser = role_arg)]
        role: Role,
    },
    /// List accounts, by role or by part of the name.
    List {
        #[arg(long, value_parser = role_arg)]
        role: Option<Role>,
        /// Part of the name (any case).
        #[arg(long)]
        q: Option<String>,
        /// Read every page, not only the first.
        #[arg(long)]
        all: bool,
        /// Start after this id (the previous page's `next`).
        #[arg(long)]
        after: Option<u32>,
        /// Accounts per page (1 to 500; the server's default is 50).
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=500))]
        limit: Option<u32>,
    },
    /// Disable an account: it cannot sign in, and its sessions end now.
    Disable { id: u32 },
    /// Enable a disabled account again.
    Enable { id: u32 },
    /// Reset an account's password (every session of it ends). The new
    /// password comes from BACCARAT_NEW_PASSWORD, else it is typed twice.
    Password { id: u32 },
    /// Change an account's role.
    Role {
        id: u32,
        #[arg(value_parser = role_arg)]
        role: Role,
    },
}

/// A role by the name the API uses.
pub fn role_arg(s: &str) -> Result<Role, String> {
    Role::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Role::ALL.iter().map(|r| r.name()).collect();
        format!("{s:?} is not a role: one of {}", names.join(", "))
    })
}

/// For whom a new password is read before signing in, if any.
pub fn new_password_for(c: &UsersCommand) -> Option<String> {
    match c {
        UsersCommand::Add { name, .. } => Some(format!("{name:?}")),
        UsersCommand::Password { id } => Some(format!("user {id}")),
        _ => None,
    }
}

pub async fn run(c: &Client, cmd: UsersCommand, password: Option<String>) -> Result<Shown> {
    let password = || password.clone().unwrap_or_default();
    let (v, text) = match cmd {
        UsersCommand::Add { name, role } => {
            let body = json!({ "name": name, "role": role.name(), "password": password() });
            let v = c.call(Method::POST, "/api/users", Some(body)).await?;
            let text = format!("created user {}", one(&v));
            (v, text)
        }
        UsersCommand::List { role, q, all, after, limit } => return list(c, role, q, all, after, limit).await,
        UsersCommand::Disable { id } => {
            let v = c.call(Method::POST, &format!("/api/users/{id}/disable"), Some(json!({}))).await?;
            let text = format!("disabled user {}; {}", one(&v), sessions(&v));
            (v, text)
        }
        UsersCommand::Enable { id } => {
            let v = c.call(Method::POST, &format!("/api/users/{id}/enable"), Some(json!({}))).await?;
            (v.clone(), format!("enabled user {}", one(&v)))
        }
        UsersCommand::Password { id } => {
            let body = json!({ "password": password() });
            let v = c.call(Method::POST, &format!("/api/users/{id}/password"), Some(body)).await?;
            let text = format!("reset the password of user {id}; {}", sessions(&v));
            (v, text)
        }
        UsersCommand::Role { id, role } => {
            let body = json!({ "role": role.name() });
            let v = c.call(Method::POST, &format!("/api/users/{id}/role"), Some(body)).await?;
            let text = format!("user {} {} is now {}", v["id"], v["name"], v["role"].as_str().unwrap_or("?"));
            (v, text)
        }
    };
    Ok(Shown::new(v, text))
}

/// One page, or with `all` every page (following `next`), as one answer
/// `{"users": [...], "next": null}`.
async fn list(
    c: &Client,
    role: Option<Role>,
    q: Option<String>,
    all: bool,
    mut after: Option<u32>,
    limit: Option<u32>,
) -> Result<Shown> {
    let mut users = Vec::new();
    loop {
        let path = with_query(
            "/api/users",
            &[
                ("role", role.map(|r| r.name().to_string())),
                ("q", q.clone()),
                ("after", after.map(|a| a.to_string())),
                ("limit", limit.map(|l| l.to_string())),
            ],
        );
        let page = c.call(Method::GET, &path, None).await?;
        users.extend(page["users"].as_array().cloned().unwrap_or_default());
        let next = page["next"].as_u64().and_then(|n| u32::try_from(n).ok());
        match next {
            // A server that pages backwards would loop for ever.
            Some(n) if all && after.is_some_and(|a| n <= a) => bail!("the server paged back to {n} after {after:?}"),
            Some(n) if all => after = Some(n),
            _ => return Ok(listed(users, next.filter(|_| !all))),
        }
    }
}

/// The list's JSON and its lines: one account a line, then where the next
/// page starts when there is one.
fn listed(users: Vec<Value>, next: Option<u32>) -> Shown {
    let mut text: Vec<String> = users.iter().map(one).collect();
    if users.is_empty() {
        text.push("no such user".into());
    }
    if let Some(n) = next {
        text.push(format!("more: --after {n} (or --all)"));
    }
    Shown::new(json!({ "users": users, "next": next }), text.join("\n"))
}

/// `7 "alice" (dealer)`, and `, disabled` when it is.
fn one(v: &Value) -> String {
    let disabled = if v["disabled"].as_bool() == Some(true) { ", disabled" } else { "" };
    format!("{} {} ({}{disabled})", v["id"], v["name"], v["role"].as_str().unwrap_or("?"))
}

fn sessions(v: &Value) -> String {
    match v["sessions_ended"].as_u64() {
        Some(1) => "1 session ended".into(),
        Some(n) => format!("{n} sessions ended"),
        None => "sessions ended".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_account_reads_as_one_line() {
        let v = json!({"id": 7, "name": "alice", "role": "dealer", "disabled": false});
        assert_eq!(one(&v), "7 \"alice\" (dealer)");
        let v = json!({"id": 8, "name": "bo", "role": "player", "disabled": true});
        assert_eq!(one(&v), "8 \"bo\" (player, disabled)");
    }

    #[test]
    fn a_list_says_where_the_next_page_starts() {
        let s = listed(vec![json!({"id": 1, "name": "a", "role": "admin", "disabled": false})], Some(1));
        assert_eq!(s.text, "1 \"a\" (admin)\nmore: --after 1 (or --all)");
        assert_eq!(s.json["next"], 1);
        assert_eq!(listed(vec![], None).text, "no such user");
    }

    #[test]
    fn a_role_is_one_of_the_apis_names() {
        assert_eq!(role_arg("tournament_manager"), Ok(Role::TournamentManager));
        assert!(role_arg("Admin").unwrap_err().contains("one of player, dealer"));
    }
}
