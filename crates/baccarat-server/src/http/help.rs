//! A table's help (`GET /api/tables/{id}/help`, shown at `/help?table=N`):
//! what it offers and what each wager pays, the house edge of each from the
//! exact odds of a full shoe of its decks (`baccarat_math::report`, the same
//! numbers `baccarat odds` prints), its limits, and its rulebook's rules in
//! the rulebook's own words with their citations.
//!
//! The odds of a rulebook at a deck count are the same for every table, and
//! take milliseconds to compute (more in a debug build): they are computed
//! once, off the runtime's threads, and kept.

use baccarat_core::TableId;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::bodies::help::{OfferHelp, OutcomeHelp, QuotedRule, SettlementHelp, TableHelp};
use axum::extract::State;
use axum::Json;
use baccarat_casino::OfferView;

use super::extract::Id;
use super::{table_exists, ApiError, AppState};
use baccarat_math::{report, Report, Shoe, ShoeError};

type Cache = Mutex<HashMap<(String, u32), Arc<Report>>>;

fn cache() -> &'static Cache {
    static CACHE: OnceLock<Cache> = OnceLock::new();
    CACHE.get_or_init(Cache::default)
}

/// The exact odds of `rulebook`'s wagers on a full shoe of `decks` decks.
fn odds(rulebook: &baccarat_rules::Rulebook, decks: u32) -> Result<Arc<Report>, ShoeError> {
    let key = (rulebook.id.clone(), decks);
    if let Some(r) = cache().lock().unwrap_or_else(|p| p.into_inner()).get(&key) {
        return Ok(r.clone());
    }
    let shoe = Shoe::decks(decks)?;
    let r = Arc::new(report(rulebook, &shoe, Some(decks)));
    cache().lock().unwrap_or_else(|p| p.into_inner()).insert(key, r.clone());
    Ok(r)
}

/// `num/den` as a percentage with `places` decimals, rounded half away from
/// zero, in integers (a statistic shown to people; never money).
pub fn percent(num: i128, den: i128, places: u32) -> String {
    if den == 0 {
        return "—".into();
    }
    let scale = 10i128.pow(places);
    let scaled = num * 100 * scale;
    let (q, r) = (scaled / den, scaled % den);
    let q = if 2 * r.abs() >= den.abs() { q + scaled.signum() * den.signum() } else { q };
    let sign = if q < 0 { "-" } else { "" };
    let q = q.abs();
    if places == 0 {
        return format!("{sign}{q}%");
    }
    format!("{sign}{}.{:0width$}%", q / scale, q % scale, width = places as usize)
}

/// One offer's help: its pay table and limits, and, where the exact odds
/// price it, its house edge and each outcome's probability; where they do
/// not, why.
fn offer_help(o: &OfferView, report: &Report) -> OfferHelp {
    let priced = report.bets.iter().find(|b| b.bet.id() == o.bet && b.pay_table == o.pay_table);
    let Some(b) = priced else {
        let unpriced = report.skipped.iter().find(|(b, _)| b.id() == o.bet).map(|(_, why)| why.clone());
        let why = unpriced.unwrap_or_else(|| "not priced for this pay table".into());
        let offer = o.clone();
        return OfferHelp {
            offer,
            house_edge: None,
            house_edge_exact: None,
            outcomes: Vec::new(),
            not_priced: Some(why),
        };
    };
    let (n, d) = b.house_edge_exact();
    let outcomes = b
        .outcomes
        .iter()
        .map(|x| OutcomeHelp {
            outcome: x.outcome.id().to_string(),
            pays: x.pays.report(),
            probability: percent(x.count as i128, b.total as i128, 4),
        })
        .collect();
    OfferHelp {
        offer: o.clone(),
        house_edge: Some(percent(n, d, 4)),
        house_edge_exact: Some(format!("{n}/{d}")),
        outcomes,
        not_priced: None,
    }
}

pub(super) async fn help(State(s): State<AppState>, Id(id): Id<TableId>) -> Result<Json<TableHelp>, ApiError> {
    table_exists(&s, id)?;
    let t = s.views.read().expect("views lock").tables.iter().find(|t| t.id == id).cloned().expect("checked");
    let rb = baccarat_rules::profiles::builtin(&t.rulebook).map_err(|e| ApiError::internal(e.to_string()))?;
    let decks = t.decks;
    let rulebook = rb.clone();
    let report = tokio::task::spawn_blocking(move || odds(&rulebook, decks))
        .await
        .map_err(|_| ApiError::internal("the odds could not be computed"))?
        .map_err(|e| ApiError::internal(e.to_string()))?;
    let offers = t.offers.iter().map(|o| offer_help(o, &report)).collect();
    let rules = rb
        .config
        .citations
        .iter()
        .filter_map(|(k, cite)| {
            let quote = rb.config.quotes.get(k)?.clone();
            Some(QuotedRule { key: k.clone(), cite: cite.clone(), quote })
        })
        .collect();
    let settlement = SettlementHelp {
        fractional: rb.fractional_payout,
        unpayable: rb.unpayable_stake,
        rule: rb.settlement_rule.clone(),
    };
    Ok(Json(TableHelp {
        table: t.id,
        name: t.name,
        rulebook: t.rulebook,
        rulebook_title: t.rulebook_title,
        variant: t.variant_title,
        mode: t.mode,
        dealing: t.dealing,
        decks: t.decks,
        chip: t.chip,
        min: t.min,
        max: t.max,
        differential: t.differential,
        offers,
        settlement,
        rules,
    }))
}

#[cfg(test)]
mod tests {
    use super::percent;

    #[test]
    fn percentages_are_rounded_in_integers() {
        assert_eq!(percent(1, 3, 2), "33.33%");
        assert_eq!(percent(2, 3, 2), "66.67%");
        assert_eq!(percent(-1, 3, 2), "-33.33%");
        assert_eq!(percent(1, 8, 1), "12.5%");
        assert_eq!(percent(1, 16, 1), "6.3%");
        assert_eq!(percent(-1, 16, 1), "-6.3%");
        assert_eq!(percent(0, 5, 4), "0.0000%");
        assert_eq!(percent(1, 0, 2), "—");
        assert_eq!(percent(1, 2, 0), "50%");
    }
}
