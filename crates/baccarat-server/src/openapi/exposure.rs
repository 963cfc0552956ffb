//! The exposure monitor's part of the API document (`http/exposure.rs`).

use serde_json::json;

use super::*;

pub(super) fn operations() -> Vec<Operation> {
    let all =
        Op::new("Pit, surveillance: every table's offered wagers priced from the cards it has shown, and the alerts")
            .describe(
                "After every card a table shows, each offered wager's exact expected return to the player per unit \
             staked (`ev` as a reduced fraction `num/den`; `ev_percent` for display only) from the cards not yet \
             shown this shoe: burns shown, cards dealt face up, hands exposed, a completed coup's cards. A card \
             burned face down stays among the unseen, which is exact. `exposure` is the player's expected gain on \
             a maximum wager at the table's current limits, in cents, rounded toward the house. An alert is \
             raised when a wager crosses its table's threshold (`serve --exposure-alert`; default: above 0, in the \
             player's favour), naming the record and the card that made it so. The rulebooks are silent on game \
             protection. Not for dealers or players.",
            )
            .auth()
            .param(json!({
                "name": "after", "in": "query", "required": false,
                "description": "only the alerts numbered after this one (default: every alert kept, the last 500)",
                "schema": { "type": "integer", "format": "int64", "minimum": 0 },
            }))
            .roles("supervisors, inspectors, surveillance and admins")
            .err(400, "after: not a whole number; an unknown query field (`bad_request`)")
            .ok("every table and the alerts", derived::<crate::bodies::ExposureView>());
    let one = on_table(Op::new("Pit, surveillance: one table's offered wagers priced from the cards it has shown"))
        .auth()
        .roles("supervisors, inspectors, surveillance and admins")
        .ok("the table's pricing", derived::<baccarat_casino::TableWatch>());
    vec![("get", "/api/exposure", all), ("get", "/api/tables/{id}/exposure", one)]
}
