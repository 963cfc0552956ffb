//! A fresh database's first start: the casino founded (issue 47).
//!
//! By default an empty casino: one admin (`first_admin.rs`) and nothing
//! else, for its staff to set up (people, tables, the cage: the back office
//! or `baccarat admin`). The demo (`serve --demo`, `demo.rs`) adds a table
//! per rulebook, staff and players holding play chips. Either way the
//! casino's chain begins with [`CasinoEvent::Founded`], so that an empty
//! casino is found as a casino on its next start and everyone can tell a
//! demo from a real casino (`loadgen` refuses the latter).
//!
//! [`CasinoEvent::Founded`]: crate::audit::CasinoEvent::Founded

use std::sync::Arc;

use crate::audit::Founding;
use crate::auth::{Role, Users};
use crate::casino::Casino;
use crate::first_admin::{first_password, FirstPassword, ADMIN_NAME};
use crate::ledger::keys::ColdKeys;
use crate::serve_config::ServeConfig;
use crate::serve_error::ServeError;
use crate::store::Commit;

/// The casino founded, written into `commit`; the first admin's password if
/// this server made the people (none if another server of the casino had).
pub fn casino(
    cfg: &ServeConfig,
    users: &Users,
    keys: Arc<dyn ColdKeys>,
    lease: Option<&crate::pg_store::Lease>,
    commit: &mut Commit,
) -> Result<(Casino, Option<FirstPassword>), ServeError> {
    let mut c = Casino::new();
    c.ceiling = cfg.ceiling;
    c.clock = cfg.clock.clone();
    c.ledger.set_retention(cfg.key_retention.as_millis() as u64);
    c.ledger.keys.set_cold(keys, crate::ledger::keys::DEFAULT_HOT_MS);
    c.founded(cfg.founding, ADMIN_NAME, commit);
    let demo = cfg.founding == Founding::Demo;
    if demo {
        crate::demo::tables(&mut c, commit)?;
    }
    let admin = first_admin(cfg, users)?;
    if demo && admin.is_some() {
        crate::demo::staff(cfg, users)?;
    }
    // (Connecting migrates the bank's schema, which the commit below
    // writes to.)
    if let (Some(p), Some(url)) = (&cfg.partition, &cfg.postgres) {
        c.set_partition(p);
        crate::pg_store::bank::Bank::connect(url).map_err(ServeError::Bank)?;
    }
    if demo && admin.is_some() {
        crate::demo::players(cfg, users, &mut c, commit)?;
    }
    if let Some(l) = lease {
        c.served(&cfg.instance, l.epoch, commit);
    }
    Ok((c, admin))
}

/// The first admin, made with the operator's password or one written to a
/// file; none if the casino's people exist already.
///
/// A partition's people are the casino's, made by whichever of its servers
/// starts first. Two partitions' servers starting at once on a new casino
/// (or one process standing by for another partition: `standby_for.rs`)
/// both find no people: the one whose admin is made second leaves them to
/// the first, and its password file is removed.
fn first_admin(cfg: &ServeConfig, users: &Users) -> Result<Option<FirstPassword>, ServeError> {
    if users.count()? != 0 {
        return Ok(None);
    }
    let password = first_password(cfg.admin_password.as_ref(), &cfg.db)?;
    match users.create(ADMIN_NAME, Role::Admin, password.secret()) {
        Ok(_) => Ok(Some(password)),
        Err(crate::auth::AuthError::Taken(_)) => {
            password.discard();
            Ok(None)
        }
        Err(e) => {
            password.discard();
            Err(e.into())
        }
    }
}
