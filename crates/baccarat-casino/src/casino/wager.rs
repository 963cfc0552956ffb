//! Money into a wallet and onto a table: a deposit from the cage, and one
//! wager placed (the wallet or the player's tokens hold the stake, the float
//! covers what it could win, the engine decides). A bet slip places its
//! lines through [`Casino::wager`] (`slip.rs`); a partition brings the
//! money from the bank first (`funding.rs`).

use baccarat_core::TableId;
use baccarat_rules::Money;
use baccarat_table::{Command, Event, PlayerId};
use sha2::{Digest, Sha256};

use super::into_play::IntoPlay;
use super::protocol::{client_key, deposit_key};
use super::self_limits::PlayDay;
use super::{halted, no_table, settling, Actor, Casino, Code, Reply, SlipLine, MAX_WAGERS_PER_COUP};
use crate::audit::CasinoEvent;
use crate::float::max_win;
use crate::ledger::keys::IdempotencyKey;
use crate::ledger::{AccountId, AccountKind, Cause, Ledger, LedgerError, Op};
use crate::store::Commit;

impl Casino {
    /// Chips from the cage, recorded in the casino's chain first: the record's
    /// sequence number is the transfer's cause. A retried key answers again and
    /// records nothing.
    pub(super) fn deposit(
        &mut self,
        player: PlayerId,
        amount: Money,
        key: IdempotencyKey,
        commit: &mut Commit,
    ) -> Reply {
        if let Some(p) = &self.bank.partition {
            return Reply::refused(
                Code::Wallet,
                format!("this server serves partition {p}, whose players' money comes from the bank: deposit there"),
            );
        }
        let ledger_key = deposit_key(player, key.as_str());
        let wallet = self.wallet(player);
        let fresh = match self.ledger.answer(&ledger_key) {
            Ok(a) => a.is_none(),
            Err(e) => return e.into(),
        };
        let seq = self.chain.len() + 1;
        let request: [u8; 32] = Sha256::digest(format!("deposit|{player}|{}", amount.0)).into();
        let (a, ch) = self.ledger.apply_bound(
            &ledger_key,
            request,
            &[Op::Transfer { debit: self.cage, credit: wallet, amount, memo: "chips".into() }],
            Cause::Deposit { seq },
        );
        commit.ledger.push(ch);
        match a {
            Ok(_) => {
                if fresh {
                    let at_ms = Some((self.clock)());
                    let recorded = self
                        .casino_event(CasinoEvent::Deposit { player, amount, key: key.into_string(), at_ms }, commit);
                    debug_assert_eq!(recorded, seq);
                }
                Reply::Deposit { balance: self.balance(player).map_or(Money::ZERO, |b| b.0) }
            }
            Err(LedgerError::KeyReused(_)) => LedgerError::KeyReused(key.into_string()).into(),
            Err(e) => e.into(),
        }
    }

    /// Place one wager: the wallet (or, for `IntoPlay::TokenWager`, the
    /// player's promotional tokens) holds the stake and any ante (AU 14.5),
    /// the player's own limits admit it (`into_play.rs`: `what` names the
    /// way in), the float covers what it could win, then the engine decides.
    /// `key` (the ledger's) is bound to `request`: a retry of the same
    /// request answers the first wager, and the key with another request is
    /// refused, naming it.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn wager(
        &mut self,
        table: TableId,
        player: PlayerId,
        line: SlipLine,
        key: Option<&str>,
        request: [u8; 32],
        what: IntoPlay,
        commit: &mut Commit,
    ) -> Reply {
        let Admitted { kind, wallet, held, day, most } = match self.admit_wager(table, player, line, key, request, what)
        {
            Ok(a) => a,
            Err(answer) => return answer,
        };
        let SlipLine { spot, bet, amount, ante } = line;
        let token = what == IntoPlay::TokenWager;
        let t = self.tables.get_mut(&table).expect("checked above");
        let at_ms = Some((self.clock)());
        let cmd = Command::PlaceWager { player, spot, bet, amount, ante, token, at_ms };
        let events = match t.engine.execute(cmd) {
            Ok(ev) => ev,
            Err(r) => return r.into(),
        };
        let Some(Event::WagerPlaced { wager }) = events.first() else {
            return Reply::refused(Code::Engine, "no wager placed");
        };
        let id = wager.id;
        let escrow = t.accounts.escrow;
        let hold =
            [Op::Hold { debit: wallet, credit: escrow, amount: held, memo: format!("table {table} wager {id}") }];
        let (a, ch) = match key {
            Some(key) => self.ledger.apply_bound(key, request, &hold, Cause::Wager { table, wager: id }),
            None => self.ledger.apply_internal(&hold, Cause::Wager { table, wager: id }),
        };
        let t = self.tables.get_mut(&table).expect("table");
        let hold = match a {
            Ok(ids) => ids[0],
            Err(e) => {
                // The wallet was checked in this same writer: a refusal here is a
                // broken invariant. Stop this table, name it, go on with the rest.
                return t.halt(format!("the ledger refused wager {id}'s hold: {e}"), commit);
            }
        };
        commit.ledger.push(ch);
        t.holds.insert(id, (hold, wallet, most));
        t.liability = t.liability + most;
        t.record(&events, Actor::Server, commit);
        self.open_play_day(player, day, commit);
        Reply::Wager { wager: id, balance: available(&self.ledger, &kind) }
    }

    /// Every check of [`Casino::wager`] before the engine's, in order: the
    /// table, a retry, the table taking wagers, room in the coup, the money,
    /// the player's own limits, the float. `Err`: the answer without a new
    /// wager (a retry's first answer, or a refusal).
    fn admit_wager(
        &mut self,
        table: TableId,
        player: PlayerId,
        line: SlipLine,
        key: Option<&str>,
        request: [u8; 32],
        what: IntoPlay,
    ) -> Result<Admitted, Reply> {
        let SlipLine { bet, amount, ante, .. } = line;
        let token = what == IntoPlay::TokenWager;
        if !self.tables.contains_key(&table) {
            return Err(no_table(table));
        }
        // The account is opened only for a wager that gets past the table's
        // own refusals: a refused request writes nothing (`http/early.rs`).
        let kind = if token { AccountKind::Tokens { player } } else { AccountKind::Wallet { player } };
        if let Some(first) = self.wager_retried(table, key, request, &kind) {
            return Err(first);
        }
        if let Some(r) = self.not_taking_wagers(table) {
            return Err(r);
        }
        let wallet = if token { self.tokens(player) } else { self.wallet(player) };
        let t = self.tables.get_mut(&table).expect("checked above");
        if t.engine.state().coup.wagers.len() >= MAX_WAGERS_PER_COUP {
            return Err(Reply::refused(Code::Bounds, format!("this coup already holds {MAX_WAGERS_PER_COUP} wagers")));
        }
        let held = amount + ante;
        if ante < Money::ZERO || available(&self.ledger, &kind) < held {
            // An amount the table refuses whatever the wallet holds is named
            // by the table's rule, not as a short wallet: at a partition no
            // money is brought from the bank for it (`casino/funding.rs`), so
            // the wallet here is short of it. (Otherwise the player's own
            // limits come first: on a break, they hear that.)
            if let Err(r) = t.engine.screen_wager(player, bet, amount) {
                return Err(r.into());
            }
            let short = format!("available {} is less than {held}", available(&self.ledger, &kind));
            return Err(Reply::refused(Code::Wallet, short));
        }
        // The player's own limits (`into_play.rs`), after the wallet so
        // that a wager the wallet cannot hold is named as such.
        let day = self.admit_into_play(what, player, held)?;
        let most = self.float_covers(table, line)?;
        Ok(Admitted { kind, wallet, held, day, most })
    }

    /// A retry: the ledger knows the key; its first wager's answer, or the
    /// key refused as used for another request. (A slip's line has no key
    /// of its own: its slip answers for it.) `None`: not a retry.
    fn wager_retried(
        &mut self,
        table: TableId,
        key: Option<&str>,
        request: [u8; 32],
        kind: &AccountKind,
    ) -> Option<Reply> {
        let bound = match key.map(|k| self.ledger.bound(k)) {
            Some(Ok(b)) => b,
            Some(Err(e)) => return Some(e.into()),
            None => None,
        };
        let (Some((seen, prev, cause)), Some(key)) = (bound, key) else { return None };
        if seen != request {
            return Some(LedgerError::KeyReused(client_key(key).to_string()).into());
        }
        Some(match prev {
            Ok(_) => match cause {
                Cause::Wager { table: tb, wager } if tb == table => {
                    Reply::Wager { wager, balance: available(&self.ledger, kind) }
                }
                _ => Reply::refused(Code::Idempotency, format!("key {:?} answered another request", client_key(key))),
            },
            Err(e) => e.into(),
        })
    }

    /// The float covers everything the coup's wagers could win (`float.rs`):
    /// this wager's largest win, which the table's liability takes on.
    fn float_covers(&self, table: TableId, line: SlipLine) -> Result<Money, Reply> {
        let SlipLine { bet, amount, ante, .. } = line;
        let t = &self.tables[&table];
        let most = max_win(&t.engine.setup().config, bet, amount, ante).unwrap_or(Money::ZERO);
        let float = Money(self.ledger.account(t.accounts.house).map_or(0, |a| a.available()));
        if t.liability + most > float {
            return Err(Reply::refused(Code::Float, format!(
                    "table {table}'s float of {float} cannot cover this wager's largest win of {most} with the {} the coup's wagers could already win",
                    t.liability
                )));
        }
        Ok(most)
    }

    /// Why table `table` (which exists) takes no new wager now, if it does
    /// not: halted, settling, closing or closed for good (`closing.rs`), or
    /// closed to wagers. Closed to wagers comes
    /// before the wallet and the float: it is the refusal the HTTP threads
    /// give without the writer (`http/early.rs`). A partition brings no money
    /// from the bank for a wager refused so (`casino/funding.rs`).
    pub(super) fn not_taking_wagers(&self, table: TableId) -> Option<Reply> {
        let t = &self.tables[&table];
        if let Some(why) = &t.halted {
            return Some(halted(table, why));
        }
        if t.engine.settling() {
            return Some(settling(table));
        }
        if let Some(r) = t.closure.wager_refusal(table) {
            return Some(r);
        }
        t.engine.wagers_closed(Some((self.clock)())).map(Reply::from)
    }
}

/// What a wager [`Casino::admit_wager`] admitted brings to the engine and
/// the ledger.
struct Admitted {
    /// The account the stake is held from: the wallet, or the tokens.
    kind: AccountKind,
    wallet: AccountId,
    /// The stake and any ante.
    held: Money,
    /// The day the stake opens, if it opens one.
    day: Option<PlayDay>,
    /// The wager's largest win, which the float covers.
    most: Money,
}

/// What `kind`'s account has available (nothing, if it is not open).
fn available(l: &Ledger, kind: &AccountKind) -> Money {
    Money(l.find(kind).and_then(|a| l.account(a)).map_or(0, |a| a.available()))
}
