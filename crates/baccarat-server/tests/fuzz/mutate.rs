//! A small deterministic mutator: a seeded PRNG, byte-level mutations, and
//! structure-aware ones for JSON, TOML and line streams. No dependencies beyond
//! `serde_json`, so that a failure reproduces from its seed and iteration alone.

use serde_json::{Map, Number, Value};

/// xoshiro256** seeded through SplitMix64: fast, and the same on every machine.
#[derive(Clone, Debug)]
pub struct Rng([u64; 4]);

/// SplitMix64's finaliser: spreads a seed (or a seed and an iteration) over 64 bits.
pub fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Rng {
    pub fn new(seed: u64) -> Rng {
        let mut s = [0u64; 4];
        let mut z = seed;
        for x in &mut s {
            z = mix(z);
            *x = z;
        }
        if s == [0; 4] {
            s[0] = 1;
        }
        Rng(s)
    }

    pub fn next_u64(&mut self) -> u64 {
        let s = &mut self.0;
        let out = s[1].wrapping_mul(5).rotate_left(7).wrapping_mul(9);
        let t = s[1] << 17;
        s[2] ^= s[0];
        s[3] ^= s[1];
        s[1] ^= s[2];
        s[0] ^= s[3];
        s[2] ^= t;
        s[3] = s[3].rotate_left(45);
        out
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        assert!(n > 0, "below(0)");
        ((self.next_u64() as u128 * n as u128) >> 64) as usize
    }

    /// Uniform in `lo..=hi`.
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi as i128 - lo as i128 + 1) as u128;
        (lo as i128 + ((self.next_u64() as u128 * span) >> 64) as i128) as i64
    }

    /// True with probability `num / den`.
    pub fn chance(&mut self, num: u32, den: u32) -> bool {
        self.below(den as usize) < num as usize
    }

    pub fn pick<'a, T>(&mut self, xs: &'a [T]) -> &'a T {
        &xs[self.below(xs.len())]
    }
}

/// Numbers that break things: zero, signs, every integer type's edges, the
/// largest limit, floats and words that are not numbers at all.
pub const NUMBERS: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "2",
    "7",
    "14",
    "15",
    "32",
    "33",
    "100",
    "255",
    "256",
    "-128",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "-2147483649",
    "1000000000000",
    "1000000000001",
    "10000000000",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "18446744073709551615",
    "18446744073709551616",
    "99999999999999999999999999999",
    "1e308",
    "-1e308",
    "1e309",
    "1.5",
    "0.1",
    "-0.0",
    "1e-400",
    "NaN",
    "nan",
    "inf",
    "-inf",
    "Infinity",
    "0x10",
    "01",
    "+1",
    "1_000",
];

/// Strings that break things.
pub fn weird_string(rng: &mut Rng) -> String {
    const S: &[&str] = &[
        "",
        " ",
        "\0",
        "\u{202e}",
        "\u{feff}",
        "💥",
        "é",
        "ß",
        "İ",
        "\\",
        "\"",
        "\n",
        "\r\n",
        "\t",
        "%s%n",
        "../../etc/passwd",
        "<script>alert(1)</script>",
        "null",
        "true",
        "10H",
        "AS",
        "T♥",
        "10♠",
        "1OH",
        "11H",
        "QX",
        "0C",
        "player",
        "banker",
        "tie",
        "nsw-2021",
        "au-casino",
        "resort-house",
        "european-casino",
        "{{",
        "[[",
        "]]",
        "'",
        "\u{7f}",
        "\u{10ffff}",
    ];
    match rng.below(6) {
        0 => {
            // Long: around the route and field bounds (64, 128, 16 KB) and past them.
            let n = *rng.pick(&[63, 64, 65, 127, 128, 129, 1000, 16 * 1024, 20_000]);
            let c = *rng.pick(&["A", "é", "💥", "0"]);
            c.repeat(n)
        }
        1 => rng.pick(NUMBERS).to_string(),
        _ => rng.pick(S).to_string(),
    }
}

/// A JSON value that is the wrong thing: extremes, other types, deep nesting.
pub fn weird_json(rng: &mut Rng) -> Value {
    match rng.below(12) {
        0 => Value::Null,
        1 => Value::Bool(rng.chance(1, 2)),
        2 => Value::Number(Number::from(*rng.pick(&[i64::MAX, i64::MIN, -1, 0, 1, 1 << 53, i64::from(u32::MAX)]))),
        3 => Value::Number(Number::from(*rng.pick(&[u64::MAX, 1u64 << 63, u64::from(u32::MAX) + 1]))),
        4 => {
            Number::from_f64(*rng.pick(&[1e308, -1e308, 0.5, -0.0, 1e-300, 2.5e15])).map_or(Value::Null, Value::Number)
        }
        5 => Value::Array(Vec::new()),
        6 => Value::Object(Map::new()),
        7 => {
            let depth = *rng.pick(&[2, 20, 127, 128, 129, 300]);
            nest(depth, rng.chance(1, 2))
        }
        8 => Value::Array((0..rng.range(1, 40)).map(|i| Value::Number(Number::from(i))).collect()),
        9 => Value::Number(Number::from(rng.range(-3, 20))),
        _ => Value::String(weird_string(rng)),
    }
}

/// `depth` arrays (or objects) inside each other.
pub fn nest(depth: usize, objects: bool) -> Value {
    let mut v = Value::Null;
    for _ in 0..depth {
        v = if objects {
            let mut m = Map::new();
            m.insert("a".into(), v);
            Value::Object(m)
        } else {
            Value::Array(vec![v])
        };
    }
    v
}

/// Up to `rounds` byte-level mutations of `data`: bit flips, interesting bytes,
/// inserts and deletes, duplicated ranges, splices with another corpus entry,
/// truncation, dictionary words.
pub fn bytes(rng: &mut Rng, data: &[u8], other: &[u8], dict: &[String], rounds: usize) -> Vec<u8> {
    let mut d = data.to_vec();
    for _ in 0..rng.range(1, rounds as i64) {
        let len = d.len();
        match rng.below(12) {
            0 if len > 0 => {
                let i = rng.below(len);
                d[i] ^= 1 << rng.below(8);
            }
            1 if len > 0 => {
                let i = rng.below(len);
                d[i] = *rng.pick(&[
                    0u8, 0xff, 0x7f, 0x80, 0xc3, 0xe2, b'"', b'\\', b'{', b'}', b'[', b']', b'\n', b'=', b',', b'-',
                    b'9', b' ', b'#',
                ]);
            }
            2 => {
                let i = rng.below(len + 1);
                let n = rng.range(1, 8) as usize;
                let ins: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
                d.splice(i..i, ins);
            }
            3 if len > 0 => {
                let i = rng.below(len);
                let n = rng.range(1, 64.min(len as i64 - i as i64)) as usize;
                d.drain(i..i + n);
            }
            4 if len > 0 => {
                let i = rng.below(len);
                let n = rng.range(1, 256.min(len as i64 - i as i64)) as usize;
                let chunk = d[i..i + n].to_vec();
                let at = rng.below(len + 1);
                d.splice(at..at, chunk);
            }
            5 if !other.is_empty() => {
                // Splice: a prefix of this entry and a suffix of the other.
                let cut = rng.below(len + 1);
                let from = rng.below(other.len());
                d.truncate(cut);
                d.extend_from_slice(&other[from..]);
            }
            6 if !other.is_empty() => {
                let from = rng.below(other.len());
                let n = rng.range(1, 256.min(other.len() as i64 - from as i64)) as usize;
                let at = rng.below(len + 1);
                d.splice(at..at, other[from..from + n].iter().copied());
            }
            7 if len > 0 => d.truncate(rng.below(len)),
            8 => {
                let at = rng.below(len + 1);
                let s = weird_string(rng);
                d.splice(at..at, s.into_bytes());
            }
            9 => {
                let at = rng.below(len + 1);
                d.splice(at..at, word(rng, dict).into_bytes());
            }
            10 => {
                d = replace_word(rng, &String::from_utf8_lossy(&d), dict).into_bytes();
            }
            _ => {
                let at = rng.below(len + 1);
                let n = rng.pick(NUMBERS).as_bytes().to_vec();
                d.splice(at..at, n);
            }
        }
    }
    d
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | ':')
}

/// The words (identifiers, numbers, ids like `nsw-2021` or `19:20`) of `text`.
pub fn words(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in text.char_indices() {
        match (is_word(c), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

/// A dictionary: every word of the corpus, each once (never empty).
pub fn dictionary(corpus: &[Vec<u8>]) -> Vec<String> {
    let mut set: std::collections::BTreeSet<String> = ["id", "rule", "x"].map(String::from).into();
    for c in corpus {
        let t = String::from_utf8_lossy(c);
        for (a, b) in words(&t) {
            if b - a <= 64 {
                set.insert(t[a..b].to_string());
            }
        }
    }
    set.into_iter().collect()
}

/// Replace one word of `text` with a dictionary word or an interesting number:
/// a pay table's name with another's, a key with another key, `8` with `2^63`.
/// This gets past the parser into the validation behind it.
pub fn replace_word(rng: &mut Rng, text: &str, dict: &[String]) -> String {
    let ws = words(text);
    if ws.is_empty() {
        return text.to_string();
    }
    let (a, b) = *rng.pick(&ws);
    let with = if rng.chance(1, 3) { rng.pick(NUMBERS).to_string() } else { word(rng, dict) };
    format!("{}{}{}", &text[..a], with, &text[b..])
}

/// A dictionary word (`x` if the dictionary is empty).
pub fn word(rng: &mut Rng, dict: &[String]) -> String {
    if dict.is_empty() {
        "x".into()
    } else {
        rng.pick(dict).clone()
    }
}

/// Every path to a node of `v` (object keys and array indexes).
fn paths(v: &Value, at: &mut Vec<PathStep>, out: &mut Vec<Vec<PathStep>>) {
    out.push(at.clone());
    match v {
        Value::Object(m) => {
            for (k, c) in m {
                at.push(PathStep::Key(k.clone()));
                paths(c, at, out);
                at.pop();
            }
        }
        Value::Array(a) => {
            for (i, c) in a.iter().enumerate().take(64) {
                at.push(PathStep::Index(i));
                paths(c, at, out);
                at.pop();
            }
        }
        _ => {}
    }
}

#[derive(Clone, Debug)]
enum PathStep {
    Key(String),
    Index(usize),
}

fn node<'a>(v: &'a mut Value, path: &[PathStep]) -> &'a mut Value {
    let mut v = v;
    for s in path {
        v = match (s, v) {
            (PathStep::Key(k), Value::Object(m)) => m.get_mut(k).expect("path"),
            (PathStep::Index(i), Value::Array(a)) => &mut a[*i],
            _ => unreachable!("paths match their value"),
        };
    }
    v
}

/// Mutate a JSON value's structure: a node replaced with a wrong value or type,
/// a key removed or added, an array grown, a node taken from another value.
pub fn json(rng: &mut Rng, v: &Value, other: &Value, rounds: usize) -> Value {
    let mut v = v.clone();
    for _ in 0..rng.range(1, rounds as i64) {
        let mut all = Vec::new();
        paths(&v, &mut Vec::new(), &mut all);
        let path = rng.pick(&all).clone();
        let n = node(&mut v, &path);
        match rng.below(10) {
            0 | 1 => *n = weird_json(rng),
            2 => {
                // The same kind, a nearby value: a number off by one, a string
                // from the dictionary of values.
                *n = match n {
                    Value::Number(x) => {
                        let i = x.as_i64().unwrap_or(0);
                        Value::Number(Number::from(i.saturating_add(rng.range(-2, 2))))
                    }
                    Value::Bool(b) => Value::Bool(!*b),
                    _ => weird_json(rng),
                }
            }
            3 => {
                if let Value::Object(m) = n {
                    if !m.is_empty() {
                        let k = m.keys().nth(rng.below(m.len())).cloned().expect("key");
                        m.remove(&k);
                    }
                }
            }
            4 => {
                if let Value::Object(m) = n {
                    let k = if rng.chance(1, 2) { weird_string(rng) } else { "unknown_field".to_string() };
                    m.insert(k, weird_json(rng));
                }
            }
            5 => {
                if let Value::Array(a) = n {
                    if let Some(first) = a.first().cloned() {
                        let k = rng.range(1, 40) as usize;
                        a.extend(std::iter::repeat_n(first, k));
                    } else {
                        a.push(weird_json(rng));
                    }
                } else if let Value::Object(m) = n {
                    if let Some((k, _)) = m.iter().next().map(|(k, v)| (k.clone(), v.clone())) {
                        m.insert(k, weird_json(rng));
                    }
                }
            }
            6 => {
                // Graft a node of the other value here.
                let mut theirs = Vec::new();
                paths(other, &mut Vec::new(), &mut theirs);
                let p = rng.pick(&theirs).clone();
                let mut o = other.clone();
                *n = node(&mut o, &p).clone();
            }
            7 => *n = Value::Array(vec![n.take()]),
            8 => *n = Value::String(n.to_string()),
            _ => {
                if let Value::String(s) = n {
                    *s = weird_string(rng);
                } else {
                    *n = Value::String(weird_string(rng));
                }
            }
        }
    }
    v
}

/// Write `v` as JSON text, now and then in ways a strict writer would not: a
/// key twice, a number no JSON has (`NaN`, `1e999`, `-0`, `0x10`), a trailing
/// comma, a comment, odd whitespace.
pub fn json_text(rng: &mut Rng, v: &Value) -> Vec<u8> {
    let mut out = String::new();
    let odd = rng.chance(1, 3);
    emit(rng, v, &mut out, odd);
    out.into_bytes()
}

fn emit(rng: &mut Rng, v: &Value, out: &mut String, odd: bool) {
    let quirk = |rng: &mut Rng| odd && rng.chance(1, 12);
    match v {
        Value::Object(m) => {
            out.push('{');
            let mut first = true;
            for (k, c) in m {
                if !first {
                    out.push(',');
                }
                first = false;
                out.push_str(&Value::String(k.clone()).to_string());
                out.push(':');
                emit(rng, c, out, odd);
                if quirk(rng) {
                    // The same key again with another value.
                    out.push(',');
                    out.push_str(&Value::String(k.clone()).to_string());
                    out.push(':');
                    let w = weird_json(rng);
                    emit(rng, &w, out, false);
                }
            }
            if quirk(rng) {
                out.push(',');
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, c) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                emit(rng, c, out, odd);
            }
            if quirk(rng) {
                out.push(',');
            }
            out.push(']');
        }
        Value::Number(_) if quirk(rng) => {
            let n = *rng.pick(NUMBERS);
            out.push_str(n)
        }
        _ => {
            if quirk(rng) {
                let space = *rng.pick(&[" ", "\t", "\n", "/* */", "\u{a0}"]);
                out.push_str(space);
            }
            out.push_str(&v.to_string());
        }
    }
}

/// Line-level mutations of a text (TOML, or a card-input stream): a line
/// deleted, doubled (a duplicate key), moved (a key into another table),
/// swapped, taken from another entry; a value replaced by an extreme; an
/// unknown key or table added; a header renamed.
pub fn lines(rng: &mut Rng, text: &str, other: &str, dict: &[String], rounds: usize) -> String {
    let mut ls: Vec<String> = text.lines().map(str::to_string).collect();
    let theirs: Vec<&str> = other.lines().collect();
    for _ in 0..rng.range(1, rounds as i64) {
        let n = ls.len();
        match rng.below(11) {
            0 if n > 0 => {
                ls.remove(rng.below(n));
            }
            1 if n > 0 => {
                let i = rng.below(n);
                let l = ls[i].clone();
                ls.insert(rng.below(n + 1), l);
            }
            2 if n > 1 => {
                let (a, b) = (rng.below(n), rng.below(n));
                ls.swap(a, b);
            }
            3 if !theirs.is_empty() => {
                let l = rng.pick(&theirs).to_string();
                ls.insert(rng.below(n + 1), l);
            }
            4 if n > 0 => {
                // `key = value`: the value replaced.
                let i = rng.below(n);
                if let Some(eq) = ls[i].find('=') {
                    let v = toml_value(rng, dict);
                    ls[i] = format!("{}= {v}", &ls[i][..eq]);
                }
            }
            5 => {
                let l = match rng.below(4) {
                    0 => format!("unknown_key = {}", toml_value(rng, dict)),
                    1 => format!("[{}]", word(rng, dict)),
                    2 => format!("[[{}]]", word(rng, dict)),
                    _ => format!("{} = {}", word(rng, dict), toml_value(rng, dict)),
                };
                ls.insert(rng.below(n + 1), l);
            }
            6 if n > 0 => {
                let i = rng.below(n);
                ls[i] = replace_word(rng, &ls[i], dict);
            }
            7 if n > 1 => {
                // A block of lines moved or doubled (a table defined twice).
                let a = rng.below(n);
                let b = (a + rng.range(1, 12) as usize).min(n);
                let block: Vec<String> = ls[a..b].to_vec();
                if rng.chance(1, 2) {
                    ls.drain(a..b);
                }
                let at = rng.below(ls.len() + 1);
                ls.splice(at..at, block);
            }
            8 if n > 0 => {
                let i = rng.below(n);
                ls.truncate(i);
            }
            9 if n > 0 => {
                let i = rng.below(n);
                let b = bytes(rng, ls[i].as_bytes(), &[], dict, 2);
                ls[i] = String::from_utf8_lossy(&b).into_owned();
            }
            _ => {
                let i = rng.below(n + 1);
                ls.insert(i, weird_string(rng).replace('\n', " "));
            }
        }
    }
    let mut s = ls.join("\n");
    if rng.chance(4, 5) {
        s.push('\n');
    }
    s
}

/// A TOML value that is wrong somewhere: an extreme number, a float, a string
/// where a number goes, an array, an inline table, a date, a dictionary word.
pub fn toml_value(rng: &mut Rng, dict: &[String]) -> String {
    match rng.below(10) {
        0 | 1 => rng.pick(NUMBERS).to_string(),
        2 => format!("{:?}", weird_string(rng)),
        3 => format!("\"{}\"", word(rng, dict)),
        4 => format!("[{}, {}]", rng.pick(NUMBERS), rng.pick(NUMBERS)),
        5 => "[]".into(),
        6 => format!("{{ {} = {} }}", word(rng, dict), rng.pick(NUMBERS)),
        7 => "1979-05-27T07:32:00Z".into(),
        8 => rng.pick(&["true", "false", "\"\"", "''", "\"\"\"x\"\"\""]).to_string(),
        _ => format!("\"{}:{}\"", rng.pick(NUMBERS), rng.pick(NUMBERS)),
    }
}
