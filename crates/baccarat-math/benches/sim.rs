//! Speed of the simulator's parts (criterion): the shuffle, the seed derivation,
//! one whole shoe with every AU wager settled.

use std::sync::atomic::AtomicU64;

use baccarat_math::sim::{play_shoe, run_shoes, Procedure, Rows, SimWager};
use baccarat_rules::profiles;
use baccarat_table::{shuffle_with, Seed, Stream};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn parts(c: &mut Criterion) {
    let seed = Seed::from_u64(1);
    c.bench_function("shuffle 416 cards", |b| {
        let mut cards: Vec<u8> = (0..8).flat_map(|_| 0..52u8).collect();
        b.iter(|| {
            let mut s = Stream::new(black_box(&seed));
            shuffle_with(&mut cards, &mut s);
        })
    });
    c.bench_function("415 words of ChaCha20", |b| {
        b.iter(|| {
            let mut s = Stream::new(black_box(&seed));
            let mut x = 0u32;
            for _ in 0..415 {
                x ^= s.next_u32();
            }
            x
        })
    });
    c.bench_function("415 bounded draws", |b| {
        b.iter(|| {
            let mut s = Stream::new(black_box(&seed));
            let mut x = 0u32;
            for i in (1..416u32).rev() {
                x ^= s.below(i + 1);
            }
            x
        })
    });
    c.bench_function("keystream 1024 bytes", |b| {
        use chacha20::cipher::{KeyIvInit, StreamCipher};
        b.iter(|| {
            let mut c = chacha20::ChaCha20::new(&black_box(seed.0).into(), &[0u8; 12].into());
            let mut buf = [0u8; 1024];
            c.apply_keystream(&mut buf);
            buf[1000]
        })
    });
    c.bench_function("derive shoe seed", |b| b.iter(|| Seed::derive(black_box(&seed), black_box(7))));
    let rb = profiles::builtin("au-casino").unwrap();
    let proc = Procedure::for_rulebook(&rb, 8, 20);
    c.bench_function("deal one shoe, no settlement", |b| {
        b.iter(|| {
            let mut n = 0u32;
            play_shoe(&proc, black_box(&seed), black_box(3), |_| n += 1);
            n
        })
    });
    let ws: Vec<SimWager> =
        rb.bets.iter().flat_map(|b| b.pay_tables.iter().map(|t| SimWager { table: t.clone() })).collect();
    let rows = Rows::new(&ws).unwrap();
    let done = AtomicU64::new(0);
    c.bench_function("one shoe, 28 AU wagers settled", |b| {
        let mut i = 0;
        b.iter(|| {
            i += 1;
            run_shoes(&proc, &rows, black_box(&seed), i..i + 1, &done)
        })
    });
}

criterion_group!(benches, parts);
criterion_main!(benches);
