//! The HTTP layer of `baccarat admin`: sign in, one function that sends a
//! request and reads its answer ([`Client::call`]), sign out.
//!
//! The session is the login answer's bearer token (the API's clients use it;
//! the cookie is for the pages). Every route's path is written where the
//! subcommand calls [`Client::call`], so a route renamed at merge is one line.

use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

/// How long to wait for the server: to connect, and for a whole answer (a
/// day's report is read from the records, so it may take a while).
const CONNECT: Duration = Duration::from_secs(10);
const ANSWER: Duration = Duration::from_secs(300);
/// A 429 is a request not taken, so it is sent again after the server's
/// wait, a few times at most.
const TRIES: u32 = 5;
const MAX_WAIT_MS: u64 = 10_000;

/// Why a request got no answer the subcommand can use.
#[derive(Debug, thiserror::Error)]
pub enum AdminError {
    #[error("{url}: {why}")]
    Url { url: String, why: String },
    /// (The cause is its source: `error: {e:#}` prints it once.)
    #[error("no answer from {url}")]
    Unreachable {
        url: String,
        #[source]
        source: reqwest::Error,
    },
    /// No answer in time: a changing request may or may not have been taken.
    #[error(
        "no answer from {url} within {secs} s: the request may or may not have been taken; \
         look before sending it again (a keyed one is safe to send again with the same --key)"
    )]
    TimedOut { url: String, secs: u64 },
    #[error("sign-in as {name:?} refused: {message}")]
    SignIn { name: String, message: String },
    /// The API's refusal: its words, status and kind (`error.rs`'s contract).
    #[error("{message} ({status} {code})")]
    Api { status: u16, code: String, message: String },
    #[error("the server answered {status} with what is not JSON: {start:?}")]
    NotJson { status: u16, start: String },
}

/// A signed-in admin's connection to one server.
pub struct Client {
    http: reqwest::Client,
    /// The server's base URL, no trailing slash.
    base: String,
    token: String,
}

impl Client {
    /// Sign in at `url` as `name`. A wrong name or password, or a disabled
    /// account, is one refusal (the server does not say which).
    pub async fn sign_in(url: &str, name: &str, password: &str) -> Result<Client, AdminError> {
        let base = base_url(url)?;
        let http = reqwest::Client::builder()
            .connect_timeout(CONNECT)
            .timeout(ANSWER)
            .build()
            .map_err(|e| AdminError::Url { url: base.clone(), why: e.to_string() })?;
        let mut c = Client { http, base, token: String::new() };
        let body = json!({ "name": name, "password": password });
        let answer = c.send(Method::POST, "/api/login", Some(&body)).await;
        let v = match answer {
            Ok(v) => v,
            Err(AdminError::Api { status, message, .. }) => {
                let message = match status {
                    401 => "wrong name or password, or the account is disabled \
                            (BACCARAT_ADMIN_USER, BACCARAT_ADMIN_PASSWORD)"
                        .to_string(),
                    _ => message,
                };
                return Err(AdminError::SignIn { name: name.to_string(), message });
            }
            Err(e) => return Err(e),
        };
        c.token = v["token"].as_str().unwrap_or_default().to_string();
        if c.token.is_empty() {
            let message = format!("the answer has no token: {v}");
            return Err(AdminError::SignIn { name: name.to_string(), message });
        }
        Ok(c)
    }

    /// Send `body` (JSON, or none) to `path` (with its query) and read the
    /// answer: JSON as it came, or a text body (a CSV report) as a JSON
    /// string. A refusal is [`AdminError::Api`]; a 429 is waited out and sent
    /// again (it was not taken), [`TRIES`] times at most.
    pub async fn call(&self, method: Method, path: &str, body: Option<Value>) -> Result<Value, AdminError> {
        self.send(method, path, body.as_ref()).await
    }

    /// End the session (a CLI's session should not outlive its command);
    /// a failure here changes nothing the command did, so it is not reported.
    pub async fn sign_out(self) {
        let _ = self.http.post(format!("{}/api/logout", self.base)).bearer_auth(&self.token).send().await;
    }

    async fn send(&self, method: Method, path: &str, body: Option<&Value>) -> Result<Value, AdminError> {
        let url = format!("{}{path}", self.base);
        let mut tries = 0;
        loop {
            tries += 1;
            let mut req = self.http.request(method.clone(), &url);
            if !self.token.is_empty() {
                req = req.bearer_auth(&self.token);
            }
            if let Some(b) = body {
                req = req.json(b);
            }
            let r = req.send().await.map_err(|e| transport(&url, e))?;
            let status = r.status();
            let text = r.text().await.map_err(|e| transport(&url, e))?;
            match answer(status, &text) {
                Err(AdminError::Api { status: 429, .. }) if tries < TRIES && path != "/api/login" => {
                    let wait = retry_after(&text).min(MAX_WAIT_MS);
                    tokio::time::sleep(Duration::from_millis(wait)).await;
                }
                a => return a,
            }
        }
    }
}

/// The URL's base: `http://` (this build speaks no TLS: run it on the
/// server's host, or through a tunnel), no trailing slash.
fn base_url(url: &str) -> Result<String, AdminError> {
    let why = |why: &str| AdminError::Url { url: url.to_string(), why: why.to_string() };
    if url.starts_with("https://") {
        return Err(why("https:// is not supported by this build: use the server's http:// address (on its host, or through an SSH tunnel)"));
    }
    let Some(rest) = url.strip_prefix("http://") else {
        return Err(why("--url: an http:// URL, e.g. http://127.0.0.1:8080"));
    };
    if rest.trim_end_matches('/').is_empty() || rest.contains(['?', '#', ' ']) {
        return Err(why("--url: a server's address, e.g. http://127.0.0.1:8080"));
    }
    Ok(url.trim_end_matches('/').to_string())
}

fn transport(url: &str, e: reqwest::Error) -> AdminError {
    if e.is_timeout() {
        AdminError::TimedOut { url: url.to_string(), secs: ANSWER.as_secs() }
    } else {
        AdminError::Unreachable { url: url.to_string(), source: e }
    }
}

/// The answer's body read: JSON on success, the API's refusal otherwise.
fn answer(status: StatusCode, text: &str) -> Result<Value, AdminError> {
    let parsed = serde_json::from_str::<Value>(text);
    if status.is_success() {
        return Ok(parsed.unwrap_or_else(|_| Value::String(text.to_string())));
    }
    let v =
        parsed.map_err(|_| AdminError::NotJson { status: status.as_u16(), start: text.chars().take(200).collect() })?;
    // `{"error": words, "code": kind}` (`http/error.rs`); read either way
    // round, as the contract once wrote it.
    let words = |k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let (message, code) = match (words("message"), words("code")) {
        (Some(m), _) => (m, words("error").unwrap_or_default()),
        (None, code) => (words("error").unwrap_or_else(|| v.to_string()), code.unwrap_or_default()),
    };
    Err(AdminError::Api { status: status.as_u16(), code, message })
}

/// The wait a 429 asks for, in ms.
fn retry_after(text: &str) -> u64 {
    serde_json::from_str::<Value>(text).ok().and_then(|v| v["retry_after_ms"].as_u64()).unwrap_or(100).max(1)
}

/// `text` as a URL's query value: unreserved bytes as they are, the rest
/// percent-encoded.
pub fn encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for b in text.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// `path` with the query `pairs` (their values encoded); pairs without a
/// value are left out.
pub fn with_query(path: &str, pairs: &[(&str, Option<String>)]) -> String {
    let q: Vec<String> = pairs.iter().filter_map(|(k, v)| v.as_ref().map(|v| format!("{k}={}", encode(v)))).collect();
    if q.is_empty() {
        path.to_string()
    } else {
        format!("{path}?{}", q.join("&"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_apis_refusal_is_read_with_its_words_and_kind() {
        let e = answer(StatusCode::NOT_FOUND, r#"{"error":"no player 9","code":"no_player"}"#).unwrap_err();
        assert_eq!(e.to_string(), "no player 9 (404 no_player)");
        let e = answer(StatusCode::CONFLICT, r#"{"error":"taken","message":"name \"bo\" is taken"}"#).unwrap_err();
        assert_eq!(e.to_string(), "name \"bo\" is taken (409 taken)");
        assert!(matches!(answer(StatusCode::BAD_GATEWAY, "<html>"), Err(AdminError::NotJson { status: 502, .. })));
    }

    #[test]
    fn a_text_answer_is_kept_as_text() {
        assert_eq!(answer(StatusCode::OK, "date,table\n").unwrap(), Value::String("date,table\n".into()));
        assert_eq!(answer(StatusCode::OK, r#"{"id":7}"#).unwrap(), json!({"id": 7}));
    }

    #[test]
    fn only_a_plain_http_url_is_taken() {
        assert_eq!(base_url("http://127.0.0.1:8080/").unwrap(), "http://127.0.0.1:8080");
        assert!(base_url("https://casino.example").unwrap_err().to_string().contains("https://"));
        for bad in ["127.0.0.1:8080", "http://", "http:///", "http://h/?x=1", "ftp://h"] {
            assert!(base_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn query_values_are_percent_encoded() {
        assert_eq!(encode("a b&c=d/é"), "a%20b%26c%3Dd%2F%C3%A9");
        let p = with_query("/api/users", &[("role", Some("dealer".into())), ("q", None), ("after", Some("7".into()))]);
        assert_eq!(p, "/api/users?role=dealer&after=7");
        assert_eq!(with_query("/api/users", &[("q", None)]), "/api/users");
    }

    #[test]
    fn a_429s_wait_is_read_from_its_body() {
        assert_eq!(retry_after(r#"{"retry_after_ms":250}"#), 250);
        assert_eq!(retry_after("nonsense"), 100);
    }
}
