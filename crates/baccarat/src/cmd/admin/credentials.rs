//! Passwords for `baccarat admin`: from the environment, else typed at the
//! terminal without echo; never from a flag, where `ps` and the shell's
//! history would keep them.
//!
//! The rulebooks are silent on back-office credentials; these are the
//! usual habits of an operator's tools.

use std::io::IsTerminal;

use anyhow::{bail, Result};

/// Who signs in, from `BACCARAT_ADMIN_USER` (default `admin`).
pub const USER_VAR: &str = "BACCARAT_ADMIN_USER";
/// Their password, from `BACCARAT_ADMIN_PASSWORD`, else the terminal.
pub const PASSWORD_VAR: &str = "BACCARAT_ADMIN_PASSWORD";
/// A new user's (or a reset) password, from `BACCARAT_NEW_PASSWORD`, else
/// typed twice at the terminal.
pub const NEW_PASSWORD_VAR: &str = "BACCARAT_NEW_PASSWORD";

/// Where a password is read when the environment has none.
pub trait Prompt {
    /// Read one line without echo, after showing `prompt`; `var` is the
    /// variable that would have given it (for the words of a refusal).
    fn read(&mut self, prompt: &str, var: &str) -> Result<String>;
}

/// The terminal: refused when standard input is not one (a script, a pipe),
/// with the variable to set instead, so a script never hangs on a prompt.
pub struct Terminal;

impl Prompt for Terminal {
    fn read(&mut self, prompt: &str, var: &str) -> Result<String> {
        if !std::io::stdin().is_terminal() {
            bail!("no terminal to type the password at: set {var}");
        }
        Ok(rpassword::prompt_password(prompt)?)
    }
}

/// The signing-in admin's name and password. A variable that is set but
/// empty is refused rather than taken as "ask me": an empty password is
/// never right, and a blank variable is usually a mistake in a script.
pub fn admin(env: &dyn Fn(&str) -> Option<String>, prompt: &mut dyn Prompt) -> Result<(String, String)> {
    let name = match env(USER_VAR) {
        Some(n) if n.is_empty() => bail!("{USER_VAR} is set but empty"),
        Some(n) => n,
        None => "admin".to_string(),
    };
    let password = match env(PASSWORD_VAR) {
        Some(p) if p.is_empty() => bail!("{PASSWORD_VAR} is set but empty"),
        Some(p) => p,
        None => prompt.read(&format!("password of {name}: "), PASSWORD_VAR)?,
    };
    Ok((name, password))
}

/// A new password for `whom`: from the environment, else typed twice (a
/// typing slip would lock the person out). Its length is the server's to
/// judge (4 characters to 128 bytes), so the words stay in one place.
pub fn new_password(whom: &str, env: &dyn Fn(&str) -> Option<String>, prompt: &mut dyn Prompt) -> Result<String> {
    match env(NEW_PASSWORD_VAR) {
        Some(p) if p.is_empty() => bail!("{NEW_PASSWORD_VAR} is set but empty"),
        Some(p) => Ok(p),
        None => {
            let first = prompt.read(&format!("new password for {whom}: "), NEW_PASSWORD_VAR)?;
            let again = prompt.read(&format!("new password for {whom}, again: "), NEW_PASSWORD_VAR)?;
            if first != again {
                bail!("the two passwords differ; nothing was changed");
            }
            Ok(first)
        }
    }
}

/// The process's environment.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Answers in turn; refuses once out of them (as no terminal does).
    struct Typed(Vec<&'static str>);

    impl Prompt for Typed {
        fn read(&mut self, _: &str, _: &str) -> Result<String> {
            match self.0.is_empty() {
                true => bail!("no terminal"),
                false => Ok(self.0.remove(0).to_string()),
            }
        }
    }

    fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |k| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.to_string())
    }

    #[test]
    fn the_environment_comes_first_and_admin_is_the_default_name() {
        let env = env_of(&[(PASSWORD_VAR, "s3cret")]);
        assert_eq!(admin(&env, &mut Typed(vec![])).unwrap(), ("admin".into(), "s3cret".into()));
        let env = env_of(&[(USER_VAR, "manager"), (PASSWORD_VAR, "pw12")]);
        assert_eq!(admin(&env, &mut Typed(vec![])).unwrap(), ("manager".into(), "pw12".into()));
    }

    #[test]
    fn without_the_variable_the_password_is_typed() {
        assert_eq!(admin(&env_of(&[]), &mut Typed(vec!["typed"])).unwrap().1, "typed");
        assert!(admin(&env_of(&[]), &mut Typed(vec![])).is_err(), "no terminal, no password");
    }

    #[test]
    fn an_empty_variable_is_refused_not_taken_as_a_password() {
        let e = admin(&env_of(&[(PASSWORD_VAR, "")]), &mut Typed(vec!["x"])).unwrap_err();
        assert!(e.to_string().contains("set but empty"), "{e}");
        assert!(admin(&env_of(&[(USER_VAR, "")]), &mut Typed(vec!["x"])).is_err());
        assert!(new_password("bo", &env_of(&[(NEW_PASSWORD_VAR, "")]), &mut Typed(vec![])).is_err());
    }

    #[test]
    fn a_new_password_typed_must_be_typed_the_same_twice() {
        assert_eq!(new_password("bo", &env_of(&[]), &mut Typed(vec!["abcd", "abcd"])).unwrap(), "abcd");
        let e = new_password("bo", &env_of(&[]), &mut Typed(vec!["abcd", "abce"])).unwrap_err();
        assert!(e.to_string().contains("differ"), "{e}");
        let env = env_of(&[(NEW_PASSWORD_VAR, "fromenv")]);
        assert_eq!(new_password("bo", &env, &mut Typed(vec![])).unwrap(), "fromenv");
    }
}
