//! `baccarat roads`: the Winning Result Display for results read from stdin.

use std::io::Read;

use anyhow::{Context, Result};
use baccarat_table::{Mark, RoadResult, Roads, DERIVED, ROWS};
use serde_json::{json, Value};

#[derive(clap::Args)]
pub struct Args {
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(a: Args) -> Result<()> {
    let mut input = String::new();
    std::io::stdin().read_to_string(&mut input).context("cannot read results from stdin")?;
    let roads = Roads::from_letters(&input)?;
    if a.json {
        println!("{}", serde_json::to_string_pretty(&to_json(&roads))?);
    } else {
        print_text(&roads);
    }
    Ok(())
}

fn mark_str(marks: &[Mark]) -> String {
    marks.iter().map(|m| m.letter()).collect()
}

fn ask_json(r: &Roads, next: RoadResult) -> Value {
    let marks = r.ask(next);
    let mut o = serde_json::Map::new();
    for ((name, _), m) in DERIVED.iter().zip(marks) {
        o.insert(name.to_string(), m.map_or(Value::Null, |m| json!(m.letter().to_string())));
    }
    Value::Object(o)
}

/// The JSON document of the roads.
pub fn to_json(r: &Roads) -> Value {
    let bead: Vec<Vec<String>> =
        r.bead_plate().iter().map(|col| col.iter().map(|e| e.result.letter().to_string()).collect()).collect();
    json!({
        "bead_plate": bead,
        "leading_ties": r.leading_ties(),
        "big_road": r.big_road(),
        "big_eye_boy": mark_str(r.derived(1)),
        "small_road": mark_str(r.derived(2)),
        "cockroach_pig": mark_str(r.derived(3)),
        "ask": {"banker": ask_json(r, RoadResult::Banker), "player": ask_json(r, RoadResult::Player)},
    })
}

fn print_text(r: &Roads) {
    println!("bead plate:");
    let bead = r.bead_plate();
    for row in 0..ROWS {
        let line: String = bead.iter().map(|col| col.get(row).map_or(' ', |e| e.result.letter())).collect();
        println!("  {line}");
    }
    println!("big road (leading ties: {}):", r.leading_ties());
    let cells: Vec<_> = r.big_road().iter().flatten().collect();
    let width = cells.iter().map(|c| c.col + 1).max().unwrap_or(0);
    for row in 0..ROWS {
        let line: String = (0..width)
            .map(|col| {
                cells.iter().find(|c| c.col == col && c.row == row).map_or(' ', |c| {
                    if c.ties > 0 {
                        c.result.letter().to_ascii_lowercase()
                    } else {
                        c.result.letter()
                    }
                })
            })
            .collect();
        println!("  {line}");
    }
    println!("  (lower case: followed by a tie)");
    for (name, k) in DERIVED {
        println!("{name}: {}", mark_str(r.derived(k)));
    }
    let show = |m: [Option<Mark>; 3]| m.iter().map(|m| m.map_or('-', Mark::letter)).collect::<String>();
    println!(
        "ask banker: {}   ask player: {}   (big eye boy, small road, cockroach pig)",
        show(r.ask(RoadResult::Banker)),
        show(r.ask(RoadResult::Player))
    );
}
