//! Promotional prizes at the casino (NSW 16): published from a terms file
//! with a commitment to the draw's seed, drawn from the entries the audit log
//! gives (`promotion_entries.rs`), cash prizes paid from the cage into the
//! winners' wallets, and refused claims kept (NSW 16.9).
//!
//! # Design
//!
//! Publishing draws a seed from the OS and records it with its SHA-256
//! commitment in the casino's chain; every viewer sees the commitment only
//! (`Body::blanked`, the pages) until the draw records the seed in the open.
//! The seed is drawn at publication, which must be before entries close, so
//! the commitment is public before anyone could know the entries. The draw
//! is `baccarat_table::draw` over the entries counted from the log by the
//! HTTP layer on a read connection (never from a client), after the draw's
//! time (NSW 16.7.7). A prize over $10,000 needs a scrutineer named at the
//! draw or in the terms (NSW 16.2). A cash prize is credited to the winner's
//! wallet from the cage, from which the winner takes it as cash, cheque or
//! transfer as they choose (NSW 16.4); a prize of promotional tokens is
//! issued into the winner's token account, to be wagered at a table (NSW 1.1;
//! winnings in chips); any other prize is recorded as won and is claimed as
//! the terms say (NSW 16.7.8), with a cash alternative where the terms offer
//! one (NSW 16.3). `verify` counts the entries again from the
//! log and draws again from the revealed seed.

use baccarat_rules::promotion::{PrizeKind, Terms, LARGE_PRIZE};
use baccarat_rules::Money;
use baccarat_table::draw::{draw, listing};
use baccarat_table::PlayerId;
use baccarat_table::{hex, Seed};
use serde::{Deserialize, Serialize};

use super::{Casino, Code, Commit, Reply};
use crate::audit::{CasinoEvent, PromotionWinner};
use crate::ledger::{Cause, Op};

/// A promotion's recorded terms no longer check (a rulebook change, or a
/// corrupt record): named, with the problems.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("promotion {id}: its recorded terms no longer check: {problems}")]
pub struct PromotionStateError {
    pub id: u32,
    pub problems: baccarat_rules::Problems,
}

/// Most promotions a casino keeps.
pub const MAX_PROMOTIONS: usize = 1_000;

/// Longest text of a refused claim's field.
pub const MAX_CLAIM_TEXT: usize = 1_000;

/// A refused claim (NSW 16.9.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct RefusedClaim {
    pub claimant: String,
    pub address: String,
    pub value: Money,
    pub reasons: String,
}

/// A promotion's draw, once made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Drawn {
    pub entries: u64,
    pub entries_sha256: String,
    pub seed: Seed,
    pub scrutineer: Option<String>,
    pub winners: Vec<PromotionWinner>,
    /// Prizes claimed (by their place in `winners`), and whether as the cash
    /// alternative (NSW 16.3).
    #[serde(default)]
    pub claimed: std::collections::BTreeMap<u32, bool>,
}

/// A promotion as the casino keeps it (and a checkpoint holds it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromotionState {
    pub id: u32,
    pub terms: String,
    pub commitment: String,
    /// Secret until the draw.
    pub seed: Option<Seed>,
    pub drawn: Option<Drawn>,
    pub refused: Vec<RefusedClaim>,
}

/// A promotion with its terms read.
#[derive(Clone, Debug)]
pub struct Promotion {
    pub state: PromotionState,
    pub terms: Terms,
}

impl Promotion {
    pub fn of(state: PromotionState) -> Result<Promotion, PromotionStateError> {
        let terms =
            Terms::from_toml(&state.terms).map_err(|problems| PromotionStateError { id: state.id, problems })?;
        Ok(Promotion { state, terms })
    }

    /// What the pages show: the terms' summary, the commitment, and after
    /// the draw the seed, the entries' digest and the winners.
    pub fn public(&self) -> PromotionView {
        let s = &self.terms.spec;
        let prizes = self
            .terms
            .draws()
            .iter()
            .map(|p| PrizeView { description: p.description.clone(), kind: p.kind, value: Money(p.value) })
            .collect();
        PromotionView {
            promotion: self.state.id,
            name: s.name.clone(),
            closes: s.closes.clone(),
            draw_at: s.draw_at.clone(),
            draw_place: s.draw_place.clone(),
            commitment: self.state.commitment.clone(),
            prizes,
            drawn: self.state.drawn.as_ref().map(|d| DrawnView {
                entries: d.entries,
                entries_sha256: d.entries_sha256.clone(),
                seed: d.seed,
                scrutineer: d.scrutineer.clone(),
                winners: d.winners.clone(),
            }),
            terms: None,
        }
    }
}

/// A promotion as the public sees it (`GET /api/promotions`, NSW 16.6).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct PromotionView {
    pub promotion: u32,
    pub name: String,
    /// When entries close, and when and where the draw is, as the terms say.
    pub closes: String,
    pub draw_at: String,
    pub draw_place: String,
    /// The SHA-256 of the draw's seed, published before entries close.
    pub commitment: String,
    pub prizes: Vec<PrizeView>,
    /// Once drawn: the entries, their digest, the seed and the winners.
    pub drawn: Option<DrawnView>,
    /// The terms as published (TOML): in one promotion's answer only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terms: Option<String>,
}

/// A prize of the draw (NSW 16.3).
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct PrizeView {
    pub description: String,
    pub kind: PrizeKind,
    pub value: Money,
}

/// A draw made: anyone can check the winners from the seed and the entries.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
pub struct DrawnView {
    pub entries: u64,
    pub entries_sha256: String,
    pub seed: baccarat_table::Seed,
    pub scrutineer: Option<String>,
    pub winners: Vec<PromotionWinner>,
}

fn no_promotion(id: u32) -> Reply {
    Reply::refused(Code::NoPromotion, format!("no promotion {id}"))
}

impl Casino {
    fn promotion_step(&mut self, e: CasinoEvent, ops: Vec<Op>, commit: &mut Commit) -> Result<(), Reply> {
        self.record_casino(&e, ops, |seq| Cause::Promotion { seq }, None, commit)?;
        apply(&mut self.promotions, &e);
        Ok(())
    }

    /// Publish a promotion from its terms, before entries close, with the
    /// commitment to its draw's seed.
    pub(super) fn create_promotion(&mut self, terms: String, commit: &mut Commit) -> Reply {
        if self.promotions.len() >= MAX_PROMOTIONS {
            return Reply::refused(Code::Bounds, format!("a casino keeps at most {MAX_PROMOTIONS} promotions"));
        }
        let t = match Terms::from_toml(&terms) {
            Ok(t) => t,
            Err(p) => return Reply::refused(Code::Config, p.to_string()),
        };
        if (self.clock)() >= t.closes_ms {
            return Reply::by_rule(
                "NSW 16.7.6",
                format!("entries close at {}: the draw's commitment must be published before", t.spec.closes),
            );
        }
        let seed = match baccarat_core::os_seed() {
            Ok(s) => s,
            Err(m) => return Reply::refused(Code::Entropy, m.to_string()),
        };
        let id = self.promotions.keys().next_back().map_or(1, |k| k + 1);
        let e = CasinoEvent::PromotionPublished {
            promotion: id,
            terms,
            commitment: seed.commitment_hex(),
            seed: Some(seed),
        };
        match self.promotion_step(e, Vec::new(), commit) {
            Ok(()) => Reply::Promotion { promotion: id },
            Err(r) => r,
        }
    }

    /// Draw a promotion from `entries` (counted from the log by the caller),
    /// paying its cash prizes.
    pub(super) fn draw_promotion(
        &mut self,
        id: u32,
        entries: Vec<(PlayerId, u64)>,
        scrutineer: Option<String>,
        commit: &mut Commit,
    ) -> Reply {
        let Some(p) = self.promotions.get(&id) else { return no_promotion(id) };
        if p.state.drawn.is_some() {
            return Reply::by_rule("NSW 16.7.1", format!("promotion {id} is drawn already"));
        }
        let spec = &p.terms.spec;
        if (self.clock)() < p.terms.draw_ms {
            return Reply::by_rule("NSW 16.7.7", format!("the draw is at {}, {}", spec.draw_at, spec.draw_place));
        }
        let scrutineer = scrutineer.filter(|s| !s.trim().is_empty()).or_else(|| spec.scrutineer.clone());
        if scrutineer.as_ref().is_some_and(|s| s.len() > MAX_CLAIM_TEXT) {
            return Reply::refused(Code::Bounds, format!("scrutineer: at most {MAX_CLAIM_TEXT} bytes"));
        }
        let draws = p.terms.draws();
        if scrutineer.is_none() && draws.iter().any(|d| Money(d.value) > LARGE_PRIZE) {
            return Reply::by_rule(
                "NSW 16.2",
                format!("a prize is worth over {LARGE_PRIZE}: name the scrutineer overseeing the draw"),
            );
        }
        let Some(seed) = p.state.seed else {
            return Reply::refused(Code::Config, format!("promotion {id}: its seed is not held"));
        };
        let (_, digest) = listing(&entries);
        let total: u64 = entries.iter().map(|(_, n)| n).sum();
        let won = draw(&entries, &seed, draws.len(), spec.one_prize_per_player);
        let winners: Vec<PromotionWinner> = won
            .iter()
            .zip(&draws)
            .enumerate()
            .map(|(i, (player, d))| PromotionWinner {
                prize: i as u32,
                description: d.description.clone(),
                player: *player,
                value: Money(d.value),
                paid: if d.kind == PrizeKind::Cash { Money(d.value) } else { Money::ZERO },
                tokens: if d.kind == PrizeKind::PromotionalTokens { Money(d.value) } else { Money::ZERO },
            })
            .collect();
        let ops = self.prize_payments(id, &winners);
        let e = CasinoEvent::PromotionDrawn {
            promotion: id,
            entries: total,
            entries_sha256: hex(&digest),
            seed,
            scrutineer,
            winners,
        };
        match self.promotion_step(e, ops, commit) {
            Ok(()) => Reply::Promotion { promotion: id },
            Err(r) => r,
        }
    }

    /// The draw's payments, in the winners' order: a cash prize from the
    /// cage to the wallet, promotional tokens from the issuer (NSW 1.1);
    /// the accounts opened as needed.
    fn prize_payments(&mut self, id: u32, winners: &[PromotionWinner]) -> Vec<Op> {
        let mut ops = Vec::new();
        for w in winners {
            let memo = format!("promotion {id}: {}", w.description);
            if w.paid.0 > 0 {
                let wallet = self.wallet(w.player);
                ops.push(Op::Transfer { debit: self.cage, credit: wallet, amount: w.paid, memo: memo.clone() });
            }
            if w.tokens.0 > 0 {
                let tokens = self.tokens(w.player);
                let issuer = self.ledger.open(crate::ledger::AccountKind::TokenIssuer);
                ops.push(Op::Transfer { debit: issuer, credit: tokens, amount: w.tokens, memo });
            }
        }
        ops
    }

    /// A winner claims a prize that is not cash (NSW 16.7.8): the prize, or
    /// its cash alternative where the terms offer one (NSW 16.3), paid from
    /// the cage into their wallet. A prize is claimed once.
    pub(super) fn claim_prize(&mut self, id: u32, prize: u32, cash_alternative: bool, commit: &mut Commit) -> Reply {
        let Some(p) = self.promotions.get(&id) else { return no_promotion(id) };
        let Some(d) = &p.state.drawn else {
            return Reply::by_rule("NSW 16.7.7", format!("promotion {id} is not drawn yet"));
        };
        let Some(w) = d.winners.get(prize as usize) else {
            return Reply::by_rule("NSW 16.7.8", format!("promotion {id} has no prize {prize} won"));
        };
        if d.claimed.contains_key(&prize) {
            return Reply::by_rule("NSW 16.7.8", format!("prize {prize} of promotion {id} is claimed already"));
        }
        let draws = p.terms.draws();
        let spec = draws[prize as usize];
        if w.paid.0 > 0 || w.tokens.0 > 0 {
            return Reply::by_rule("NSW 16.4", format!("prize {prize} was paid at the draw"));
        }
        if cash_alternative && !spec.cash_alternative {
            return Reply::by_rule(
                "NSW 16.3",
                format!("{}: the terms offer no cash alternative for this prize", spec.description),
            );
        }
        let (player, paid) = (w.player, if cash_alternative { w.value } else { Money::ZERO });
        let memo = format!("promotion {id}: cash alternative of {}", spec.description);
        let mut ops = Vec::new();
        if paid.0 > 0 {
            let wallet = self.wallet(player);
            ops.push(Op::Transfer { debit: self.cage, credit: wallet, amount: paid, memo });
        }
        let e = CasinoEvent::PromotionClaimed { promotion: id, prize, player, cash_alternative, paid };
        match self.promotion_step(e, ops, commit) {
            Ok(()) => Reply::Promotion { promotion: id },
            Err(r) => r,
        }
    }

    /// Keep a refused claim's details (NSW 16.9.1).
    pub(super) fn refuse_claim(&mut self, id: u32, claim: RefusedClaim, commit: &mut Commit) -> Reply {
        if !self.promotions.contains_key(&id) {
            return no_promotion(id);
        }
        for (field, text) in [("claimant", &claim.claimant), ("address", &claim.address), ("reasons", &claim.reasons)] {
            if text.trim().is_empty() || text.len() > MAX_CLAIM_TEXT {
                return Reply::refused(Code::Bounds, format!("{field}: 1 to {MAX_CLAIM_TEXT} bytes (NSW 16.9.1)"));
            }
        }
        if claim.value.0 < 0 {
            return Reply::refused(Code::Bounds, "value: not negative");
        }
        let e = CasinoEvent::PromotionClaimRefused {
            promotion: id,
            claimant: claim.claimant,
            address: claim.address,
            value: claim.value,
            reasons: claim.reasons,
        };
        match self.promotion_step(e, Vec::new(), commit) {
            Ok(()) => Reply::Promotion { promotion: id },
            Err(r) => r,
        }
    }
}

/// Fold a promotion record into `all` (the casino, recovery, the pages).
pub fn apply(all: &mut std::collections::BTreeMap<u32, Promotion>, e: &CasinoEvent) {
    match e {
        CasinoEvent::PromotionPublished { promotion, terms, commitment, seed } => {
            let state = PromotionState {
                id: *promotion,
                terms: terms.clone(),
                commitment: commitment.clone(),
                seed: *seed,
                drawn: None,
                refused: Vec::new(),
            };
            match Promotion::of(state) {
                Ok(p) => {
                    all.insert(*promotion, p);
                }
                Err(why) => {
                    tracing::warn!(promotion = *promotion, "a promotion's record does not check, passed over: {why}")
                }
            }
        }
        CasinoEvent::PromotionDrawn { promotion, entries, entries_sha256, seed, scrutineer, winners } => {
            if let Some(p) = all.get_mut(promotion) {
                p.state.drawn = Some(Drawn {
                    entries: *entries,
                    entries_sha256: entries_sha256.clone(),
                    seed: *seed,
                    scrutineer: scrutineer.clone(),
                    winners: winners.clone(),
                    claimed: Default::default(),
                });
            }
        }
        CasinoEvent::PromotionClaimed { promotion, prize, cash_alternative, .. } => {
            if let Some(d) = all.get_mut(promotion).and_then(|p| p.state.drawn.as_mut()) {
                d.claimed.insert(*prize, *cash_alternative);
            }
        }
        CasinoEvent::PromotionClaimRefused { promotion, claimant, address, value, reasons } => {
            if let Some(p) = all.get_mut(promotion) {
                p.state.refused.push(RefusedClaim {
                    claimant: claimant.clone(),
                    address: address.clone(),
                    value: *value,
                    reasons: reasons.clone(),
                });
            }
        }
        _ => {}
    }
}

/// `verify`'s check of a draw: the entries counted again from the log give
/// the same listing, and the revealed seed matches the commitment and draws
/// the same winners. `entries`: the terms' entries from the log.
pub fn check_draw(terms: &Terms, commitment: &str, drawn: &CasinoEvent, entries: &[(PlayerId, u64)]) -> Vec<String> {
    let CasinoEvent::PromotionDrawn { promotion, entries_sha256, seed, winners, .. } = drawn else {
        return Vec::new();
    };
    let mut problems = Vec::new();
    let at = format!("promotion {promotion}");
    if seed.commitment_hex() != commitment {
        problems.push(format!("{at}: the draw's seed does not match the commitment published with the terms"));
    }
    let (_, digest) = listing(entries);
    if hex(&digest) != *entries_sha256 {
        problems.push(format!("{at}: the entries counted from the audit log are not the ones drawn from"));
    }
    let draws = terms.draws();
    let again = draw(entries, seed, draws.len(), terms.spec.one_prize_per_player);
    let recorded: Vec<PlayerId> = winners.iter().map(|w| w.player).collect();
    if again != recorded {
        problems.push(format!("{at}: the winners are not the draw's from the revealed seed"));
    }
    for (w, d) in winners.iter().zip(&draws) {
        let paid = if d.kind == PrizeKind::Cash { Money(d.value) } else { Money::ZERO };
        let tokens = if d.kind == PrizeKind::PromotionalTokens { Money(d.value) } else { Money::ZERO };
        if w.value != Money(d.value) || w.paid != paid || w.tokens != tokens {
            problems.push(format!("{at}: prize {} is not the terms' {}", w.prize, d.description));
        }
    }
    problems
}
