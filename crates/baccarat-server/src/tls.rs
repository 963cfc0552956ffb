//! HTTPS in the server itself (issue 48): `--tls-cert FILE --tls-key FILE`.
//!
//! # Why, and what
//!
//! A casino on one machine need not run a proxy only to speak TLS. With
//! both files given, the server's port speaks HTTPS and nothing else (a
//! plain-HTTP request on it fails its handshake); every request on it is
//! marked as come over https ([`crate::proxy::ViaHttps`]), so the session
//! cookie carries `Secure`, and a page's WebSocket origin is `https://`
//! and the host it asked (`http/origin.rs`).
//!
//! The files are PEM: the certificate chain (the server's own certificate
//! first, then any intermediates), and its private key (PKCS#8, PKCS#1 or
//! SEC1). Both are read once, when the server starts, and checked before
//! anything else is opened: a file missing or unreadable, one that holds no
//! PEM of its kind, or a key that is not the certificate's, refuses the
//! start naming the setting and the file ([`TlsError`]). A renewed
//! certificate takes effect at the next start (a clean stop writes a
//! checkpoint, so the start reads almost nothing).
//!
//! The crypto is rustls's with the ring provider, chosen here for this
//! server's config alone (no process-wide default is installed, which a
//! library should not do). HTTP/1.1 only (ALPN `http/1.1`): a table's
//! WebSocket is an HTTP/1.1 upgrade.
//!
//! Several servers of a cluster each have their own certificate, for the
//! names they are reached by, and advertise `https://` (the default with
//! TLS; an `http://` advertised URL is refused, as no plain HTTP is
//! served). A standby or another partition's server does not pass a
//! request on to an `https://` holder; it answers `307` to the holder's URL
//! (`forward.rs`), whose certificate the client checks itself.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The two files of `--tls-cert` and `--tls-key`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TlsFiles {
    /// The certificate chain, PEM, the server's own first.
    pub cert: PathBuf,
    /// Its private key, PEM.
    pub key: PathBuf,
}

/// Why the TLS files refuse a start: each names the setting and the file.
#[derive(Debug, thiserror::Error)]
pub enum TlsError {
    #[error("{setting}: cannot read {}: {source}", .path.display())]
    Unreadable {
        setting: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("tls_cert: {} holds no PEM certificate (-----BEGIN CERTIFICATE-----){}", .0.display(), .1)]
    NoCertificate(PathBuf, String),
    #[error("tls_key: {} holds no PEM private key (-----BEGIN PRIVATE KEY-----, RSA or EC){}", .0.display(), .1)]
    NoKey(PathBuf, String),
    #[error("tls_key: the key in {} is not the key of the certificate in {}", .key.display(), .cert.display())]
    Mismatch { cert: PathBuf, key: PathBuf },
    #[error("tls_key: {} with {} is not usable: {why}", .key.display(), .cert.display())]
    Unusable { cert: PathBuf, key: PathBuf, why: String },
    /// An advertised URL the server could not be reached at: with TLS it
    /// speaks only https.
    #[error("advertise: {0:?}: with tls_cert the server speaks only https; advertise an https:// URL")]
    PlainAdvertised(String),
}

/// The server's rustls config from `files`, checked (see the module's
/// notes): its certificates, its key, and that the key is the first
/// certificate's.
pub fn server_config(files: &TlsFiles) -> Result<Arc<rustls::ServerConfig>, TlsError> {
    let certs = certificates(&files.cert)?;
    let key = private_key(&files.key)?;
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let builder = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| unusable(files, e))?
        .with_no_client_auth();
    let mut config = builder.with_single_cert(certs, key).map_err(|e| match e {
        rustls::Error::InconsistentKeys(rustls::InconsistentKeys::KeyMismatch) => {
            TlsError::Mismatch { cert: files.cert.clone(), key: files.key.clone() }
        }
        other => unusable(files, other),
    })?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(Arc::new(config))
}

/// As [`server_config`], for the server's listener.
pub fn acceptor_config(files: &TlsFiles) -> Result<axum_server::tls_rustls::RustlsConfig, TlsError> {
    Ok(axum_server::tls_rustls::RustlsConfig::from_config(server_config(files)?))
}

/// The URL the server advertises with TLS: `https://` and the address it
/// listens on if none was given; one given must be `https://`.
pub fn advertised(given: Option<&str>, addr: std::net::SocketAddr) -> Result<String, TlsError> {
    match given {
        None => Ok(format!("https://{addr}")),
        Some(url) if url.starts_with("https://") => Ok(url.to_string()),
        Some(url) => Err(TlsError::PlainAdvertised(url.to_string())),
    }
}

fn unusable(files: &TlsFiles, e: impl std::fmt::Display) -> TlsError {
    TlsError::Unusable { cert: files.cert.clone(), key: files.key.clone(), why: e.to_string() }
}

fn read(setting: &'static str, path: &Path) -> Result<Vec<u8>, TlsError> {
    std::fs::read(path).map_err(|source| TlsError::Unreadable { setting, path: path.to_path_buf(), source })
}

/// Every certificate of the PEM file at `path`, in order; at least one.
fn certificates(path: &Path) -> Result<Vec<CertificateDer<'static>>, TlsError> {
    let pem = read("tls_cert", path)?;
    let certs: Result<Vec<_>, _> = CertificateDer::pem_slice_iter(&pem).collect();
    match certs {
        Ok(c) if !c.is_empty() => Ok(c),
        Ok(_) => Err(TlsError::NoCertificate(path.to_path_buf(), String::new())),
        Err(e) => Err(TlsError::NoCertificate(path.to_path_buf(), format!(": {e}"))),
    }
}

/// The first private key of the PEM file at `path`.
fn private_key(path: &Path) -> Result<PrivateKeyDer<'static>, TlsError> {
    let pem = read("tls_key", path)?;
    PrivateKeyDer::from_pem_slice(&pem).map_err(|e| {
        let why = match e {
            rustls::pki_types::pem::Error::NoItemsFound => String::new(),
            other => format!(": {other}"),
        };
        TlsError::NoKey(path.to_path_buf(), why)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh self-signed certificate for `localhost`, and its key, written
    /// to `dir` (cert.pem, key.pem).
    fn pair(dir: &Path, prefix: &str) -> TlsFiles {
        let made = rcgen::generate_simple_self_signed(vec!["localhost".to_string()]).unwrap();
        let files = TlsFiles { cert: dir.join(format!("{prefix}cert.pem")), key: dir.join(format!("{prefix}key.pem")) };
        std::fs::write(&files.cert, made.cert.pem()).unwrap();
        std::fs::write(&files.key, made.signing_key.serialize_pem()).unwrap();
        files
    }

    fn dir(test: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("baccarat-tls-{}-{test}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    fn refused(files: &TlsFiles) -> String {
        server_config(files).map(|_| ()).unwrap_err().to_string()
    }

    /// A matching pair is taken; each bad input is refused naming the
    /// setting and the file.
    #[test]
    fn each_bad_file_is_refused_naming_its_setting() {
        let d = dir("refusals");
        let good = pair(&d, "");
        let other = pair(&d, "other-");
        assert!(server_config(&good).is_ok());
        let missing = TlsFiles { cert: d.join("none.pem"), ..good.clone() };
        let e = refused(&missing);
        assert!(e.starts_with("tls_cert: cannot read ") && e.contains("none.pem"), "{e}");
        let e = refused(&TlsFiles { key: d.join("none.pem"), ..good.clone() });
        assert!(e.starts_with("tls_key: cannot read "), "{e}");
        std::fs::write(d.join("junk.pem"), "not a certificate\n").unwrap();
        let e = refused(&TlsFiles { cert: d.join("junk.pem"), ..good.clone() });
        assert!(e.starts_with("tls_cert: ") && e.contains("junk.pem") && e.contains("no PEM certificate"), "{e}");
        let e = refused(&TlsFiles { key: d.join("junk.pem"), ..good.clone() });
        assert!(e.starts_with("tls_key: ") && e.contains("no PEM private key"), "{e}");
        // The files swapped: the certificate file holds no key, and so on.
        let e = refused(&TlsFiles { cert: good.key.clone(), key: good.cert.clone() });
        assert!(e.starts_with("tls_cert: "), "{e}");
        // A broken PEM section (no END line).
        let cut = std::fs::read_to_string(&good.cert).unwrap();
        std::fs::write(d.join("cut.pem"), &cut[..cut.len() / 2]).unwrap();
        let e = refused(&TlsFiles { cert: d.join("cut.pem"), ..good.clone() });
        assert!(e.starts_with("tls_cert: ") && e.contains("cut.pem"), "{e}");
        // Another certificate's key.
        let e = refused(&TlsFiles { key: other.key.clone(), ..good.clone() });
        assert!(e.starts_with("tls_key: the key in ") && e.contains("is not the key of the certificate"), "{e}");
        let _ = std::fs::remove_dir_all(d);
    }

    #[test]
    fn with_tls_the_server_advertises_https() {
        let addr = "127.0.0.1:8443".parse().unwrap();
        assert_eq!(advertised(None, addr).unwrap(), "https://127.0.0.1:8443");
        assert_eq!(advertised(Some("https://casino.example"), addr).unwrap(), "https://casino.example");
        let e = advertised(Some("http://casino.example"), addr).unwrap_err().to_string();
        assert!(e.starts_with("advertise: ") && e.contains("https://"), "{e}");
    }
}
