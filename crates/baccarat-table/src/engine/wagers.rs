//! Wagers: opening and closing betting, placing, withdrawing, approving and
//! refusing wagers, limits and the table differential.

use baccarat_rules::Cite;
use baccarat_rules::{payable_stake, Approvals, Bet, Money, Pays, Permission, UnpayableStake};

use super::flow::not_open;
use super::{Emit, Event, Phase, PlayerId, Refusal, Spot, Table, Wager, WagerId};

pub fn open_betting(o: &mut Emit, no_bet: bool, closes_at: Option<u64>) -> Result<(), Refusal> {
    let t = &*o.t;
    match t.phase() {
        Phase::Ready => {}
        Phase::NoShoe | Phase::ShoeOver => return Err(Refusal::new(t.cite(Cite::Cut), "start a shoe first")),
        _ => return Err(Refusal::new(t.cite(Cite::WagersClosed), "a coup is already in progress")),
    }
    // EU 3.1.2: a player may bet during them; the rest are played later.
    let deferrable = t.rb().config.remedies.defer_no_bet_coups.value;
    if t.state.no_bet_coups_due > 0 && !no_bet && !deferrable {
        return Err(Refusal::new(
            t.cite(Cite::NoBetCoup),
            format!("{} no-bet coups are due before wagers are taken", t.state.no_bet_coups_due),
        ));
    }
    let forced = t.state.forced_no_bet;
    let rule = forced.then(|| t.cite(Cite::NoBetCoup));
    let coup = t.state.coup_number + 1;
    let first_card = t.state.carried;
    o.emit(Event::BettingOpened { coup, no_bet: no_bet || forced, first_card, rule, closes_at });
    Ok(())
}

/// The minimum and maximum that apply to `player`'s wager on `bet`: the offer's,
/// a changed table minimum for main wagers (NSW 6.7) unless the player keeps an
/// earlier one (NSW 6.7.1), and a player's personal limits (NSW 6.8).
fn limits(t: &Table, player: PlayerId, bet: Bet) -> (Money, Money, String) {
    let (offer_min, offer_max) = t.offer_limits(bet).expect("offered");
    let (mut min, mut max, mut rule) = (offer_min, offer_max, t.cite(Cite::Limits));
    if bet.is_main() {
        if let Some(m) = t.state.minimum {
            min = m;
            rule = t.cite(Cite::MinimumChange);
            if let Some(g) = t.state.grandfathered.iter().find(|g| g.0 == player) {
                min = g.1;
            }
        }
        if let Some(p) = t.state.personal.iter().find(|p| p.0 == player) {
            (min, max, rule) = (p.1, p.2, t.cite(Cite::PersonalLimits));
        }
    }
    (min, max, rule)
}

/// Amount: whole chips (NSW 6.1.1) within the wager's limits for this
/// player (NSW 6.1, 6.7, 6.8; AU 5.8-5.9), counting what they already have on
/// `bet` this coup. `bet` must be offered.
fn amount_within_limits(t: &Table, player: PlayerId, bet: Bet, amount: Money) -> Result<(), Refusal> {
    let chip = t.setup.config.settle.chip;
    if amount.0 <= 0 || amount.0 % chip.0 != 0 {
        return Err(Refusal::new(t.cite(Cite::MinimumUnit), format!("{amount} is not a whole number of {chip} chips")));
    }
    let (min, max, limit_rule) = limits(t, player, bet);
    if amount < min {
        return Err(Refusal::new(limit_rule, format!("{amount} is below the {bet} minimum {min}")));
    }
    let same = t.state.coup.wagers.total_of(player, bet);
    if same + amount > max {
        return Err(Refusal::new(
            limit_rule,
            format!("{bet} wagers of one player may total at most {max}; this would make {}", same + amount),
        ));
    }
    Ok(())
}

/// The refusal a wager of `amount` on `bet` gets from its amount alone, if
/// it is certain now: the bet not offered, not whole chips, or outside the
/// player's limits (with what they already have on it). Passing it does not
/// mean the wager will be placed.
pub(super) fn screen(t: &Table, player: PlayerId, bet: Bet, amount: Money) -> Result<(), Refusal> {
    if t.setup.config.offer(bet).is_none() {
        return Err(not_offered(t, bet));
    }
    amount_within_limits(t, player, bet, amount)
}

fn not_offered(t: &Table, bet: Bet) -> Refusal {
    Refusal::new(t.cite(Cite::Limits), format!("this table does not offer {bet}"))
}

/// A wager as a player asks for it.
pub struct NewWager {
    pub player: PlayerId,
    pub spot: Spot,
    pub bet: Bet,
    pub amount: Money,
    pub ante: Money,
    pub token: bool,
    pub at_ms: Option<u64>,
}

/// Why a wager made at `at_ms` is refused for its time alone: betting is not
/// open, or it came after the recorded deadline (the recorded deadline
/// decides, not the pace of the call that closes betting).
pub(super) fn closed(t: &Table, at_ms: Option<u64>) -> Option<Refusal> {
    if t.phase() != Phase::Betting && !t.state.late_wagers {
        return Some(super::flow::not_open_at(t));
    }
    if let (Some(close), Some(at)) = (t.state.closes_at, at_ms) {
        if at > close && !t.state.late_wagers {
            return Some(Refusal::new(
                t.cite(Cite::WagersClosed),
                format!("betting closed at {close} ms; this wager came at {at} ms"),
            ));
        }
    }
    None
}

/// Place a wager: every check first, in order (time, no-bet coup, offer,
/// spot, limits, table-wide maxima, exact payment, ante or side-bet conduct,
/// combination, tokens), then its one event. Called once per wager: the
/// helpers are `#[inline]`.
pub fn place(o: &mut Emit, w: NewWager) -> Result<(), Refusal> {
    let NewWager { player, spot, bet, amount, ante, token, at_ms } = w;
    let t = &*o.t;
    if let Some(r) = closed(t, at_ms) {
        return Err(r);
    }
    if t.state.coup.no_bet {
        return Err(Refusal::new(t.cite(Cite::NoBetCoup), "no wagers are permitted in a no-bet coup"));
    }
    let cfg = &t.setup.config;
    let Some(offer) = cfg.offer(bet) else {
        return Err(not_offered(t, bet));
    };
    spot_on_layout(t, player, spot)?;
    amount_within_limits(t, player, bet, amount)?;
    within_shared_maximum(t, spot, bet, amount)?;
    // AU 5.12: a Banker wager that could not be paid exactly is not accepted.
    if cfg.settle.unpayable == UnpayableStake::VoidExcess {
        for (_, p) in &offer.pay_table.lines {
            if matches!(p, Pays::LessCommission { .. }) && payable_stake(amount, *p, &cfg.settle) != amount {
                return Err(Refusal::new(
                    t.cite(Cite::BankerUnpayable),
                    format!("{amount} could not be paid exactly in chips at {p}"),
                ));
            }
        }
    }
    if bet.is_main() {
        ante_due(t, amount, ante)?;
    } else {
        side_bet_conduct(t, player, bet)?;
    }
    if ante.0 < 0 || (ante.0 > 0 && (cfg.ante.is_none() || !bet.is_main())) {
        return Err(Refusal::new(t.cite(Cite::Ante), "an ante goes only with an initial wager at an Ante Up table"));
    }
    let needs_approval = combination(t, player, bet)?;
    let id = t.state.next_wager;
    if token && !t.rb().config.conduct.promotional_tokens {
        return Err(Refusal::new(t.cite(Cite::PromotionalTokens), "this rulebook provides no promotional tokens"));
    }
    o.emit(Event::WagerPlaced { wager: Wager { id, player, spot, bet, amount, ante, needs_approval, token, at_ms } });
    Ok(())
}

/// Where the wager goes (AU 3.1, 5.6-5.8): a box on the layout with room for
/// one more player, or the standing area where the layout has one.
#[inline]
fn spot_on_layout(t: &Table, player: PlayerId, spot: Spot) -> Result<(), Refusal> {
    let layout = &t.setup.config.layout;
    match spot {
        Spot::Box(b) if b == 0 || b as u32 > layout.boxes => {
            return Err(Refusal::new(
                layout.rule.clone(),
                format!("box {b} is not on this layout (boxes 1 to {})", layout.boxes),
            ));
        }
        Spot::Box(b) => {
            let players = t.state.coup.wagers.box_players(b);
            let count = players.len() + usize::from(!players.contains(&player));
            if count as u32 > layout.players_per_box {
                return Err(Refusal::new(
                    layout.rule.clone(),
                    format!("box {b} already has {} players", layout.players_per_box),
                ));
            }
        }
        Spot::Standing if !layout.standing_players => {
            return Err(Refusal::new(layout.rule.clone(), "this layout has no area for standing players"));
        }
        Spot::Standing => {}
    }
    Ok(())
}

/// The sign's maximum shared by more than one player: for the whole table on
/// some bets (EU 6.1.3), and for all players in one box (AU 5.8(b)).
#[inline]
fn within_shared_maximum(t: &Table, spot: Spot, bet: Bet, amount: Money) -> Result<(), Refusal> {
    let ws = &t.state.coup.wagers;
    // EU 6.1.3: for some bets the sign's maximum is one for the whole table.
    let sign_max = t.offer_limits(bet).expect("offered").1;
    let shared = &t.rb().config.remedies.table_wide_maximum;
    if shared.value.contains(&bet) && ws.total_on(bet) + amount > sign_max {
        return Err(Refusal::new(
            shared.rule.clone(),
            format!(
                "{bet} wagers of all players together may total at most {}; this would make {}",
                sign_max,
                ws.total_on(bet) + amount
            ),
        ));
    }
    // AU 5.8(b): all players' wagers on one area within the table maximum.
    if let Spot::Box(b) = spot {
        let area = t.state.coup.wagers.area(spot, bet);
        if t.setup.config.layout.players_per_box > 1 && area + amount > sign_max {
            return Err(Refusal::new(
                t.setup.config.layout.rule.clone(),
                format!("{bet} wagers in box {b} may total at most {}", sign_max),
            ));
        }
    }
    Ok(())
}

/// AU 14.5: each initial wager with its ante, unless waived (14.4).
#[inline]
fn ante_due(t: &Table, amount: Money, ante: Money) -> Result<(), Refusal> {
    if let Some(a) = &t.setup.config.ante {
        if ante < a.due(amount) {
            return Err(Refusal::new(t.cite(Cite::Ante), format!("this wager needs an ante of {}", a.due(amount))));
        }
    }
    Ok(())
}

/// A side bet only with a main wager where the table requires one (NSW
/// 10.4), and one of each side bet per player where the rulebook says so.
#[inline]
fn side_bet_conduct(t: &Table, player: PlayerId, bet: Bet) -> Result<(), Refusal> {
    let ws = &t.state.coup.wagers;
    if t.setup.config.side_bets_need_main_wager && !ws.has(player, &[Bet::Player, Bet::Banker, Bet::Tie]) {
        return Err(Refusal::new(t.cite(Cite::SideBetNeedsMain), format!("{bet} is taken only with a main wager")));
    }
    if t.rb().config.conduct.one_side_bet_each && ws.has(player, &[bet]) {
        return Err(Refusal::new(t.cite(Cite::OneSideBet), format!("one {bet} wager per player per coup")));
    }
    Ok(())
}

/// Banker and Player together (NSW 5.6.6; AU 5.2(c)): whether this wager
/// waits for a supervisor's approval. Where the table's setup says no one
/// approves wagers (an RNG table, by default), it is refused now, naming the
/// rule, rather than held for no one until "no more bets".
fn combination(t: &Table, player: PlayerId, bet: Bet) -> Result<bool, Refusal> {
    let other = match bet {
        Bet::Player => Bet::Banker,
        Bet::Banker => Bet::Player,
        _ => return Ok(false),
    };
    if !t.state.coup.wagers.has(player, &[other]) {
        return Ok(false);
    }
    match (t.rb().config.conduct.banker_and_player, t.setup.approvals) {
        (Permission::Allowed, _) => Ok(false),
        (Permission::NeedsApproval, Approvals::Supervisor) => Ok(true),
        (Permission::NeedsApproval, Approvals::Refuse) => Err(Refusal::new(
            approval_rule(t, t.state.coup.wagers.has(player, &[Bet::Tie])),
            "Banker and Player together need a Casino Supervisor's approval, and no supervisor approves wagers at this table: wager on one of them",
        )),
        (Permission::Forbidden, _) => {
            Err(Refusal::new(t.cite(Cite::Combination), "Banker and Player may not both be wagered"))
        }
    }
}

/// The rule that asks for the approval, as precisely as the profile quotes it:
/// the numbered line of the combination rule that says "approval" (NSW
/// 5.6.6), or, where the player has a Tie wager too, the line that names
/// the Tie as well (NSW 5.6.7); else the combination rule's citation (NSW
/// 5.6).
fn approval_rule(t: &Table, with_tie: bool) -> String {
    let cite = t.cite(Cite::Combination);
    let quote = t.rb().quote(Cite::Combination).unwrap_or_default();
    let mut lines = quote.lines().filter(|l| l.contains("approval"));
    let quoted = if with_tie { lines.find(|l| l.contains("Tie")) } else { lines.find(|l| !l.contains("Tie")) };
    let number = quoted.and_then(|l| l.split_whitespace().next()).map(|n| n.trim_end_matches('.'));
    match (number, cite.split_whitespace().next()) {
        (Some(n), Some(book)) if n.starts_with(|c: char| c.is_ascii_digit()) => format!("{book} {n}"),
        _ => cite,
    }
}

fn find<'a>(o: &'a Emit<'_>, wager: WagerId) -> Result<&'a Wager, Refusal> {
    o.t.state.coup.wagers.get(wager).ok_or_else(|| {
        if o.t.state.last_settled.contains(&wager) {
            // AU 5.15: a losing wager cannot be withdrawn; a settled one is gone.
            Refusal::new(o.t.cite(Cite::WithdrawLosing), "the wager has been settled")
        } else {
            Refusal::new(o.t.cite(Cite::WagersClosed), format!("there is no wager {wager} on this coup"))
        }
    })
}

pub fn withdraw(o: &mut Emit, player: PlayerId, wager: WagerId) -> Result<(), Refusal> {
    let w = find(o, wager)?;
    if w.player != player {
        return Err(Refusal::new(o.t.cite(Cite::WagersClosed), "a player may withdraw only their own wager"));
    }
    match o.t.phase() {
        Phase::Betting => {}
        // After a reconstruction, only where the profile's remedy allows it
        // (NSW 12.1.1; not AU 12.6 or EU 6.1.4); after NSW 13.5.1's offer.
        Phase::Reconstruction if o.t.state.withdrawals_open => {}
        Phase::Reconstruction => {
            let rule = o.t.rb().config.remedies.withdraw_after_reconstruction.rule.clone();
            return Err(Refusal::new(rule, "after a reconstruction the wagers stand"));
        }
        _ if o.t.state.late_wagers => {}
        _ => return Err(not_open(o)),
    }
    o.emit(Event::WagerWithdrawn { wager });
    Ok(())
}

pub fn approve(o: &mut Emit, wager: WagerId) -> Result<(), Refusal> {
    let w = find(o, wager)?;
    if !w.needs_approval {
        return Err(Refusal::new(o.t.cite(Cite::Combination), "this wager needs no approval"));
    }
    if o.t.phase() != Phase::Betting {
        return Err(not_open(o));
    }
    o.emit(Event::WagerApproved { wager });
    Ok(())
}

/// NSW 14.12: refused before the first card; the wager is removed.
pub fn refuse(o: &mut Emit, wager: WagerId) -> Result<(), Refusal> {
    find(o, wager)?;
    if !matches!(o.t.phase(), Phase::Betting | Phase::Closed) {
        return Err(Refusal::new(
            o.t.cite(Cite::SupervisorRefusal),
            "a wager may be refused only before the first card is drawn",
        ));
    }
    let rule = o.t.cite(Cite::SupervisorRefusal);
    o.emit(Event::WagerReturned { wager, rule });
    Ok(())
}

/// NSW 12.17: a bet found invalid after the first card is returned to the player.
pub fn invalid(o: &mut Emit, wager: WagerId) -> Result<(), Refusal> {
    find(o, wager)?;
    let rule = o.t.cite(Cite::InvalidBetReturned);
    if !matches!(o.t.phase(), Phase::Closed | Phase::Dealing | Phase::Reconstruction) {
        return Err(Refusal::new(
            rule,
            "before the first card a wager is refused, not returned as invalid (NSW 14.12)",
        ));
    }
    o.emit(Event::WagerReturned { wager, rule });
    Ok(())
}

/// NSW 6.8: a supervisor lets a player wager within their own limits.
pub fn personal(o: &mut Emit, player: PlayerId, min: Money, max: Money) -> Result<(), Refusal> {
    let rule = o.t.cite(Cite::PersonalLimits);
    let chip = o.t.setup.config.settle.chip;
    if min.0 <= 0 || min > max || min.0 % chip.0 != 0 || max.0 % chip.0 != 0 || max.0 > baccarat_rules::MAX_LIMIT {
        return Err(Refusal::new(rule, format!("limits {min} to {max} must be whole {chip} chips, minimum first")));
    }
    // Above the table's maximum only where the rulebook allows a player's own
    // sign for it (NSW 6.8).
    let table_max = [Bet::Player, Bet::Banker, Bet::Tie]
        .iter()
        .filter_map(|b| o.t.setup.config.offer(*b))
        .map(|offer| offer.max)
        .max()
        .unwrap_or(Money::ZERO);
    if max > table_max && !o.t.rb().config.conduct.personal_max_above_table {
        return Err(Refusal::new(
            rule,
            format!("{} gives no personal maximum above the table's {table_max}; {max} is refused", o.t.rb().id),
        ));
    }
    o.emit(Event::PersonalLimitsSet { player, min, max, rule });
    Ok(())
}

fn between_coups(o: &Emit, key: Cite) -> Result<(), Refusal> {
    match o.t.phase() {
        Phase::Ready | Phase::NoShoe | Phase::ShoeOver => Ok(()),
        _ => Err(Refusal::new(o.t.cite(key), "the table minimum changes between coups")),
    }
}

/// NSW 6.7: the sign for a higher minimum; the notice runs from `at_ms`.
pub fn announce_minimum(o: &mut Emit, minimum: Money, at_ms: u64) -> Result<(), Refusal> {
    between_coups(o, Cite::MinimumChange)?;
    let rule = o.t.cite(Cite::MinimumChange);
    let notice = o.t.rb().config.conduct.minimum_notice_minutes.unwrap_or(0) as u64 * 60_000;
    // `at_ms` comes from outside (a command): a clock past the end of time is refused.
    let Some(effective_ms) = at_ms.checked_add(notice) else {
        return Err(Refusal::new(rule, format!("at_ms {at_ms}: the notice would end past the end of the clock")));
    };
    o.emit(Event::MinimumAnnounced { minimum, effective_ms, rule });
    Ok(())
}

/// NSW 6.7: change the table minimum. A raise whose notice has not run (or was
/// never given) keeps the players present at their old minimum (NSW 6.7.1).
pub fn change_minimum(o: &mut Emit, minimum: Money, at_ms: u64, present: Vec<PlayerId>) -> Result<(), Refusal> {
    between_coups(o, Cite::MinimumChange)?;
    let rule = o.t.cite(Cite::MinimumChange);
    let chip = o.t.setup.config.settle.chip;
    let max = o.t.setup.config.max;
    if minimum.0 <= 0 || minimum.0 % chip.0 != 0 || minimum > max {
        return Err(Refusal::new(rule, format!("{minimum} must be whole {chip} chips, at most the maximum {max}")));
    }
    let current = o.t.state.minimum.unwrap_or(o.t.setup.config.min);
    let notice_needed = o.t.rb().config.conduct.minimum_notice_minutes.is_some();
    let noticed = matches!(o.t.state.announced, Some((m, at)) if m == minimum && at_ms >= at);
    let grandfathered = if minimum > current && notice_needed && !noticed {
        let mut g: Vec<(PlayerId, Money)> = present
            .iter()
            .map(|p| (*p, o.t.state.grandfathered.iter().find(|g| g.0 == *p).map_or(current, |g| g.1)))
            .collect();
        g.sort();
        g.dedup();
        g
    } else {
        Vec::new()
    };
    o.emit(Event::MinimumChanged { minimum, grandfathered, rule });
    Ok(())
}

/// NSW 6.7: a supervisor alters a wager's limits, between coups: its maximum,
/// and a side bet's minimum. The main wagers' minimum is changed only by
/// `change_minimum`, which keeps its notice (NSW 6.7, 6.7.1).
pub fn change_limits(o: &mut Emit, bet: Bet, min: Option<Money>, max: Money) -> Result<(), Refusal> {
    let rule = o.t.cite(Cite::MinimumChange);
    match o.t.phase() {
        Phase::Ready | Phase::NoShoe | Phase::ShoeOver => {}
        _ => return Err(Refusal::new(rule, "a wager's limits change between coups")),
    }
    let Some((old_min, _)) = o.t.offer_limits(bet) else {
        return Err(Refusal::new(o.t.cite(Cite::Limits), format!("{bet} is not offered at this table")));
    };
    if bet.is_main() && min.is_some_and(|m| m != old_min) {
        return Err(Refusal::new(
            rule,
            format!("the {bet} minimum changes with change_minimum, which gives the notice a higher one needs"),
        ));
    }
    let min = min.unwrap_or(old_min);
    let chip = o.t.setup.config.settle.chip;
    let floor = if bet.is_main() { o.t.state.minimum.unwrap_or(min).max(min) } else { min };
    if max < floor {
        let which = if bet.is_main() { "the table minimum" } else { "its minimum" };
        return Err(Refusal::new(rule, format!("the {bet} maximum {max} is below {which} {floor}")));
    }
    if min.0 <= 0 || min.0 % chip.0 != 0 || max.0 % chip.0 != 0 || max.0 > baccarat_rules::MAX_LIMIT {
        return Err(Refusal::new(rule, format!("limits {min} to {max} must be whole {chip} chips, minimum first")));
    }
    o.emit(Event::LimitsChanged { bet, min, max, rule });
    Ok(())
}

/// NSW 12.12; AU 15.10: after the first card is drawn but before any card is
/// exposed, a supervisor may let players change their wagers (not in Method A).
pub fn reopen(o: &mut Emit) -> Result<(), Refusal> {
    // Where late wagers exist is the profile's remedy (NSW 12.12: not Method A;
    // AU 15.10: International Baccarat only).
    let late = &o.t.rb().config.remedies.late_wagers;
    let rule = late.rule.clone();
    let dealing = o.t.setup.config.dealing;
    if !late.value.contains(&dealing) {
        return Err(Refusal::new(
            rule,
            format!("wagers do not change once the first card is drawn at a {dealing:?} table"),
        ));
    }
    if !matches!(o.t.phase(), Phase::Closed | Phase::Dealing) || o.t.state.coup.cards.iter().any(|c| c.exposed) {
        return Err(Refusal::new(rule, "only after the first card is drawn and before any card is exposed"));
    }
    o.emit(Event::WagersReopened { rule });
    Ok(())
}
