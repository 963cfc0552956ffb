//! Cost of the exposure monitor per table per card, on one core (issue 50
//! part 3: the monitor runs after every card at every table and must cost
//! under 5 % of the server's throughput). The shoe-independent table of
//! `baccarat-math` is built once per process, outside the timing
//! (`prepare()`), as the server would at start.

use baccarat_casino::{table_exposure, ShownCards, DEFAULT_THRESHOLD};
use baccarat_math::{main_odds, prepare, price, Shoe, ShoeOdds};
use baccarat_rules::{profiles, Bet, Card, TableConfig, TableConfigSpec};
use baccarat_table::{Event, Position, Table, TableSetup};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn table(rulebook: &str, extra: &str) -> Table {
    let rb = profiles::builtin(rulebook).unwrap();
    let text = format!("rulebook = \"{rulebook}\"\nchip = 100\nmin = 1000\nmax = 100000\n{extra}");
    let spec: TableConfigSpec = toml::from_str(&text).unwrap();
    let cfg = TableConfig::new(&rb, &spec).unwrap();
    Table::new(TableSetup::new(rb, cfg, None).unwrap())
}

/// Mid-shoe: 130 scattered cards shown of 8 decks.
fn mid_shoe() -> ShownCards {
    let mut s = ShownCards::default();
    for i in 0..130usize {
        let c = Card::from_index((i * 37 + i / 7) % 52).unwrap();
        s.observe(&Event::CardDealt { position: Position::Player1, card: c, face_up: true });
    }
    s
}

fn per_card(c: &mut Criterion) {
    prepare();
    let tables = [
        ("nsw main (player, banker, tie)", table("nsw-2021", "")),
        (
            "nsw main + super six, pairs, tiger pair, big tiger",
            table("nsw-2021", "[bets.super_six]\n[bets.player_pair]\n[bets.banker_pair]\n[bets.tiger_pair]\n[bets.big_tiger]\n"),
        ),
        (
            "au main + dragon bonus, lucky match (suits, triples)",
            table(
                "au-casino",
                "[bets.tie]\npay_table = \"8_to_1\"\n[bets.dragon_bonus_player]\npay_table = \"table_2\"\n[bets.lucky_match_banker]\npay_table = \"scale_two\"\n",
            ),
        ),
    ];
    let shown = mid_shoe();
    let next = Event::CardDealt { position: Position::Banker1, card: Card::from_index(5).unwrap(), face_up: true };
    for (name, t) in &tables {
        c.bench_function(&format!("exposure per card/{name}"), |b| {
            b.iter_batched_ref(
                || shown.clone(),
                |s| {
                    s.observe(black_box(&next));
                    table_exposure(black_box(t), s, DEFAULT_THRESHOLD)
                },
                criterion::BatchSize::SmallInput,
            )
        });
    }
    // Where the time goes: the class count, then each offer's distribution and price.
    let shoe = Shoe::from_card_counts(shown.unseen(8), 8).unwrap();
    c.bench_function("parts/ShoeOdds::counted (no triples)", |b| b.iter(|| ShoeOdds::counted(black_box(&shoe), false)));
    c.bench_function("parts/ShoeOdds::counted (triples)", |b| b.iter(|| ShoeOdds::counted(black_box(&shoe), true)));
    c.bench_function("parts/main_odds (fast path)", |b| {
        b.iter(|| main_odds(black_box(&shoe.value_counts()), black_box(&shoe.rank_counts())))
    });
    let odds = ShoeOdds::counted(&shoe, false);
    let t = &tables[1].1;
    for bet in [Bet::Banker, Bet::PlayerPair, Bet::TigerPair, Bet::BigTiger] {
        let offer = t.setup().config.offer(bet).unwrap().clone();
        c.bench_function(&format!("parts/distribution+price/{bet:?}"), |b| {
            b.iter(|| price(&odds.distribution(black_box(bet)).unwrap(), &offer.pay_table))
        });
    }
}

criterion_group!(benches, per_card);
criterion_main!(benches);
