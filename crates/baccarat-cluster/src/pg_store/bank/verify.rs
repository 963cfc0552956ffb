//! Verify the bank from its chain alone: every record links and hashes, every
//! move is one the bank could have made (no wallet below zero at any point,
//! an allotment or a return naming the lease epoch it was made under), each record's
//! stated balances are what the moves before it leave, and the balances the
//! database holds now are what the whole chain leaves. A forger who changes
//! a balance or a position, or drops or edits a move, is named.
//!
//! It reads one snapshot (a read-only repeatable-read transaction) and
//! streams the chain, keeping only the balances: its memory grows with the
//! players and partitions, not with the moves.

use std::collections::BTreeMap;

use postgres::fallible_iterator::FallibleIterator;
use postgres::{Client, IsolationLevel};

use super::moves::decode;
use super::{BankError, MoveBody, MoveKind, SCHEMA};
use crate::audit::Chain;

/// What the bank holds, as its chain says, and what is wrong with it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BankReport {
    /// Records in the chain.
    pub moves: u64,
    /// The chain's last hash.
    pub head: String,
    /// Money at the bank, all players together.
    pub at_bank: i64,
    /// Each partition's net: allotted less returned (below zero when its
    /// players took home more than it was allotted: their winnings).
    pub allotted: BTreeMap<String, i64>,
    pub deposited: i64,
    pub withdrawn: i64,
    /// Deposits and withdrawals made at no partition's cage, in words. The
    /// servers make every one at a partition's cage, in that partition's
    /// own transaction, whose chain its anchor file signs; one made
    /// elsewhere is in no anchored chain, as money minted or taken by hand
    /// at the bank would be. Not a fault of the bank's own chain, so not in
    /// `problems`: `verify --partition` counts them as problems
    /// ([`check_partition`]).
    pub uncaged: Vec<String>,
    /// Every fault found, each naming where; empty for a sound bank.
    pub problems: Vec<String>,
}

impl BankReport {
    pub fn ok(&self) -> bool {
        self.problems.is_empty()
    }
}

/// Verify the bank on `client`'s database.
pub fn verify(client: &mut Client) -> Result<BankReport, BankError> {
    let mut tx = client.build_transaction().isolation_level(IsolationLevel::RepeatableRead).read_only(true).start()?;
    let mut report = BankReport::default();
    let mut tally = Tally::default();
    let mut chain = Chain::new();
    let no_params: [i64; 0] = [];
    let mut rows =
        tx.query_raw(&format!("SELECT seq, prev, body, hash, ref FROM {SCHEMA}.log ORDER BY seq"), no_params)?;
    while let Some(r) = rows.next()? {
        let record = crate::pg_store::record_of(&r);
        if let Err(b) = chain.follow(&record) {
            report.problems.push(format!("the bank's chain: {b}"));
            break;
        }
        let body = match decode(&record) {
            Ok(b) => b,
            Err(e) => {
                report.problems.push(e.to_string());
                break;
            }
        };
        let at = format!("the bank's record {}", record.seq);
        let m = &body.bank;
        let reference: String = r.get(4);
        if reference != m.reference {
            report
                .problems
                .push(format!("{at}: filed under ref {reference:?}, but its move's ref is {:?}", m.reference));
        }
        if let Err(e) = super::check(m) {
            report.problems.push(format!("{at}: not a move the bank takes: {e}"));
            continue;
        }
        tally.apply(&at, &body, &mut report);
    }
    drop(rows);
    report.moves = chain.len();
    report.head = chain.head();
    report.at_bank = tally.wallets.values().sum();
    for ((p, _), amount) in &tally.positions {
        *report.allotted.entry(p.clone()).or_insert(0) += amount;
    }
    compare_rows(&mut tx, &mut report, &tally.wallets, &tally.positions)?;
    compare_days(&mut tx, &mut report, &tally.days)?;
    tx.commit()?;
    Ok(report)
}

/// What the bank's chain leaves, move by move: each player's wallet, each
/// partition's position for each player, and each player's money gone out
/// to tables each day (with the day's first allotment).
#[derive(Default)]
struct Tally {
    wallets: BTreeMap<u32, i64>,
    positions: BTreeMap<(String, u32), i64>,
    days: BTreeMap<(u32, u64), (i64, Option<u64>)>,
}

impl Tally {
    /// One move the bank takes (record `at`): what it leaves, against what
    /// its record says it left, and what the report counts of it.
    fn apply(&mut self, at: &str, body: &MoveBody, report: &mut BankReport) {
        let m = &body.bank;
        let wallet = self.wallets.entry(m.player).or_insert(0);
        *wallet = if m.kind.debits_wallet() { *wallet - m.amount } else { *wallet + m.amount };
        if *wallet < 0 {
            report.problems.push(format!("{at}: player {} overdrawn at the bank ({})", m.player, *wallet));
        }
        if body.wallet != *wallet {
            report
                .problems
                .push(format!("{at}: says the wallet was left at {}, the moves leave {}", body.wallet, *wallet));
        }
        if let Some(d) = m.loss_day {
            self.day(at, body, d, report);
        }
        if m.kind.has_position() && body.epoch.is_none() {
            report.problems.push(format!("{at}: names no lease epoch"));
        }
        if !m.kind.has_position() && m.partition.is_none() {
            report.uncaged.push(format!(
                "{at}: a {:?} of {} for player {} made at no partition's cage (no anchored chain records it)",
                m.kind, m.amount, m.player
            ));
        }
        match m.kind {
            MoveKind::Deposit => report.deposited += m.amount,
            MoveKind::Withdrawal => report.withdrawn += m.amount,
            MoveKind::Allot | MoveKind::Return => {
                let p = m.partition.clone().unwrap_or_default();
                let position = self.positions.entry((p.clone(), m.player)).or_insert(0);
                *position += if m.kind == MoveKind::Allot { m.amount } else { -m.amount };
                if body.position != Some(*position) {
                    report.problems.push(format!(
                        "{at}: says the position was left at {:?}, the moves leave {}",
                        body.position, *position
                    ));
                }
            }
        }
    }

    /// The player's day `d`: out adds, back takes, never below zero; the
    /// day's first allotment, as the record states it; the loss limit the
    /// move was made under.
    fn day(&mut self, at: &str, body: &MoveBody, d: super::LossDay, report: &mut BankReport) {
        let m = &body.bank;
        let (net, first) = self.days.entry((m.player, d.day)).or_insert((0, None));
        *net = (*net + if m.kind == MoveKind::Allot { m.amount } else { -m.amount }).max(0);
        if let Some(t) = d.at_ms {
            *first = Some(first.map_or(t, |f| f.min(t)));
            if body.day_first_ms != *first {
                report.problems.push(format!(
                    "{at}: says the day's first allotment was at {:?}, the moves say {:?}",
                    body.day_first_ms, *first
                ));
            }
        }
        if matches!(d.limit, Some(l) if *net > l) {
            report.problems.push(format!(
                "{at}: player {}'s money at tables on day {} reached {}, past the loss limit of {} it was allotted under",
                m.player, d.day, *net, d.limit.unwrap_or_default()
            ));
        }
    }
}

/// The balances the database holds now, against the chain's.
fn compare_rows(
    tx: &mut postgres::Transaction<'_>,
    report: &mut BankReport,
    wallets: &BTreeMap<u32, i64>,
    positions: &BTreeMap<(String, u32), i64>,
) -> Result<(), BankError> {
    let head = tx.query_one(&format!("SELECT seq, hash FROM {SCHEMA}.head"), &[])?;
    let (seq, hash): (i64, String) = (head.get(0), head.get(1));
    if seq as u64 != report.moves || hash != report.head {
        report.problems.push(format!(
            "the bank's head row says record {seq} ({hash}), the chain ends at {} ({})",
            report.moves, report.head
        ));
    }
    let mut held: BTreeMap<u32, i64> = BTreeMap::new();
    for r in tx.query(&format!("SELECT player, balance FROM {SCHEMA}.wallets"), &[])? {
        held.insert(r.get::<_, i64>(0) as u32, r.get(1));
    }
    for p in wallets.keys().chain(held.keys()).collect::<std::collections::BTreeSet<_>>() {
        let (chain, row) = (wallets.get(p).copied().unwrap_or(0), held.get(p).copied().unwrap_or(0));
        if chain != row {
            report.problems.push(format!("player {p}: the bank holds {row}, its chain says {chain}"));
        }
    }
    let mut rows: BTreeMap<(String, u32), i64> = BTreeMap::new();
    for r in tx.query(&format!("SELECT partition, player, amount FROM {SCHEMA}.positions"), &[])? {
        rows.insert((r.get(0), r.get::<_, i64>(1) as u32), r.get(2));
    }
    for k in positions.keys().chain(rows.keys()).collect::<std::collections::BTreeSet<_>>() {
        let (chain, row) = (positions.get(k).copied().unwrap_or(0), rows.get(k).copied().unwrap_or(0));
        if chain != row {
            report
                .problems
                .push(format!("partition {} holds {row} of player {}'s money, its chain says {chain}", k.0, k.1));
        }
    }
    Ok(())
}

/// Each player's money at tables each day, as the database holds it, against
/// the chain's count (a forger who lowers it would buy a player more than
/// their loss limit).
fn compare_days(
    tx: &mut postgres::Transaction<'_>,
    report: &mut BankReport,
    days: &BTreeMap<(u32, u64), (i64, Option<u64>)>,
) -> Result<(), BankError> {
    let mut rows: BTreeMap<(u32, u64), (i64, Option<u64>)> = BTreeMap::new();
    for r in tx.query(&format!("SELECT player, day, net, first_ms FROM {SCHEMA}.days"), &[])? {
        let first: Option<i64> = r.get(3);
        rows.insert((r.get::<_, i64>(0) as u32, r.get::<_, i64>(1) as u64), (r.get(2), first.map(|f| f as u64)));
    }
    for k in days.keys().chain(rows.keys()).collect::<std::collections::BTreeSet<_>>() {
        let (chain, row) = (days.get(k).copied().unwrap_or((0, None)), rows.get(k).copied().unwrap_or((0, None)));
        if chain.0 != row.0 {
            report.problems.push(format!(
                "player {} on day {}: the bank counts {} gone out to tables, its chain says {}",
                k.0, k.1, row.0, chain.0
            ));
        }
        if chain.1 != row.1 {
            report.problems.push(format!(
                "player {} on day {}: the bank has the day's first allotment at {:?}, its chain says {:?}",
                k.0, k.1, row.1, chain.1
            ));
        }
    }
    Ok(())
}

/// Whether partition `partition`'s books (on `client`, connected through
/// the partition's URL) agree with the bank's, record by record, from one
/// snapshot: each `allotted` record of the partition's chain is the bank's
/// allotment it names (number, hash, player, amount), each `returned` or
/// `caged` record is the bank's return or deposit under its reference, and
/// every move the bank made for the partition (a deposit at its cage
/// included) is in its books, but for allotments after the
/// last one it recorded (a stop between the bank's transaction and its own:
/// its next start takes them; noted, not a difference). Its ledger's
/// account at the bank must then stand at minus its net position there.
/// The notes, then each disagreement in words.
pub fn partition_agrees(client: &mut Client, partition: &str) -> Result<(Vec<String>, Vec<String>), BankError> {
    let mut tx = client.build_transaction().isolation_level(IsolationLevel::RepeatableRead).read_only(true).start()?;
    let kind = serde_json::to_string(&crate::ledger::AccountKind::Bank).expect("a kind serialises");
    let here: i64 = tx.query_opt("SELECT balance FROM accounts WHERE kind = $1", &[&kind])?.map_or(0, |r| r.get(0));
    let net: i64 = tx
        .query_one(
            &format!("SELECT COALESCE(SUM(amount), 0)::bigint FROM {SCHEMA}.positions WHERE partition = $1"),
            &[&partition],
        )?
        .get(0);
    let (mut moves, by_ref) = moves_for(&mut tx, partition)?;
    let (mut notes, mut problems) = (Vec::new(), Vec::new());
    let last = match_books(&mut tx, partition, &mut moves, &by_ref, &mut problems)?;
    let mut unrecorded = (Vec::new(), 0i64);
    for (seq, (b, _, seen)) in &moves {
        match (seen, b.bank.kind) {
            (true, _) => {}
            (false, MoveKind::Allot) if *seq > last => {
                unrecorded.0.push(*seq);
                unrecorded.1 += b.bank.amount;
            }
            (false, kind) => problems.push(format!(
                "partition {partition}: the bank's record {seq} ({kind:?} of {} for player {}) is not in its books",
                b.bank.amount, b.bank.player
            )),
        }
    }
    if !unrecorded.0.is_empty() {
        notes.push(format!(
            "partition {partition}: the bank's allotments {:?} ({}) are not in its books yet (a stop between the bank's transaction and its own; its next start takes them)",
            unrecorded.0, unrecorded.1
        ));
    }
    if net != unrecorded.1 - here {
        problems.push(format!(
            "partition {partition}: its account at the bank stands at {here}, but the bank's positions for it net {net} ({} of them not yet recorded by it)",
            unrecorded.1
        ));
    }
    tx.commit()?;
    Ok((notes, problems))
}

/// The bank's moves for a partition, by number: (body, hash, seen in the
/// partition's books).
type Moves = BTreeMap<u64, (MoveBody, String, bool)>;

/// The bank's moves for `partition`, and their numbers by reference.
fn moves_for(
    tx: &mut postgres::Transaction<'_>,
    partition: &str,
) -> Result<(Moves, std::collections::HashMap<String, u64>), BankError> {
    let mut moves: Moves = BTreeMap::new();
    let mut by_ref = std::collections::HashMap::new();
    let rows = tx.query(
        &format!("SELECT seq, prev, body, hash FROM {SCHEMA}.log WHERE partition = $1 ORDER BY seq"),
        &[&partition],
    )?;
    for r in rows {
        let rec = crate::pg_store::record_of(&r);
        let b = decode(&rec)?;
        by_ref.insert(b.bank.reference.clone(), rec.seq);
        moves.insert(rec.seq, (b, rec.hash, false));
    }
    Ok((moves, by_ref))
}

/// Each allotment, deposit at its cage and return in the partition's chain,
/// matched with the bank's move (marked seen); one the bank has not made is
/// a problem. The last allotment's number at the bank.
fn match_books(
    tx: &mut postgres::Transaction<'_>,
    partition: &str,
    moves: &mut Moves,
    by_ref: &std::collections::HashMap<String, u64>,
    problems: &mut Vec<String>,
) -> Result<u64, BankError> {
    use crate::audit::{Body, CasinoEvent, CASINO_CHAIN};
    let mut last = 0u64;
    let rows = tx.query(
        "SELECT seq, body FROM audit_all WHERE tbl = $1 AND (body LIKE '%\"allotted\"%' OR body LIKE '%\"returned\"%' OR body LIKE '%\"caged\"%') ORDER BY seq",
        &[&i64::from(CASINO_CHAIN)],
    )?;
    for r in rows {
        let (at, body): (i64, String) = (r.get(0), r.get(1));
        let at = format!("partition {partition}: its chain's record {at}");
        match Body::decode(&body).ok().and_then(|b| b.casino) {
            Some(CasinoEvent::Allotted { player, amount, bank_seq, bank_hash, .. }) => {
                last = last.max(bank_seq);
                match moves.get_mut(&bank_seq) {
                    Some((b, hash, seen))
                        if b.bank.kind == MoveKind::Allot
                            && b.bank.player == player.0
                            && b.bank.amount == amount.0
                            && *hash == bank_hash
                            && !*seen =>
                    {
                        *seen = true
                    }
                    _ => problems.push(format!(
                        "{at}: an allotment of {amount} to player {player} as the bank's record {bank_seq}, which the bank has not made for it"
                    )),
                }
            }
            Some(CasinoEvent::Caged { player, amount, reference, .. })
                if !take(moves, by_ref, MoveKind::Deposit, player.0, amount.0, &reference) =>
            {
                problems.push(format!(
                    "{at}: {amount} for player {player} paid in at its cage under {reference:?}, which the bank has not taken"
                ))
            }
            Some(CasinoEvent::Returned { player, amount, reference })
                if !take(moves, by_ref, MoveKind::Return, player.0, amount.0, &reference) =>
            {
                problems.push(format!(
                    "{at}: {amount} of player {player} given back under {reference:?}, which the bank has not taken"
                ))
            }
            _ => {}
        }
    }
    Ok(last)
}

/// Mark the bank's move under `reference` seen, if it is the `kind` of
/// `amount` for `player` and not seen before: whether it was.
fn take(
    moves: &mut BTreeMap<u64, (super::MoveBody, String, bool)>,
    by_ref: &std::collections::HashMap<String, u64>,
    kind: MoveKind,
    player: u32,
    amount: i64,
    reference: &str,
) -> bool {
    match by_ref.get(reference).and_then(|s| moves.get_mut(s)) {
        Some((b, _, seen)) if b.bank.kind == kind && b.bank.player == player && b.bank.amount == amount && !*seen => {
            *seen = true;
            true
        }
        _ => false,
    }
}

/// [`verify`] and [`partition_agrees`] on a connection of their own to the
/// partition's URL: the bank's report, the notes and the problems (a deposit
/// or a withdrawal at no partition's cage among them: `BankReport::uncaged`).
pub fn check_partition(url: &str, partition: &str) -> Result<(BankReport, Vec<String>, Vec<String>), BankError> {
    let mut c = crate::pg_store::connect_client(url)?;
    let report = verify(&mut c)?;
    let (notes, mut problems) = partition_agrees(&mut c, partition)?;
    problems.extend(report.uncaged.iter().cloned());
    Ok((report, notes, problems))
}
