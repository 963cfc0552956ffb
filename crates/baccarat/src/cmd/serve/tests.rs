//! `serve`'s settings: precedence, ranges and refusals.

use super::plan::{set_founding, MAX_ANCHOR_EVERY_MS};
use super::*;
use baccarat_server::serve::ServeConfig;

fn settings(a: ServeArgs) -> Result<ServeConfig> {
    Ok(plan(a)?.0)
}

/// `--standby-for`: beside a partition of its own, each other partition
/// named once, with an anchor file of its own (`{partition}`); the key
/// may be shared. Each partition's URL, files and name are its own.
#[test]
fn a_server_stands_by_for_other_partitions_with_files_of_their_own() {
    let url = "postgres://u@localhost/casino";
    let with = |partition: Option<&str>, anchors: Option<&str>, standby: &[&str]| ServeArgs {
        db: Some(PathBuf::from(url)),
        partition: partition.map(str::to_string),
        anchor_file: anchors.map(PathBuf::from),
        key_file: Some(PathBuf::from("/shared/casino.key")),
        standby_for: standby.iter().map(|s| s.to_string()).collect(),
        ..args(None)
    };
    let (own, others) = plan(with(Some("west"), Some("/shared/{partition}.anchors"), &["east", "north"])).unwrap();
    assert_eq!(own.anchor_file, Some(PathBuf::from("/shared/west.anchors")));
    let got: Vec<_> = others
        .iter()
        .map(|c| (c.partition.clone().unwrap(), c.anchor_file.clone().unwrap(), c.key_file.clone().unwrap()))
        .collect();
    assert_eq!(
        got,
        [
            ("east".into(), PathBuf::from("/shared/east.anchors"), PathBuf::from("/shared/casino.key")),
            ("north".into(), PathBuf::from("/shared/north.anchors"), PathBuf::from("/shared/casino.key")),
        ]
    );
    assert_eq!(others[0].postgres, Some(baccarat_cluster::pg_store::partition_url(url, "east").unwrap()));
    assert_eq!((others[0].instance.as_str(), others[0].lease), (own.instance.as_str(), own.lease));
    // By default each partition's files are its own already.
    let (_, others) = plan(ServeArgs { key_file: None, ..with(Some("west"), None, &["east"]) }).unwrap();
    assert_eq!(others[0].anchor_paths().0, PathBuf::from("baccarat-postgres-east.anchors"));

    let refused = |a: ServeArgs| plan(a).unwrap_err().to_string();
    assert!(refused(with(None, None, &["east"])).starts_with("standby_for: a server stands by"));
    assert!(refused(with(Some("west"), Some("/shared/a.anchors"), &["east"])).starts_with("anchor_file:"));
    assert!(refused(with(Some("west"), None, &["west"])).contains("named twice, or is this server's own"));
    assert!(refused(with(Some("west"), None, &["east", "east"])).contains("named twice"));
    assert!(refused(with(Some("west"), None, &["East"])).starts_with("standby_for: partition \"East\""));
    // A port of its own for each, on --addr's IP; else the system's pick.
    let at = |standby: &[&str]| {
        let a = ServeArgs { addr: Some("10.0.0.2:8081".parse().unwrap()), ..with(Some("west"), None, standby) };
        plan(a).map(|(_, o)| o.iter().map(|c| c.addr.to_string()).collect::<Vec<_>>())
    };
    assert_eq!(at(&["east:8082", "north"]).unwrap(), ["10.0.0.2:8082", "10.0.0.2:0"]);
    for (bad, why) in [
        (&["east:0"][..], "must be 1 to 65535"),
        (&["east:x"], "must be 1 to 65535"),
        (&["east:70000"], "must be 1 to 65535"),
        (&["east:8081"], "port 8081 is given twice, or is --addr's own"),
        (&["east:8082", "north:8082"], "port 8082 is given twice"),
    ] {
        let e = at(bad).unwrap_err().to_string();
        assert!(e.starts_with("standby_for:") && e.contains(why), "{bad:?}: {e}");
    }
    let f = file("standby", &format!("db = \"{url}\"\npartition = \"west\"\nstandby_for = [\"east\"]\n"));
    assert_eq!(plan(args(Some(f.clone()))).unwrap().1[0].partition.as_deref(), Some("east"));
    let _ = std::fs::remove_file(f);
}

fn args(config: Option<PathBuf>) -> ServeArgs {
    ServeArgs {
        config,
        db: None,
        demo: false,
        admin_password_file: None,
        addr: None,
        betting_seconds: None,
        deal_ms: None,
        squeeze_seconds: None,
        result_ms: None,
        rate: None,
        web_dir: None,
        anchor_file: None,
        key_file: None,
        ceiling: None,
        session_idle_seconds: None,
        session_max_seconds: None,
        key_retention_hours: None,
        instance: None,
        advertise: None,
        allowed_origins: Vec::new(),
        trusted_proxies: Vec::new(),
        tls_cert: None,
        tls_key: None,
        metrics_from: Vec::new(),
        exposure_alert: Vec::new(),
        lease_ms: None,
        anchor_every_ms: None,
        new_anchor_file: false,
        print_config: false,
        config_reference: false,
        partition: None,
        standby_for: Vec::new(),
        log_format: None,
        log_level: None,
    }
}

/// A new casino is empty unless `--demo` (or `demo = true`) says the
/// demo; its first admin's password comes from one place, never two.
#[test]
fn a_new_casino_is_empty_unless_the_demo_is_asked_for() {
    use baccarat_core::audit::Founding;
    let plain = |a: ServeArgs| {
        let file = file_settings(&a).unwrap();
        let mut cfg = ServeConfig::new("x.db".into(), "127.0.0.1:0".parse().unwrap());
        set_founding(&mut cfg, &a, &file, None).map(|_| cfg)
    };
    assert_eq!(plain(args(None)).unwrap().founding, Founding::Empty);
    assert_eq!(plain(ServeArgs { demo: true, ..args(None) }).unwrap().founding, Founding::Demo);
    let f = file("demo", "demo = true\nadmin_password_file = \"/etc/baccarat/admin\"\n");
    let cfg = plain(args(Some(f.clone()))).unwrap();
    assert_eq!(cfg.founding, Founding::Demo);
    assert_eq!(cfg.admin_password.unwrap().from(), "--admin-password-file /etc/baccarat/admin");
    let mut cfg = ServeConfig::new("x.db".into(), "127.0.0.1:0".parse().unwrap());
    let a = args(Some(f.clone()));
    let both = set_founding(&mut cfg, &a, &file_settings(&a).unwrap(), Some("from-the-env-123".into()));
    assert!(both.unwrap_err().to_string().starts_with("admin_password_file: "));
    let a = args(None);
    set_founding(&mut cfg, &a, &file_settings(&a).unwrap(), Some("from-the-env-123".into())).unwrap();
    assert_eq!(cfg.admin_password.unwrap().from(), "BACCARAT_ADMIN_PASSWORD");
    std::fs::remove_file(f).unwrap();
}

/// TLS takes both files, from the flags or the file, or neither; one
/// alone is refused naming the other.
#[test]
fn tls_takes_a_certificate_and_its_key_or_neither() {
    assert_eq!(settings(args(None)).unwrap().tls, None, "plain HTTP by default");
    let f = file("tls", "tls_cert = \"/etc/baccarat/cert.pem\"\ntls_key = \"/etc/baccarat/key.pem\"\n");
    let tls = settings(args(Some(f.clone()))).unwrap().tls.unwrap();
    assert_eq!((tls.cert.to_str(), tls.key.to_str()), (Some("/etc/baccarat/cert.pem"), Some("/etc/baccarat/key.pem")));
    let a = ServeArgs { tls_cert: Some("/c.pem".into()), ..args(Some(f.clone())) };
    assert_eq!(settings(a).unwrap().tls.unwrap().cert, PathBuf::from("/c.pem"), "the flag wins");
    let e = settings(ServeArgs { tls_cert: Some("/c.pem".into()), ..args(None) }).unwrap_err().to_string();
    assert!(e.starts_with("tls_key: "), "{e}");
    let e = settings(ServeArgs { tls_key: Some("/k.pem".into()), ..args(None) }).unwrap_err().to_string();
    assert!(e.starts_with("tls_cert: "), "{e}");
    let _ = std::fs::remove_file(f);
}

/// The production example that ships beside the service unit
/// (`packaging/`) is a settings file `serve` takes as it is.
#[test]
fn the_packaged_example_settings_are_taken() {
    let f = file("packaged", include_str!("../../../../../packaging/baccarat.toml.example"));
    let cfg = settings(args(Some(f.clone()))).unwrap();
    assert_eq!(cfg.db, PathBuf::from("/var/lib/baccarat/casino.db"));
    assert_eq!(cfg.instance, "tables-1");
    assert_eq!(cfg.allowed_origins, ["https://tables.example-casino.com"]);
    std::fs::remove_file(f).unwrap();
}

/// A settings file in the temp dir; the test removes it once it has passed.
fn file(name: &str, text: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("baccarat-serve-{}-{name}.toml", std::process::id()));
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn defaults_then_the_file_then_flags() {
    let d = settings(args(None)).unwrap();
    assert_eq!((d.db, d.addr.to_string()), (PathBuf::from("baccarat.db"), "127.0.0.1:8080".to_string()));
    assert_eq!((d.betting.as_secs(), d.deal.as_millis(), d.rate_per_second), (15, 700, 200));
    let f = file("ok", "db = \"casino.db\"\naddr = \"127.0.0.1:9000\"\nbetting_seconds = 7\nrate = 9\n");
    let from_file = settings(args(Some(f.clone()))).unwrap();
    assert_eq!(from_file.db, PathBuf::from("casino.db"));
    assert_eq!(from_file.addr.to_string(), "127.0.0.1:9000");
    assert_eq!((from_file.betting.as_secs(), from_file.rate_per_second), (7, 9));
    // A flag (or its environment variable, which clap puts in the same field) wins.
    let mut a = args(Some(f.clone()));
    a.betting_seconds = Some(3);
    a.db = Some(PathBuf::from("other.db"));
    let flagged = settings(a).unwrap();
    assert_eq!((flagged.betting.as_secs(), flagged.db), (3, PathBuf::from("other.db")));
    assert_eq!(flagged.rate_per_second, 9, "what the flags leave comes from the file");
    let _ = std::fs::remove_file(f);
}

/// A partition is of a PostgreSQL casino: its URL puts its schema first,
/// its anchor and key files are its own; a bad name or a SQLite file is
/// refused, naming the setting.
#[test]
fn a_partition_of_a_postgresql_casino_and_nothing_else() {
    let url = "postgres://u@h/casino";
    let a = ServeArgs { db: Some(PathBuf::from(url)), partition: Some("east".into()), ..args(None) };
    let c = settings(a).unwrap();
    assert_eq!(c.partition.as_deref(), Some("east"));
    assert_eq!(
        c.postgres.as_deref(),
        Some("postgres://u@h/casino?options=-c%20search_path%3Dbaccarat_p_east%2Cpublic")
    );
    assert_eq!(c.anchor_paths().0, PathBuf::from("baccarat-postgres-east.anchors"));
    let f = file("partition", &format!("db = \"{url}\"\npartition = \"west\"\n"));
    assert_eq!(settings(args(Some(f.clone()))).unwrap().partition.as_deref(), Some("west"));
    let _ = std::fs::remove_file(f);
    let a = ServeArgs { db: Some(PathBuf::from(url)), partition: Some("East".into()), ..args(None) };
    assert!(settings(a).unwrap_err().to_string().starts_with("partition \"East\""));
    let a = ServeArgs { partition: Some("east".into()), ..args(None) };
    assert!(settings(a).unwrap_err().to_string().starts_with("partition: a partition is of a PostgreSQL casino"));
}

/// Issue 45, finding 7: the origins a cookie WebSocket may also come
/// from, from the flag (or its variable) or the file, written one way;
/// anything that is not an origin is refused, naming the setting.
#[test]
fn allowed_origins_from_the_flag_or_the_file_and_refused_when_not_an_origin() {
    assert!(settings(args(None)).unwrap().allowed_origins.is_empty(), "none by default");
    let f = file("origins", "allowed_origins = [\"https://Casino.Example:443\", \"http://casino.lan:8080\"]\n");
    let from_file = settings(args(Some(f.clone()))).unwrap();
    assert_eq!(from_file.allowed_origins, ["https://casino.example", "http://casino.lan:8080"]);
    let a = ServeArgs { allowed_origins: vec!["http://other.example".into()], ..args(Some(f.clone())) };
    assert_eq!(settings(a).unwrap().allowed_origins, ["http://other.example"], "the flag wins");
    let _ = std::fs::remove_file(f);
    for bad in ["casino.example", "http://casino.example/page", "ftp://casino.example", "null"] {
        let a = ServeArgs { allowed_origins: vec![bad.into()], ..args(None) };
        let e = settings(a).unwrap_err().to_string();
        assert!(e.starts_with("allowed_origins:"), "{bad}: {e}");
    }
}

/// `--exposure-alert`: a default and tables' own, exact, from the flag or
/// the file; a bad one is refused naming the key.
#[test]
fn exposure_alerts_from_the_flag_or_the_file_and_refused_when_not_a_return() {
    use baccarat_casino::Thresholds;
    use baccarat_core::TableId;
    use baccarat_math::Ratio;
    assert_eq!(settings(args(None)).unwrap().exposure, Thresholds::default(), "EV > 0 by default");
    let f = file("exposure", "exposure_alert = [\"-0.5%\", \"3=0.01\"]\n");
    let t = settings(args(Some(f.clone()))).unwrap().exposure;
    assert_eq!(t.default, Ratio::new(-1, 200));
    assert_eq!(t.of(TableId(3)), Ratio::new(1, 100));
    assert_eq!(t.of(TableId(4)), Ratio::new(-1, 200));
    let a = ServeArgs { exposure_alert: vec!["7=-0.001".into()], ..args(Some(f.clone())) };
    let t = settings(a).unwrap().exposure;
    assert_eq!((t.default, t.tables.len()), (Ratio::new(0, 1), 1), "the flag wins");
    let _ = std::fs::remove_file(f);
    for bad in ["x", "3=", "three=0", "=0.1", "1.5", "0.1%%"] {
        let a = ServeArgs { exposure_alert: vec![bad.into()], ..args(None) };
        let e = settings(a).unwrap_err().to_string();
        assert!(e.starts_with("exposure_alert:"), "{bad}: {e}");
    }
}

#[test]
fn session_times_from_the_file_and_flags_and_refused_when_they_make_no_sense() {
    let d = settings(args(None)).unwrap();
    assert_eq!(d.sessions, baccarat_server::auth::SessionPolicy::default());
    let f = file("sessions", "session_idle_seconds = 600\nsession_max_seconds = 3600\n");
    let s = settings(args(Some(f.clone()))).unwrap();
    assert_eq!((s.sessions.idle_ms, s.sessions.max_ms), (600_000, 3_600_000));
    let a = ServeArgs { session_idle_seconds: Some(120), ..args(None) };
    assert_eq!(settings(a).unwrap().sessions.idle_ms, 120_000);
    let a = ServeArgs { session_idle_seconds: Some(5), ..args(None) };
    assert!(settings(a).unwrap_err().to_string().contains("session_idle_seconds"));
    let a = ServeArgs { session_idle_seconds: Some(7200), session_max_seconds: Some(3600), ..args(None) };
    let e = settings(a).unwrap_err().to_string();
    assert!(e.contains("session_idle_seconds") && e.contains("session_max_seconds"), "{e}");
    let _ = std::fs::remove_file(f);
}

#[test]
fn key_retention_from_the_file_and_flags_and_refused_out_of_range() {
    assert_eq!(settings(args(None)).unwrap().key_retention, Duration::from_secs(72 * 3600));
    let f = file("keys", "key_retention_hours = 24\n");
    let s = settings(args(Some(f.clone()))).unwrap();
    assert_eq!(s.key_retention, Duration::from_secs(24 * 3600));
    let a = ServeArgs { key_retention_hours: Some(1), ..args(None) };
    assert_eq!(settings(a).unwrap().key_retention, Duration::from_secs(3600));
    let a = ServeArgs { key_retention_hours: Some(0), ..args(None) };
    assert!(settings(a).unwrap_err().to_string().contains("key_retention_hours"));
    let _ = std::fs::remove_file(f);
}

#[test]
fn anchor_spacing_from_the_file_and_flags_and_refused_out_of_range() {
    assert_eq!(settings(args(None)).unwrap().anchor_every, Duration::from_millis(250));
    let f = file("anchors", "anchor_every_ms = 1000\n");
    assert_eq!(settings(args(Some(f.clone()))).unwrap().anchor_every, Duration::from_secs(1));
    let a = ServeArgs { anchor_every_ms: Some(0), ..args(Some(f.clone())) };
    assert_eq!(settings(a).unwrap().anchor_every, Duration::ZERO, "a flag over the file; 0: a line a batch");
    let a = ServeArgs { anchor_every_ms: Some(MAX_ANCHOR_EVERY_MS), ..args(None) };
    assert_eq!(settings(a).unwrap().anchor_every, Duration::from_millis(MAX_ANCHOR_EVERY_MS));
    for too_long in [MAX_ANCHOR_EVERY_MS + 1, 60_000] {
        let a = ServeArgs { anchor_every_ms: Some(too_long), ..args(None) };
        let e = settings(a).unwrap_err().to_string();
        assert!(e.contains("anchor_every_ms") && e.contains("1000"), "{e}");
    }
    let _ = std::fs::remove_file(f);
}

/// The bounds each setting's help states (`1 to 3600`, `up to 1000`) are
/// the ones a start enforces: one past either is refused, naming the
/// setting, and the bounds themselves are not out of range.
#[test]
fn the_ranges_the_help_states_are_the_ones_enforced() {
    let mut checked = 0;
    for s in settings::all().into_iter().filter(|s| s.in_file) {
        let Some((lo, hi)) = s.range else { continue };
        let start = |v: u64| {
            let f = file(&format!("range-{}-{v}", s.key), &format!("{} = {v}\n", s.key));
            let r = plan(args(Some(f.clone()))).map(|_| ()).map_err(|e| e.to_string());
            let _ = std::fs::remove_file(f);
            r
        };
        let e = start(hi + 1).expect_err(&s.key);
        assert!(e.starts_with(&format!("{}: ", s.key)) && e.contains("outside"), "{}: {e}", s.key);
        if lo > 0 {
            let e = start(lo - 1).expect_err(&s.key);
            assert!(e.starts_with(&format!("{}: ", s.key)) && e.contains("outside"), "{}: {e}", s.key);
        }
        for v in [lo, hi] {
            if let Err(e) = start(v) {
                assert!(!e.contains("outside"), "{} = {v} is within the help's range: {e}", s.key);
            }
        }
        checked += 1;
    }
    assert!(checked >= 10, "only {checked} settings state a range");
}

#[test]
fn bad_settings_name_the_key() {
    let unknown = file("unknown", "bettingseconds = 3\n");
    let e = settings(args(Some(unknown.clone()))).unwrap_err().to_string();
    assert!(e.contains("bettingseconds"), "{e}");
    let range = file("range", "betting_seconds = 0\n");
    let e = settings(args(Some(range.clone()))).unwrap_err().to_string();
    assert!(e.contains("betting_seconds"), "{e}");
    let addr = file("addr", "addr = \"nowhere\"\n");
    let e = settings(args(Some(addr.clone()))).unwrap_err().to_string();
    assert!(e.contains("addr"), "{e}");
    let e = settings(args(Some(PathBuf::from("/no/such/file.toml")))).unwrap_err().to_string();
    assert!(e.contains("--config"), "{e}");
    for f in [unknown, range, addr] {
        let _ = std::fs::remove_file(f);
    }
}
