//! The `--config` file: its settings, each optional, and how a setting's
//! stated range is checked.

use std::path::PathBuf;

use anyhow::{bail, Context, Result};

use super::ServeArgs;

/// The `--config` file.
#[derive(Default, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FileSettings {
    pub(super) db: Option<PathBuf>,
    pub(super) demo: Option<bool>,
    pub(super) admin_password_file: Option<PathBuf>,
    pub(super) addr: Option<String>,
    pub(super) betting_seconds: Option<u64>,
    pub(super) deal_ms: Option<u64>,
    pub(super) squeeze_seconds: Option<u64>,
    pub(super) result_ms: Option<u64>,
    pub(super) rate: Option<u32>,
    pub(super) web_dir: Option<PathBuf>,
    pub(super) anchor_file: Option<PathBuf>,
    pub(super) key_file: Option<PathBuf>,
    pub(super) ceiling: Option<i64>,
    pub(super) session_idle_seconds: Option<u64>,
    pub(super) session_max_seconds: Option<u64>,
    pub(super) key_retention_hours: Option<u64>,
    pub(super) instance: Option<String>,
    pub(super) advertise: Option<String>,
    pub(super) allowed_origins: Option<Vec<String>>,
    pub(super) trusted_proxies: Option<Vec<String>>,
    pub(super) tls_cert: Option<PathBuf>,
    pub(super) tls_key: Option<PathBuf>,
    pub(super) metrics_from: Option<Vec<String>>,
    pub(super) exposure_alert: Option<Vec<String>>,
    pub(super) lease_ms: Option<u64>,
    pub(super) anchor_every_ms: Option<u64>,
    pub(super) partition: Option<String>,
    pub(super) standby_for: Option<Vec<String>>,
    pub(super) log_format: Option<crate::cmd::logging::LogFormat>,
    pub(super) log_level: Option<String>,
}

pub(super) fn in_range(name: &str, v: u64, lo: u64, hi: u64) -> Result<u64> {
    if !(lo..=hi).contains(&v) {
        bail!("{name}: {v} is outside {lo} to {hi}");
    }
    Ok(v)
}

/// The `--config` file's settings, or none.
pub(super) fn file_settings(a: &ServeArgs) -> Result<FileSettings> {
    Ok(match &a.config {
        Some(p) => {
            let text = std::fs::read_to_string(p).with_context(|| format!("--config: cannot read {}", p.display()))?;
            toml::from_str::<FileSettings>(&text)
                .map_err(|e| anyhow::anyhow!("--config {}: {}", p.display(), e.message()))?
        }
        None => FileSettings::default(),
    })
}
