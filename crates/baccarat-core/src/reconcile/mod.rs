//! The ledger and the audit log reconcile, both ways (DESIGN 12), in bounded
//! memory.
//!
//! Every transfer names its cause ([`Cause`]): a deposit record of the casino's
//! chain, a table's configuration (its float), a wager, or a record of the
//! casino's chain that moved it (a tournament's, a promotion's, the bank's,
//! the cage's: a cash-out, a fill, a credit). From the audit log
//! alone this module works out every transfer that must exist — a deposit's
//! chips, a float, a wager's hold, and its release or settlement postings
//! exactly as `postings.rs` makes them from the recorded settlement — and
//! compares them with the transfers in the ledger. A transfer without its
//! cause (a forged payment from the cage, with the balances adjusted to match)
//! and a cause without its transfer (a deleted or altered posting) are both
//! reported. So is a hold, deposit or float whose idempotency answer is gone:
//! a retry of it would be applied twice.
//!
//! # How, without holding the transfers
//!
//! Each chain's records are read once ([`ChainExpect`], a fold that keeps only
//! the current coup's wallets), and the transfers once, in id order. Both
//! sides go into a *multiset digest* per chain: every transfer, as the record
//! calls for it and as the ledger has it — `(cause, place, kind, debit,
//! credit, amount)` — is hashed to 128 bits and the hashes are added
//! (wrapping), so the sums are equal exactly when the multisets are, but for a
//! chance far below 2^-100. The hash is SHA-256 keyed with 32 bytes drawn from
//! the OS for each run: a forger cannot compute it beforehand, and so cannot
//! search for a forged multiset with the same sum (against an unkeyed additive
//! hash that search is cheap: Wagner's generalised birthday attack).
//!
//! A posting or release names its hold by id, which the record cannot know:
//! both sides name it "the hold of this cause" instead, and a ledger posting
//! is hashed so only if the hold it names was open and has the same cause.
//! The *place* keeps the order of a cause's transfers in the digest: from the
//! record, a hold is first and its release, or its settlement's postings in
//! `postings.rs` order, follow; in the ledger, a hold is first, the posting
//! or release of a hold second, and a transfer that continues a run of its
//! cause's transfers the next (the server writes a settlement's postings
//! together). Swapping two postings of one settlement changes no money, but
//! it changes the digest.
//!
//! Each chain's digest is split into [`BUCKETS`] by cause, with a count of
//! transfers per bucket. Only where a bucket's sums differ is it read again
//! ([`Detail`]): its causes' expected transfers from the chain, and the
//! transfers themselves, grouped by cause and compared in order, to name each
//! difference in the same words as an in-memory comparison. So the digest only
//! decides what is reread: a ledger laid out otherwise than the server writes
//! costs a reread, never a false finding. The buckets to reread are taken in
//! rounds of at most [`ROUND`] transfers, so even a ledger that differs
//! everywhere is compared in bounded memory (one pass over the transfers per
//! round). At most [`SHOWN`] differences of each kind are listed per chain,
//! the lowest causes first, with the number left out.

use crate::ids::TableId;
use std::collections::{BTreeMap, BinaryHeap};

use baccarat_rules::Money;
use sha2::{Digest, Sha256};

mod chain;
use chain::Books;
pub use chain::{ChainExpect, ChainRead};

use crate::audit::CASINO_CHAIN;
use crate::ledger::{Account, AccountId, Answer, Cause, Transfer, TransferId, TransferKind};

/// A transfer as the audit log says it must be. `PostOf`/`VoidOf` name the
/// hold by its place in the wager's list (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Expected {
    pub kind: TransferKind,
    pub debit: AccountId,
    pub credit: AccountId,
    pub amount: Money,
}

impl Expected {
    pub fn new(kind: TransferKind, debit: AccountId, credit: AccountId, amount: Money) -> Expected {
        Expected { kind, debit, credit, amount }
    }
}

/// Buckets of causes per chain (a power of two).
pub const BUCKETS: usize = 256;

/// The most transfers (expected and found) one round of rereading holds.
pub const ROUND: u64 = 200_000;

/// The most differences of each kind listed per chain, and of transfers
/// without a cause.
pub const SHOWN: usize = 1_000;

/// The bucket a cause's transfers are summed in.
fn bucket(c: Cause) -> usize {
    let x = match c {
        Cause::None => 0,
        Cause::Deposit { seq }
        | Cause::Tournament { seq }
        | Cause::Promotion { seq }
        | Cause::Bank { seq }
        | Cause::Cage { seq } => seq,
        Cause::Float { table } | Cause::Closed { table } => u64::from(table),
        Cause::Wager { wager, .. } | Cause::Slip { first: wager, .. } => wager.0,
    };
    (x.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - BUCKETS.trailing_zeros())) as usize
}

/// The chain whose records explain a cause.
fn chain_of(c: Cause) -> TableId {
    match c {
        Cause::None
        | Cause::Deposit { .. }
        | Cause::Tournament { .. }
        | Cause::Promotion { .. }
        | Cause::Bank { .. }
        | Cause::Cage { .. } => CASINO_CHAIN,
        // A slip's cause is an answer's, never a transfer's: one that names it
        // is explained by no record of its table, and is reported.
        Cause::Float { table } | Cause::Wager { table, .. } | Cause::Slip { table, .. } => table,
        // A table's close is its own chain's `table_closed` record.
        Cause::Closed { table } => table,
    }
}

/// A kind as both sides can state it: a posting or release of the cause's
/// own hold, or of another transfer (which no record calls for).
#[derive(Clone, Copy)]
enum Kind {
    Plain(TransferKind),
    OfHold(bool),
}

/// Hashes one transfer, keyed for this run.
struct Keyed(Sha256);

impl Keyed {
    fn new() -> Keyed {
        // The label and the key fill SHA-256's first block exactly, so each
        // item (54 bytes and the padding) costs one more block, not two.
        let mut prefix = [0u8; 64];
        prefix[..21].copy_from_slice(b"baccarat-reconcile-v1");
        // A fixed key would let a forger search for a colliding ledger
        // offline: without entropy there is no verification to trust.
        getrandom::fill(&mut prefix[32..]).expect("OS entropy for the reconciliation's key");
        Keyed(Sha256::new_with_prefix(prefix))
    }

    fn item(&self, cause: Cause, at: u32, kind: Kind, debit: AccountId, credit: AccountId, amount: Money) -> u128 {
        let (c, a, b) = match cause {
            Cause::None => (0u8, 0, 0),
            Cause::Deposit { seq } => (1, seq, 0),
            Cause::Float { table } => (2, u64::from(table), 0),
            Cause::Wager { table, wager } => (3, u64::from(table), wager.0),
            Cause::Tournament { seq } => (4, seq, 0),
            Cause::Promotion { seq } => (5, seq, 0),
            Cause::Slip { table, first, accepted } => (6, u64::from(table), first.0 ^ (u64::from(accepted) << 32)),
            Cause::Bank { seq } => (7, seq, 0),
            Cause::Cage { seq } => (8, seq, 0),
            Cause::Closed { table } => (9, u64::from(table), 0),
        };
        let (k, h) = match kind {
            Kind::Plain(TransferKind::Posted) => (0u8, 0),
            Kind::Plain(TransferKind::Pending) => (1, 0),
            Kind::Plain(TransferKind::PostOf(h)) => (2, h.0),
            Kind::Plain(TransferKind::VoidOf(h)) => (3, h.0),
            Kind::OfHold(true) => (4, 0),
            Kind::OfHold(false) => (5, 0),
        };
        let mut buf = [0u8; 54];
        buf[0] = c;
        buf[1..9].copy_from_slice(&a.to_le_bytes());
        buf[9..17].copy_from_slice(&b.to_le_bytes());
        buf[17] = k;
        buf[18..26].copy_from_slice(&h.to_le_bytes());
        buf[26..34].copy_from_slice(&debit.0.to_le_bytes());
        buf[34..42].copy_from_slice(&credit.0.to_le_bytes());
        buf[42..50].copy_from_slice(&amount.0.to_le_bytes());
        buf[50..54].copy_from_slice(&at.to_le_bytes());
        let d = self.0.clone().chain_update(buf).finalize();
        u128::from_le_bytes(d[..16].try_into().expect("16 bytes"))
    }
}

/// One side of a chain's multiset digest: a wrapping sum of hashes and a
/// count of transfers per bucket.
#[derive(Clone)]
pub struct Sums {
    sum: Box<[u128]>,
    n: Box<[u64]>,
}

impl Default for Sums {
    fn default() -> Sums {
        Sums { sum: vec![0; BUCKETS].into(), n: vec![0; BUCKETS].into() }
    }
}

impl Sums {
    fn add(&mut self, b: usize, h: u128) {
        self.sum[b] = self.sum[b].wrapping_add(h);
        self.n[b] += 1;
    }
}

/// What is kept of one chain.
#[derive(Default)]
struct ChainBook {
    /// Whether its records were read whole and its transfers are compared
    /// (otherwise every transfer naming it is unexplained).
    reconciled: bool,
    expected: Sums,
    found: Sums,
    /// Problems found while reading its records.
    problems: Vec<String>,
    differences: Capped,
    unexplained: Capped,
}

/// The lowest [`SHOWN`] causes' messages, and how many there were.
#[derive(Default)]
struct Capped {
    kept: BinaryHeap<(Cause, String)>,
    total: usize,
}

impl Capped {
    fn push(&mut self, cause: Cause, msg: String, shown: usize) {
        self.total += 1;
        self.kept.push((cause, msg));
        if self.kept.len() > shown {
            self.kept.pop();
        }
    }

    fn left_out(&self) -> usize {
        self.total - self.kept.len()
    }
}

/// Reconciles a database's ledger with its chains: one pass over each chain
/// ([`Reconciler::chain`], [`Reconciler::close`]), one over the transfers
/// ([`Reconciler::transfer`]), then rereading where the digests differ
/// ([`Reconciler::rounds`], [`Detail`]).
pub struct Reconciler {
    books: Books,
    keyed: Keyed,
    chains: BTreeMap<TableId, ChainBook>,
    /// The cause of the last transfer read, and its place among its cause's.
    run: Option<(Cause, u32)>,
    no_cause: Vec<String>,
    no_cause_total: usize,
    unanswered: Vec<TransferId>,
    unanswered_total: usize,
    unreadable_answer: Option<String>,
    /// [`ROUND`] and [`SHOWN`] (smaller in tests).
    round: u64,
    shown: usize,
}

impl Reconciler {
    pub fn new(accounts: &[Account]) -> Reconciler {
        let by_kind = accounts.iter().map(|a| (a.kind.clone(), a.id)).collect();
        Reconciler {
            books: Books { by_kind },
            keyed: Keyed::new(),
            chains: BTreeMap::new(),
            run: None,
            no_cause: Vec::new(),
            no_cause_total: 0,
            unanswered: Vec::new(),
            unanswered_total: 0,
            unreadable_answer: None,
            round: ROUND,
            shown: SHOWN,
        }
    }

    /// Other bounds than [`ROUND`] and [`SHOWN`] (for tests of the rounds).
    pub fn with_limits(mut self, round: u64, shown: usize) -> Reconciler {
        self.round = round.max(1);
        self.shown = shown.max(1);
        self
    }

    /// Start reading a chain's records.
    pub fn chain(&self, table: TableId) -> ChainExpect<'_> {
        ChainExpect::new(&self.books, table)
    }

    /// Add one transfer a chain's record calls for (from
    /// [`ChainExpect::feed`]) to that chain's expected side.
    pub fn expect_into(&self, sums: &mut Sums, cause: Cause, at: u32, e: Expected) {
        let kind = match e.kind {
            TransferKind::PostOf(_) => Kind::OfHold(true),
            TransferKind::VoidOf(_) => Kind::OfHold(false),
            k => Kind::Plain(k),
        };
        sums.add(bucket(cause), self.keyed.item(cause, at, kind, e.debit, e.credit, e.amount));
    }

    /// A chain read whole: what its records call for (`sums`, from
    /// [`Reconciler::expect_into`]) and what was found reading it.
    pub fn close(&mut self, table: TableId, read: ChainRead, sums: Sums) {
        let book = self.chains.entry(table).or_default();
        book.problems = read.problems;
        book.reconciled = read.usable;
        if read.usable {
            book.expected = sums;
        }
    }

    /// The next transfer, in id order. `of_hold`: for a posting or release
    /// that closed an open hold, whether its cause is the hold's (`None`
    /// when it closed none).
    pub fn transfer(&mut self, t: &Transfer, of_hold: Option<bool>) {
        if t.cause == Cause::None {
            self.run = None;
            self.no_cause_total += 1;
            if self.no_cause.len() < self.shown {
                self.no_cause.push(format!(
                    "ledger: transfer {} ({} from account {} to {}) has no cause",
                    t.id, t.amount, t.debit, t.credit
                ));
            }
            return;
        }
        let kind = match t.kind {
            TransferKind::PostOf(_) if of_hold == Some(true) => Kind::OfHold(true),
            TransferKind::VoidOf(_) if of_hold == Some(true) => Kind::OfHold(false),
            k => Kind::Plain(k),
        };
        // Its place among its cause's transfers: a hold is the first, the
        // posting or release of a hold the second, and the postings after it
        // in the same run of the cause follow on; any other transfer is a
        // first (a deposit, a float).
        let at = match (t.kind, self.run) {
            (TransferKind::Pending, _) => 0,
            (TransferKind::PostOf(_) | TransferKind::VoidOf(_), _) => 1,
            (TransferKind::Posted, Some((c, at))) if c == t.cause => at + 1,
            (TransferKind::Posted, _) => 0,
        };
        self.run = Some((t.cause, at));
        let h = self.keyed.item(t.cause, at, kind, t.debit, t.credit, t.amount);
        self.chains.entry(chain_of(t.cause)).or_default().found.add(bucket(t.cause), h);
    }

    /// An answer that does not parse: the check of keyed transfers stops here.
    pub fn unreadable_answer(&mut self, key: &str, e: &serde_json::Error) {
        self.unreadable_answer = Some(format!("ledger: the answer for key {key:?} is unreadable: {e}"));
    }

    /// A keyed transfer (see [`keyed`]) that no idempotency answer names.
    pub fn unanswered(&mut self, id: TransferId) {
        self.unanswered_total += 1;
        if self.unanswered.len() < 10 {
            self.unanswered.push(id);
        }
    }

    /// The buckets to reread, in rounds of at most [`ROUND`] transfers (a
    /// bucket larger than that is a round of its own).
    pub fn rounds(&self) -> Vec<Round> {
        let mut rounds = Vec::new();
        let mut round = Round::default();
        let mut weight = 0;
        for (&table, book) in &self.chains {
            for b in 0..BUCKETS {
                let (e, f) = (&book.expected, &book.found);
                if e.sum[b] == f.sum[b] && e.n[b] == f.n[b] {
                    continue;
                }
                let w = e.n[b] + f.n[b];
                if weight > 0 && weight + w > self.round {
                    rounds.push(std::mem::take(&mut round));
                    weight = 0;
                }
                weight += w;
                round.parts.entry(table).or_insert_with(|| Box::new([false; BUCKETS]))[b] = true;
            }
        }
        if weight > 0 || !round.parts.is_empty() {
            rounds.push(round);
        }
        rounds
    }

    /// Whether a chain's records are compared with its transfers.
    pub fn reconciled(&self, table: TableId) -> bool {
        self.chains.get(&table).is_some_and(|b| b.reconciled)
    }

    /// Name what a reread round found different.
    pub fn settle(&mut self, d: Detail<'_>) {
        let Detail { expected, mut found, .. } = d;
        for (cause, want) in &expected {
            let got = found.remove(cause).unwrap_or_default();
            if let Some(why) = differs(want, &got) {
                let msg = format!("ledger: {} does not match its audit event: {why}", describe(*cause));
                self.chains.entry(chain_of(*cause)).or_default().differences.push(*cause, msg, self.shown);
            }
        }
        for (cause, got) in found {
            let ids: Vec<String> = got.iter().map(|t| t.id.to_string()).collect();
            let msg =
                format!("ledger: transfer {} names {} but no audit event explains it", ids.join(", "), describe(cause));
            self.chains.entry(chain_of(cause)).or_default().unexplained.push(cause, msg, self.shown);
        }
    }

    /// Every problem, in the order the inspector reads them: transfers with no
    /// cause; each chain's (casino first), what its records could not be
    /// matched with and what differs; transfers no record explains; keyed
    /// transfers with no answer.
    pub fn finish(self) -> Vec<String> {
        let left = self.no_cause_total - self.no_cause.len();
        let mut out = self.no_cause;
        if left > 0 {
            out.push(format!("ledger: … and {left} more transfers have no cause"));
        }
        let mut unexplained: Vec<(Cause, String)> = Vec::new();
        let mut more = Vec::new();
        for (table, book) in self.chains {
            out.extend(book.problems);
            let left = book.differences.left_out();
            out.extend(book.differences.kept.into_sorted_vec().into_iter().map(|(_, m)| m));
            if left > 0 {
                out.push(format!("ledger: … and {left} more of {} do not match their audit events", chain(table)));
            }
            let left = book.unexplained.left_out();
            unexplained.extend(book.unexplained.kept);
            if left > 0 {
                more.push(format!("ledger: … and {left} more causes of {} that no audit event explains", chain(table)));
            }
        }
        unexplained.sort();
        out.extend(unexplained.into_iter().map(|(_, m)| m));
        out.extend(more);
        if let Some(e) = self.unreadable_answer {
            out.push(e);
        } else if self.unanswered_total > 0 {
            let shown: Vec<String> = self.unanswered.iter().map(|id| id.to_string()).collect();
            out.push(format!(
                "ledger: {} keyed transfers have no idempotency answer (deleted?): {}{}",
                self.unanswered_total,
                shown.join(", "),
                if self.unanswered_total > 10 { ", …" } else { "" }
            ));
        }
        out
    }
}

fn chain(table: TableId) -> String {
    if table == CASINO_CHAIN {
        "the casino's chain".into()
    } else {
        format!("table {table}")
    }
}

/// The answer's transfer ids, if it is one that made transfers.
pub fn answered_ids(json: &str) -> Result<Vec<TransferId>, serde_json::Error> {
    Ok(serde_json::from_str::<Answer>(json)?.unwrap_or_default())
}

/// Every hold, deposit, float and movement of the cage (a cash-out, a fill,
/// a credit) was made under an idempotency key whose answer must still be
/// kept: without it a retry would be applied again.
pub fn keyed(t: &Transfer) -> bool {
    matches!(t.cause, Cause::Deposit { .. } | Cause::Float { .. } | Cause::Cage { .. })
        || t.kind == TransferKind::Pending
}

/// The buckets of one round of rereading, by chain.
#[derive(Default)]
pub struct Round {
    pub parts: BTreeMap<TableId, Box<[bool; BUCKETS]>>,
}

impl Round {
    fn has(&self, c: Cause) -> bool {
        self.parts.get(&chain_of(c)).is_some_and(|b| b[bucket(c)])
    }
}

/// One round of rereading: the expected and the found transfers of the
/// round's causes, grouped by cause.
pub struct Detail<'r> {
    round: &'r Round,
    expected: BTreeMap<Cause, Vec<Expected>>,
    found: BTreeMap<Cause, Vec<Transfer>>,
}

impl Detail<'_> {
    pub fn new(round: &Round) -> Detail<'_> {
        Detail { round, expected: BTreeMap::new(), found: BTreeMap::new() }
    }

    /// What a chain's record calls for (from [`ChainExpect::feed`]; the
    /// order it comes in is its place).
    pub fn expect(&mut self, cause: Cause, e: Expected) {
        if self.round.has(cause) {
            self.expected.entry(cause).or_default().push(e);
        }
    }

    /// The next transfer, in id order.
    pub fn transfer(&mut self, t: Transfer) {
        if t.cause != Cause::None && self.round.has(t.cause) {
            self.found.entry(t.cause).or_default().push(t);
        }
    }
}

/// Why the transfers `got` are not the ones `want`, if they are not.
fn differs(want: &[Expected], got: &[Transfer]) -> Option<String> {
    if want.len() != got.len() {
        return Some(format!("{} transfers expected, {} found", want.len(), got.len()));
    }
    let hold = got.first().map(|t| t.id).unwrap_or_default();
    for (w, t) in want.iter().zip(got) {
        let kind = match w.kind {
            TransferKind::PostOf(_) => TransferKind::PostOf(hold),
            TransferKind::VoidOf(_) => TransferKind::VoidOf(hold),
            k => k,
        };
        if (kind, w.debit, w.credit, w.amount) != (t.kind, t.debit, t.credit, t.amount) {
            return Some(format!(
                "transfer {} is {:?} {} from {} to {}; the record calls for {:?} {} from {} to {}",
                t.id, t.kind, t.amount, t.debit, t.credit, kind, w.amount, w.debit, w.credit
            ));
        }
    }
    None
}

fn describe(c: Cause) -> String {
    match c {
        Cause::None => "no cause".into(),
        Cause::Deposit { seq } => format!("the deposit of the casino's chain record {seq}"),
        Cause::Float { table } => format!("table {table}'s float"),
        Cause::Wager { table, wager } => format!("table {table} wager {wager}"),
        Cause::Tournament { seq } => format!("the tournament money of the casino's chain record {seq}"),
        Cause::Promotion { seq } => format!("the promotional prizes of the casino's chain record {seq}"),
        Cause::Slip { table, first, .. } => format!("a bet slip's answer (table {table}, from wager {first})"),
        Cause::Bank { seq } => format!("the bank's money of the casino's chain record {seq}"),
        Cause::Cage { seq } => format!("the cage's movement of the casino's chain record {seq}"),
        Cause::Closed { table } => format!("table {table}'s close (its money back to the cage)"),
    }
}
