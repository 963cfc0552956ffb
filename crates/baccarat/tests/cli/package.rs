//! The Debian package (issue 48; docs/install.md): `scripts/package-deb.sh`
//! builds it from this test's own binary; it holds what the manual says and
//! nothing else, its control fields and conffiles are right, its maintainer
//! scripts parse, and `systemd-analyze verify` has nothing to say of its
//! unit. Skipped, saying so, only where dpkg-deb or systemd-analyze is not
//! installed. Where lintian is installed, it has nothing to say (errors,
//! warnings and information) but what the package's overrides say is meant.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::TempDir;

/// The workspace's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Run `cmd args`, which must succeed; its stdout.
fn ok(cmd: &str, args: &[&str]) -> String {
    let o = Command::new(cmd).args(args).output().unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(o.status.success(), "{cmd} {args:?}: {}{}", text(&o.stdout), text(&o.stderr));
    text(&o.stdout)
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

/// Whether `tool` is installed (it answers `--version`).
fn installed(tool: &str) -> bool {
    Command::new(tool).arg("--version").output().is_ok_and(|o| o.status.success())
}

/// `systemd-analyze verify` of `unit` (a file named `baccarat.service`):
/// its output, which must be empty for a unit without fault.
fn verify_unit(unit: &Path) -> Output {
    Command::new("systemd-analyze").args(["verify", "--man=no"]).arg(unit).output().expect("run systemd-analyze")
}

/// The package: built, then its control fields, files, conffiles,
/// maintainer scripts and unit checked.
#[test]
fn the_debian_package_holds_the_server_its_unit_and_its_settings() {
    if let Some(absent) = ["dpkg-deb", "dpkg", "systemd-analyze"].into_iter().find(|t| !installed(t)) {
        eprintln!("skipped: {absent} is not installed (Debian's dpkg and systemd packages)");
        return;
    }
    let dir = TempDir::new(&format!("baccarat-package-{}", std::process::id()));
    let script = repo().join("scripts/package-deb.sh");
    let out = dir.join("out");
    // Compressed, as a package is shipped (lintian refuses one that is not).
    let built = Command::new("bash")
        .arg(&script)
        .args(["--binary", env!("CARGO_BIN_EXE_baccarat"), "--out", out.to_str().unwrap(), "--compress", "gzip"])
        .output()
        .unwrap();
    assert!(built.status.success(), "{}{}", text(&built.stdout), text(&built.stderr));
    let deb = text(&built.stdout).trim().to_string();
    let arch = ok("dpkg", &["--print-architecture"]).trim().to_string();
    assert_eq!(deb, format!("{}/baccarat_{}_{arch}.deb", out.display(), env!("CARGO_PKG_VERSION")));

    control_fields(&deb, &arch);
    contents(&deb);
    assert_eq!(ok("dpkg-deb", &["-I", &deb, "conffiles"]), "/etc/baccarat/config.toml\n");
    let root = dir.join("root");
    ok("dpkg-deb", &["-x", &deb, root.to_str().unwrap()]);
    let said = ok(root.join("usr/bin/baccarat").to_str().unwrap(), &["--version"]);
    assert!(said.starts_with(concat!("baccarat ", env!("CARGO_PKG_VERSION"), " (commit ")), "{said}");
    let settings = std::fs::read_to_string(root.join("etc/baccarat/config.toml")).unwrap();
    assert_eq!(settings, include_str!("../../../../packaging/baccarat.toml.example"));
    writable_where_it_writes(&settings);
    let users = std::fs::read_to_string(root.join("usr/lib/sysusers.d/baccarat.conf")).unwrap();
    assert!(users.lines().any(|l| l.starts_with("u baccarat ")), "{users}");
    scripts(&deb, &dir.join("control"));
    unit(&root, &dir.join("unit"));
    lintian(&deb);
}

/// lintian, where installed: no error, warning or information but those
/// `packaging/debian/lintian-overrides` names, each with its reason.
fn lintian(deb: &str) {
    if !installed("lintian") {
        eprintln!("lintian not run: it is not installed");
        return;
    }
    let o = Command::new("lintian").args(["-I", "--fail-on", "error,warning,info", deb]).output().unwrap();
    let said = format!("{}{}", text(&o.stdout), text(&o.stderr));
    let tags: Vec<&str> =
        said.lines().filter(|l| l.starts_with("E: ") || l.starts_with("W: ") || l.starts_with("I: ")).collect();
    assert!(o.status.success() && tags.is_empty(), "lintian {deb}:\n{said}");
}

/// The control fields: the workspace's version, this machine's
/// architecture, Depends computed (libc6 with a version).
fn control_fields(deb: &str, arch: &str) {
    let field = |f: &str| ok("dpkg-deb", &["-f", deb, f]).trim().to_string();
    assert_eq!(field("Package"), "baccarat");
    assert_eq!(field("Version"), env!("CARGO_PKG_VERSION"));
    assert_eq!(field("Architecture"), arch);
    assert!(field("Maintainer").contains('<'), "{}", field("Maintainer"));
    let depends = field("Depends");
    assert!(depends.starts_with("libc6 (>= ") || depends.contains(", libc6 (>= "), "{depends}");
    assert!(!field("Description").is_empty());
}

/// Its files, exactly, each root's; the binary and only it executable.
fn contents(deb: &str) {
    let listing = ok("dpkg-deb", &["-c", deb]);
    let mut files = BTreeSet::new();
    for line in listing.lines() {
        let cols: Vec<&str> = line.split_whitespace().collect();
        assert!(cols.len() == 6 && cols[1] == "root/root", "{line}");
        if cols[0].starts_with('-') {
            let path = cols[5].trim_start_matches('.');
            let executable = path == "/usr/bin/baccarat";
            assert_eq!(cols[0], if executable { "-rwxr-xr-x" } else { "-rw-r--r--" }, "{line}");
            files.insert(path.to_string());
        }
    }
    let want: BTreeSet<String> = [
        "/usr/bin/baccarat",
        "/lib/systemd/system/baccarat.service",
        "/usr/lib/sysusers.d/baccarat.conf",
        "/etc/baccarat/config.toml",
        "/usr/share/doc/baccarat/copyright",
        "/usr/share/doc/baccarat/changelog.gz",
        "/usr/share/doc/baccarat/install.md.gz",
        "/usr/share/doc/baccarat/operating.md.gz",
        "/usr/share/lintian/overrides/baccarat",
    ]
    .map(String::from)
    .into();
    assert_eq!(files, want, "{listing}");
}

/// Every file the settings have the server write lies in one of the unit's
/// state directories: `ProtectSystem=strict` leaves everything else
/// read-only, and a key file in /etc would stop the first start. The key
/// lies in another directory than the database.
fn writable_where_it_writes(settings: &str) {
    let table: toml::Table = settings.parse().unwrap();
    let path = |k: &str| table[k].as_str().unwrap_or_else(|| panic!("{k}")).to_string();
    let in_state = |p: &str| ["/var/lib/baccarat/", "/var/lib/baccarat-keys/"].iter().any(|d| p.starts_with(d));
    for k in ["db", "anchor_file", "key_file"] {
        assert!(in_state(&path(k)), "{k} = {:?} is not in a state directory of the unit", path(k));
    }
    let parent = |p: String| Path::new(&p).parent().unwrap().to_path_buf();
    assert_ne!(parent(path("key_file")), parent(path("db")), "the key beside the database");
}

/// The maintainer scripts: present, executable, and shell that parses.
fn scripts(deb: &str, control: &Path) {
    ok("dpkg-deb", &["-e", deb, control.to_str().unwrap()]);
    for s in ["postinst", "prerm", "postrm"] {
        let path = control.join(s);
        let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&path).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o755, "{s}");
        ok("sh", &["-n", path.to_str().unwrap()]);
    }
    behave(control);
}

/// What the maintainer scripts run, with every command they call that
/// changes the system stubbed (each stub logs its words): `configure` makes
/// the user and gives the settings to root:baccarat 0640 unless an admin's
/// `dpkg-statoverride` says otherwise, and starts nothing on a first
/// install; a purge forgets the unit's links and removes nothing of the
/// casino's.
fn behave(control: &Path) {
    let stubs = control.join("stubs");
    std::fs::create_dir_all(&stubs).unwrap();
    let log = control.join("calls.log");
    let commands = ["systemd-sysusers", "adduser", "chown", "chmod", "deb-systemd-helper", "deb-systemd-invoke"];
    for c in commands.iter().chain(&["systemctl", "rm", "dpkg-statoverride"]) {
        // dpkg-statoverride: no override (status 1) unless OVERRIDE is set;
        // deb-systemd-helper: a first install, the unit in no state yet.
        let status = match *c {
            "dpkg-statoverride" => "[ -n \"${OVERRIDE:-}\" ]",
            "deb-systemd-helper" => "[ \"$1\" != debian-installed ]",
            _ => "true",
        };
        let stub = format!("#!/bin/sh\necho \"{c} $*\" >> '{}'\n{status}\n", log.display());
        let path = stubs.join(c);
        std::fs::write(&path, stub).unwrap();
        std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    }
    let run = |script: &str, args: &[&str], overridden: bool| {
        let _ = std::fs::remove_file(&log);
        let path = format!("{}:/usr/bin:/bin", stubs.display());
        let mut c = Command::new("sh");
        c.arg(control.join(script)).args(args).env("PATH", path);
        if overridden {
            c.env("OVERRIDE", "1");
        }
        let o = c.output().unwrap();
        assert!(o.status.success(), "{script} {args:?}: {}", text(&o.stderr));
        std::fs::read_to_string(&log).unwrap_or_default()
    };
    let first = run("postinst", &["configure"], false);
    for want in ["systemd-sysusers baccarat.conf", "chown root:baccarat /etc/baccarat/config.toml"] {
        assert!(first.contains(want), "{want:?} not run:\n{first}");
    }
    assert!(first.contains("chmod 0640 /etc/baccarat/config.toml"), "{first}");
    assert!(
        !first.contains("start") && !first.contains("deb-systemd-helper enable"),
        "a first install starts nothing:\n{first}"
    );
    let overridden = run("postinst", &["configure"], true);
    assert!(!overridden.contains("chown") && !overridden.contains("chmod"), "{overridden}");
    let purged = run("postrm", &["purge"], false);
    assert!(purged.contains("deb-systemd-helper purge baccarat.service"), "{purged}");
    assert!(!purged.contains("rm ") && !purged.contains("/var/lib"), "the casino is kept:\n{purged}");
}

/// The unit: as documented, and without a word from `systemd-analyze
/// verify`, which also checks that ExecStart's binary is there. It is run
/// on the unit as packaged, but for the binary's path, which points into
/// the extracted tree (verify's `--root` would want the whole system's units
/// there too); and it is shown to speak of a unit at fault.
fn unit(root: &Path, dir: &Path) {
    let packaged = std::fs::read_to_string(root.join("lib/systemd/system/baccarat.service")).unwrap();
    let lines: BTreeSet<&str> = packaged.lines().collect();
    for want in [
        "Type=notify",
        "ExecStart=/usr/bin/baccarat serve --config /etc/baccarat/config.toml",
        "User=baccarat",
        "StateDirectory=baccarat baccarat-keys",
        "ProtectSystem=strict",
        "NoNewPrivileges=yes",
        "CapabilityBoundingSet=",
        "KillSignal=SIGTERM",
        "Restart=on-failure",
    ] {
        assert!(lines.contains(want), "the unit has no {want:?}");
    }
    std::fs::create_dir_all(dir).unwrap();
    let binary = root.join("usr/bin/baccarat");
    let here = packaged.replace("ExecStart=/usr/bin/baccarat ", &format!("ExecStart={} ", binary.display()));
    let unit = dir.join("baccarat.service");
    std::fs::write(&unit, &here).unwrap();
    let o = verify_unit(&unit);
    assert!(o.status.success() && o.stdout.is_empty() && o.stderr.is_empty(), "{}{}", text(&o.stdout), text(&o.stderr));
    exposure(&unit);
    // The same check, shown able to fail: a misspelt setting is named.
    std::fs::write(&unit, here.replace("ProtectHome=yes", "ProtectHomes=yes")).unwrap();
    let o = verify_unit(&unit);
    assert!(text(&o.stderr).contains("ProtectHomes"), "{}{}", text(&o.stdout), text(&o.stderr));
    // And so is a binary that is not there.
    std::fs::write(&unit, &packaged).unwrap();
    let o = verify_unit(&unit);
    let absent = !Path::new("/usr/bin/baccarat").exists();
    assert!(!absent || !o.status.success(), "{}", text(&o.stderr));
}

/// `systemd-analyze security`'s exposure of the unit (0 to 10, lower is
/// safer) stays where docs/install.md says (1.1 with systemd 252): a
/// protection dropped, or a capability granted, raises it past the bound.
fn exposure(unit: &Path) {
    let o = Command::new("systemd-analyze")
        .args(["security", "--offline=yes", "--no-pager"])
        .arg(unit)
        .output()
        .expect("run systemd-analyze security");
    let out = text(&o.stdout);
    let score = out
        .lines()
        .find_map(|l| l.split_once("Overall exposure level for baccarat.service: ").map(|(_, r)| r.to_string()))
        .and_then(|r| r.split_whitespace().next().and_then(|n| n.parse::<f64>().ok()))
        .unwrap_or_else(|| panic!("no exposure level: {out}{}", text(&o.stderr)));
    assert!(score <= 1.5, "exposure {score} (docs/install.md says 1.1):\n{out}");
}
