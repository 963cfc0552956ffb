//! The timing oracle (issue 11): what one wrong sign-in costs for a name that
//! exists and for one that does not. Each is the work the sign-in pool does
//! per attempt: the credentials lookup, then argon2 against the stored hash
//! or the dummy one. Before, an unknown name was refused without hashing (2.6
//! ms against 58 ms), so names could be found by timing; the two figures
//! should now agree within noise.
//!
//! `cargo bench -p baccarat-server --bench signin`

use baccarat_core::store::SqliteStore;
use baccarat_server::auth::{dummy_hash, verify_password_in, Role, Users};
use criterion::{criterion_group, criterion_main, Criterion};

fn attempt(users: &Users, memory: &mut Vec<argon2::Block>, name: &str, password: &str) -> bool {
    let creds = users.credentials(name).unwrap();
    let hash = creds.as_ref().map_or(dummy_hash(), |c| c.hash.as_str());
    verify_password_in(memory, hash, password) && creds.is_some()
}

fn bench(c: &mut Criterion) {
    let dir = std::env::temp_dir().join(format!("baccarat-bench-signin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let db = dir.join("casino.db");
    drop(SqliteStore::open(&db).unwrap());
    let users = Users::open(&db).unwrap();
    users.create("alice", Role::Player, "correct horse").unwrap();
    let mut memory = Vec::new();
    assert!(attempt(&users, &mut memory, "alice", "correct horse"));
    let mut g = c.benchmark_group("sign_in");
    g.sample_size(30);
    g.bench_function("known_name_wrong_password", |b| {
        b.iter(|| assert!(!attempt(&users, &mut memory, "alice", "wrong")))
    });
    g.bench_function("unknown_name", |b| b.iter(|| assert!(!attempt(&users, &mut memory, "mallory", "wrong"))));
    g.finish();
    let _ = std::fs::remove_dir_all(&dir);
}

criterion_group!(benches, bench);
criterion_main!(benches);
