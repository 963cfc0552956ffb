//! The casino's replies in the document, derived from the type the writer
//! answers with (issue 46), not written beside it.
//!
//! `schemars` writes the schema of `casino::Reply` for OpenAPI 3.0 (`nullable`
//! rather than a `null` type, references under `#/components/schemas/`), with
//! the variants' doc comments as descriptions. Each variant, told apart by its
//! `result` tag, becomes the component [`NAMES`] gives it, and `Reply` itself
//! the `oneOf` of those: a field added to a reply is in the document with no
//! line written here, and a variant added to the enum fails the tests until
//! it is named here (or said never to be sent as it is).
//!
//! Each variant is a closed object (`additionalProperties: false`): a reply
//! is serialised from the enum, so no other field can appear, and the fuzzer
//! (`scripts/schemathesis.sh`) then catches a field the document lacks.

use serde_json::{json, Map, Value};

use crate::casino::Reply;

/// Each reply's component, by its `result` tag. `None`: the API never sends
/// that variant as it is (`existing_table` is answered as `table`; a
/// player's limits and the gaming day are answered as views of their own).
pub(super) const NAMES: [(&str, Option<&str>); 15] = [
    ("wager", Some("WagerReply")),
    ("wagers", Some("SlipReply")),
    ("table", Some("TableReply")),
    ("deposit", Some("DepositReply")),
    ("promotion", Some("PromotionReply")),
    ("tournament", Some("TournamentReply")),
    ("events", Some("EventsReply")),
    ("ledger", Some("LedgerReply")),
    ("self_limits", None),
    ("gaming_day", None),
    ("refused", Some("RefusedReply")),
    ("cash_out", Some("CashOutReply")),
    ("float", Some("FloatReply")),
    ("existing_table", None),
    ("table_closed", Some("TableClosedReply")),
];

/// The `result` tag a variant's schema requires.
fn tag(variant: &Value) -> Option<&str> {
    let result = &variant["properties"]["result"];
    result["enum"][0].as_str().or_else(|| result["const"].as_str())
}

/// The components derived from `Reply`: one a variant the API sends, the
/// `Reply` that is any of them (a slip's results are), and what they refer
/// to (`Code`, the refusal's kind).
pub(super) fn components() -> Map<String, Value> {
    let mut generator = super::schema::settings().into_generator();
    generator.subschema_for::<Reply>();
    let mut defs = generator.take_definitions(true);
    let reply = defs.remove("Reply").unwrap_or_default();
    let mut out = defs;
    let mut any = Vec::new();
    for mut variant in reply["oneOf"].as_array().cloned().unwrap_or_default() {
        let name = tag(&variant).and_then(|t| NAMES.iter().find(|(n, _)| *n == t)).and_then(|(_, c)| *c);
        if let Some(name) = name {
            variant["additionalProperties"] = json!(false);
            any.push(json!({ "$ref": format!("#/components/schemas/{name}") }));
            out.insert(name.to_string(), variant);
        }
    }
    let description = reply.get("description").cloned().unwrap_or(Value::Null);
    out.insert("Reply".into(), json!({ "oneOf": any, "description": description }));
    out
}

#[cfg(test)]
mod tests {
    use super::super::fits::fits;
    use super::*;
    use crate::casino::Code;
    use baccarat_core::{TableId, TournamentId};
    use baccarat_rules::Money;
    use baccarat_table::WagerId;

    /// One of every variant; the match makes a new variant a compile error
    /// here until it is added (and named in [`NAMES`]).
    fn every_variant() -> Vec<Reply> {
        let all = vec![
            Reply::Wager { wager: WagerId(7), balance: Money(900) },
            Reply::Wagers { results: vec![Reply::Wager { wager: WagerId(8), balance: Money(5) }], balance: Money(5) },
            Reply::Table { table: TableId(2) },
            Reply::Deposit { balance: Money(10) },
            Reply::Promotion { promotion: 3 },
            Reply::Tournament { tournament: TournamentId(4), entrants: 9 },
            Reply::Events { count: 2 },
            Reply::Ledger { ok: true, problem: None, accounts: 5, transfers: 6 },
            Reply::SelfLimits {
                view: Box::new(crate::casino::self_limits::view_of(
                    &Default::default(),
                    baccarat_table::PlayerId(1),
                    0,
                    Money(0),
                )),
            },
            Reply::GamingDay { zone: "UTC".into(), cutoff_hour: 6, at_ms: 1 },
            Reply::Refused { code: Code::Rule, rule: Some("NSW 9.4".into()), message: "no".into() },
            Reply::CashOut { balance: Money(1), cashed_out: Money(2) },
            Reply::Float { table: TableId(1), float: Money(3) },
            Reply::ExistingTable { table: TableId(1) },
            Reply::TableClosed { table: TableId(1), closed: true, closing: false, credited: Some(Money(4)) },
        ];
        for r in &all {
            match r {
                Reply::Wager { .. }
                | Reply::Wagers { .. }
                | Reply::Table { .. }
                | Reply::Deposit { .. }
                | Reply::Promotion { .. }
                | Reply::Tournament { .. }
                | Reply::Events { .. }
                | Reply::Ledger { .. }
                | Reply::SelfLimits { .. }
                | Reply::GamingDay { .. }
                | Reply::Refused { .. }
                | Reply::CashOut { .. }
                | Reply::Float { .. }
                | Reply::ExistingTable { .. }
                | Reply::TableClosed { .. } => {}
            }
        }
        all
    }

    /// Every variant's tag is named, once, and every one named as sent has
    /// its component, derived.
    #[test]
    fn every_reply_is_named_and_derived() {
        let derived = components();
        let all = every_variant();
        assert_eq!(all.len(), NAMES.len(), "a variant is missing from NAMES or from every_variant");
        for r in &all {
            let json = serde_json::to_value(r).unwrap();
            let t = json["result"].as_str().unwrap();
            let named = NAMES.iter().filter(|(n, _)| *n == t).count();
            assert_eq!(named, 1, "{t}: named {named} times in NAMES");
        }
        for (t, name) in NAMES {
            if let Some(name) = name {
                let c = derived.get(name).unwrap_or_else(|| panic!("{t}: no {name} derived"));
                assert_eq!(tag(c), Some(t), "{name} is the schema of {t}");
            }
        }
        assert_eq!(derived["Reply"]["oneOf"].as_array().unwrap().len(), 12);
    }

    /// A reply serialised from the type has exactly the fields its derived
    /// component lists, the required ones among them, and values of the types
    /// it says: the document cannot drift from the replies.
    #[test]
    fn each_reply_as_sent_fits_its_component() {
        let derived = components();
        for r in every_variant() {
            let json = serde_json::to_value(&r).unwrap();
            let t = json["result"].as_str().unwrap();
            let Some(Some(name)) = NAMES.iter().find(|(n, _)| *n == t).map(|(_, c)| *c) else { continue };
            fits(&json, &derived[name], &derived, name);
        }
    }

    /// The edge's own bodies (`bodies/`) as sent fit the schemas the
    /// document derives from them, a null where one may be and a constant
    /// where one is said.
    #[test]
    fn each_body_as_sent_fits_its_derived_schema() {
        use crate::auth::Role;
        use crate::bodies::*;
        use crate::openapi::schema::derived;
        use baccarat_core::UserId;
        let none = Map::new();
        let check = |v: Value, schema: Value, at: &str| fits(&v, &schema, &none, at);
        let (user, name) = (UserId(3), "ana".to_string());
        let signed_in = SignedIn {
            token: "t".into(),
            user,
            name: name.clone(),
            role: Role::Player,
            idle_seconds: 1,
            max_seconds: 2,
        };
        check(serde_json::to_value(signed_in).unwrap(), derived::<SignedIn>(), "SignedIn");
        for bank in [None, Some(7)] {
            let me = Me {
                user,
                name: name.clone(),
                role: Role::Admin,
                balance: Money(1),
                available: Money(1),
                tokens: Money::ZERO,
                bank,
            };
            check(serde_json::to_value(me).unwrap(), derived::<Me>(), "Me");
        }
        check(serde_json::to_value(SignedOut { revoked: true }).unwrap(), derived::<SignedOut>(), "SignedOut");
        let changed = PasswordChanged { token: "t".into(), revoked_others: true };
        check(serde_json::to_value(changed).unwrap(), derived::<PasswordChanged>(), "PasswordChanged");
        let created = PersonCreated { id: user, name: name.clone(), role: Role::Dealer, disabled: false };
        check(serde_json::to_value(created).unwrap(), derived::<PersonCreated>(), "PersonCreated");
        let reset = PasswordReset { id: user, sessions_ended: 2 };
        check(serde_json::to_value(reset).unwrap(), derived::<PasswordReset>(), "PasswordReset");
        check(
            serde_json::to_value(PlayerCreated { player: user, name }).unwrap(),
            derived::<PlayerCreated>(),
            "PlayerCreated",
        );
        let findings = crate::verify::Findings { problems: vec!["x".into()], ..Default::default() };
        let verified = serde_json::to_value(Verified::new(findings, None)).unwrap();
        check(verified, derived::<Verified>(), "Verified");
        for serving in [true, false] {
            check(serde_json::to_value(Alive::new(serving)).unwrap(), derived::<Alive>(), "Alive");
        }
        check(serde_json::to_value(Ready::default()).unwrap(), derived::<Ready>(), "Ready");
        for founding in [crate::audit::Founding::Empty, crate::audit::Founding::Demo] {
            let c = CasinoFounding { founding, demo: founding == crate::audit::Founding::Demo };
            check(serde_json::to_value(c).unwrap(), derived::<CasinoFounding>(), "CasinoFounding");
        }
        let place = crate::partition_route::Place {
            name: "east".into(),
            instance: None,
            url: Some("http://127.0.0.1:1/".into()),
            live: true,
            tables: vec![1, 2],
            path: "/p/east/".into(),
        };
        for partition in [None, Some("east".to_string())] {
            let p = Partitions { partition, partitions: vec![place.clone()] };
            check(serde_json::to_value(p).unwrap(), derived::<Partitions>(), "Partitions");
        }
        // A constant is said, and a value other than it is refused.
        assert_eq!(derived::<SignedOut>()["properties"]["revoked"]["enum"], json!([true]));
        assert_eq!(derived::<Ready>()["properties"]["status"]["enum"], json!(["ready"]));
        assert_eq!(derived::<Alive>()["properties"]["status"]["enum"], json!(["ok"]));
        assert_eq!(derived::<SignedOut>()["additionalProperties"], json!(false));
    }

    /// The check fails on a field the schema lacks, as it must.
    #[test]
    #[should_panic(expected = "is not in the schema")]
    fn a_field_the_document_lacks_is_caught() {
        let derived = components();
        let mut json = serde_json::to_value(Reply::Deposit { balance: Money(1) }).unwrap();
        json["bonus"] = json!(1);
        fits(&json, &derived["DepositReply"], &derived, "DepositReply");
    }
}
