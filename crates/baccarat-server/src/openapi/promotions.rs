//! The promotion routes' part of the API document (`http/promotions.rs`).

use serde_json::json;

use super::*;
use crate::bodies::RefusedClaims;
use crate::casino::promotions::PromotionView;

/// Promotions (NSW 16): `http/promotions.rs`.
// Longer than 70 lines: a table, one entry per route (data, not steps).
pub(super) fn operations() -> Vec<Operation> {
    let no = "no such promotion (`no_promotion`)";
    let summary = derived::<PromotionView>();
    let list = Op::new("Every promotion, with its draw's seed commitment and, once drawn, the seed and winners")
        .ok("the promotions", array(summary.clone()));
    let one = Op::new("One promotion, with its terms as published (NSW 16.6)")
        .id("promotion", no)
        .ok("the promotion", summary);
    let create = Op::new(
        "Admin: publish a promotion from its terms (TOML, NSW 16.7), before entries close; the server draws and \
         commits to the draw's seed now",
    )
    .auth()
    .roles("admins")
    .limited()
    .body(closed(&[("terms", string())], &["terms"]))
    .example(json!({ "terms": "name = \"Friday draw\"" }))
    .ok("published", schema_ref("PromotionReply"))
    .err(422, "the terms do not check: every problem is named (`config`)")
    .refusals()
    .writer();
    let draw = Op::new(
        "Admin: draw after the draw's time, from the entries counted from the audit log; cash prizes are paid into \
         the winners' wallets (NSW 16.2: a prize over $10,000 needs a scrutineer)",
    )
    .auth()
    .id("promotion", no)
    .roles("admins")
    .limited()
    .body(closed(&[("scrutineer", nullable(string()))], &[]))
    .example(json!({ "scrutineer": "J. Citizen" }))
    .ok("drawn", schema_ref("PromotionReply"))
    .refusals()
    .writer();
    let refuse = Op::new("Admin: keep a refused claim: claimant, address, value and reasons (NSW 16.9.1)")
        .auth()
        .id("promotion", no)
        .roles("admins")
        .limited()
        .body(closed(
            &[("claimant", string()), ("address", string()), ("value", money()), ("reasons", string())],
            &["claimant", "address", "value", "reasons"],
        ))
        .example(json!({ "claimant": "A. Player", "address": "1 Main St", "value": 50000, "reasons": "not present" }))
        .ok("kept", schema_ref("PromotionReply"))
        .refusals()
        .writer();
    let refused = Op::new("Admins and inspectors: the refused claims kept (NSW 16.9.1)")
        .auth()
        .id("promotion", no)
        .roles("admins and inspectors")
        .ok("the refused claims", derived::<RefusedClaims>());
    let claim = Op::new(
        "Admin, at the rewards desk: a winner claims a prize that is not cash, or its cash alternative where the \
         terms offer one, paid into their wallet (NSW 16.3, 16.7.8); once per prize",
    )
    .auth()
    .id("promotion", no)
    .roles("admins")
    .limited()
    .body(closed(&[("prize", u32s()), ("cash_alternative", boolean())], &["prize"]))
    .example(json!({ "prize": 1, "cash_alternative": true }))
    .ok("claimed", schema_ref("PromotionReply"))
    .refusals()
    .writer();
    vec![
        ("post", "/api/promotions/{id}/claims", claim),
        ("get", "/api/promotions", list),
        ("post", "/api/promotions", create),
        ("get", "/api/promotions/{id}", one),
        ("post", "/api/promotions/{id}/draw", draw),
        ("get", "/api/promotions/{id}/refused-claims", refused),
        ("post", "/api/promotions/{id}/refused-claims", refuse),
    ]
}
