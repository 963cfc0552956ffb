//! The two bodies nearly every record holds under load, decoded without
//! serde's buffering.
//!
//! # Why
//!
//! [`Event`] is an internally tagged enum (`{"event":"wager_placed",…}`), and
//! serde decodes such an enum by first buffering the whole object into a tree
//! of its own (`Content`), because the tag might come last, and then decoding
//! the variant from that tree. Timed on a start after `kill -9` under `loadgen`
//! (2.47 M records in its tail), decoding bodies was 22% of the start, most of
//! it that buffering. A wager placed and a wager settled are about every
//! record but a handful per coup, and the server always writes the tag first.
//!
//! # How
//!
//! [`decode`] reads `{"table":N,"event":{"event":TAG,…}}` with the tag first,
//! and for those two tags decodes the rest of the object straight into the
//! variant's fields. Anything else — another tag, the tag not first, a field
//! of the body it does not know (`by`, a header, `casino`), a field the
//! variant does not have — is `None`, and the caller decodes the body the
//! general way. So the fast path only ever answers where the general one
//! would answer the same (the tests compare them on the two hot variants
//! with every field arbitrary, in the written form and seven others, and
//! check that other variants are left to the general way).

use crate::ids::TableId;
use baccarat_rules::{Money, Outcome, Settlement};
use baccarat_table::{Event, Wager, WagerId};
use serde::de::{self, value::MapAccessDeserializer, Deserializer, MapAccess, Visitor};
use serde::Deserialize;

use super::Body;

/// The body, if it is a wager placed or settled in the form the server
/// writes; `None` for every other body (decode it the general way).
pub fn decode(body: &str) -> Option<Body> {
    let b: Fast = serde_json::from_str(body).ok()?;
    Some(Body {
        table: b.table,
        rulebook: None,
        rulebook_sha256: None,
        engine: None,
        by: None,
        event: Some(b.event.0),
        casino: None,
    })
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Fast {
    table: TableId,
    event: HotEvent,
}

/// An engine event whose tag comes first and is one of the hot two.
struct HotEvent(Event);

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Placed {
    wager: Wager,
}

/// The fields of `Event::WagerSettled`, as its derive reads them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Settled {
    wager: WagerId,
    outcome: Option<Outcome>,
    pays: String,
    settlement: Settlement,
    ante: Money,
}

impl<'de> Deserialize<'de> for HotEvent {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_map(HotVisitor)
    }
}

struct HotVisitor;

impl<'de> Visitor<'de> for HotVisitor {
    type Value = HotEvent;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a wager placed or settled, its tag first")
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<HotEvent, A::Error> {
        // Borrowed: no allocation for the key or the tag. One written with an
        // escape cannot be borrowed, and is left to the general way.
        let key: Option<&'de str> = map.next_key()?;
        if key != Some("event") {
            return Err(de::Error::custom("the tag is not first"));
        }
        let tag: &'de str = map.next_value()?;
        let rest = MapAccessDeserializer::new(map);
        match tag {
            "wager_placed" => Placed::deserialize(rest).map(|p| HotEvent(Event::WagerPlaced { wager: p.wager })),
            "wager_settled" => Settled::deserialize(rest).map(|s| {
                let Settled { wager, outcome, pays, settlement, ante } = s;
                HotEvent(Event::WagerSettled { wager, outcome, pays, settlement, ante })
            }),
            _ => Err(de::Error::custom("not a hot event")),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::ids::UserId;
    use baccarat_rules::Bet;
    use baccarat_table::{PlayerId, Spot};
    use proptest::prelude::*;

    use super::*;
    use crate::audit::Header;
    use crate::trust::Actor;
    use crate::trust::Role;

    /// The general way, as `Body::decode` did before the fast path.
    fn general(body: &str) -> Result<Body, String> {
        serde_json::from_str(body).map_err(|e| e.to_string())
    }

    fn wager() -> impl Strategy<Value = Wager> {
        (
            any::<u64>(),
            any::<u32>(),
            prop_oneof![any::<u8>().prop_map(Spot::Box), Just(Spot::Standing)],
            0..Bet::ALL.len(),
            (any::<i64>(), any::<i64>()),
            (any::<bool>(), any::<bool>(), any::<Option<u64>>()),
        )
            .prop_map(|(id, player, spot, bet, (amount, ante), (needs_approval, token, at_ms))| Wager {
                id: WagerId(id),
                player: PlayerId(player),
                spot,
                bet: Bet::ALL[bet],
                amount: Money(amount),
                ante: Money(ante),
                needs_approval,
                token,
                at_ms,
            })
    }

    fn settled() -> impl Strategy<Value = Event> {
        let outcome = prop_oneof![
            Just(None),
            Just(Some(Outcome::Lose)),
            Just(Some(Outcome::Win)),
            Just(Some(Outcome::Tie)),
            (4u8..=9).prop_map(|n| Some(Outcome::WinBy(n))),
        ];
        let money = any::<i64>().prop_map(Money);
        (
            any::<u64>(),
            outcome,
            "[a-z \"\\\\é]{0,12}",
            [money.clone(), money.clone(), money.clone(), money.clone(), money.clone(), money.clone()],
            money,
        )
            .prop_map(|(wager, outcome, pays, [stake, returned, lost, won, commission, void], ante)| {
                Event::WagerSettled {
                    wager: WagerId(wager),
                    outcome,
                    pays,
                    settlement: Settlement { stake, returned, lost, won, commission, void },
                    ante,
                }
            })
    }

    fn hot() -> impl Strategy<Value = Event> {
        prop_oneof![wager().prop_map(|wager| Event::WagerPlaced { wager }), settled()]
    }

    fn header() -> Header<'static> {
        Header { rulebook: "nsw-2021", rulebook_sha256: "00ff", engine: "baccarat-table 0.1.0" }
    }

    proptest! {
        /// As the server writes them, a wager placed or settled takes the fast
        /// path and decodes to the event written, as the general way does.
        #[test]
        fn a_hot_body_as_written_takes_the_fast_path(table in any::<u32>(), e in hot()) {
            let body = Body::encode_event(TableId(table), None, None, &e);
            let fast = decode(&body);
            prop_assert!(fast.is_some(), "{body}");
            prop_assert_eq!(fast.as_ref().and_then(|b| b.event.as_ref()), Some(&e));
            prop_assert_eq!(Body::decode(&body).map_err(|e| e.to_string()), general(&body));
        }

        /// With a header, a person, the tag not first, a field the body or the
        /// event does not know, or a field missing, the fast path declines and
        /// `Body::decode` answers exactly as the general way.
        #[test]
        fn any_other_form_is_decoded_the_general_way(table in any::<u32>(), e in hot(), form in 0..7usize) {
            let plain = Body::encode_event(TableId(table), None, None, &e);
            let inner = |b: &str| b.split_once("\"event\":{\"event\":").map(|(_, r)| r.to_string()).unwrap();
            let body = match form {
                0 => Body::encode_event(TableId(table), Some(header()), None, &e),
                1 => Body::encode_event(TableId(table), None, Some(Actor::Person { user: UserId(7), role: Role::Dealer }), &e),
                2 => {
                    // The tag moved last.
                    let r = inner(&plain);
                    let (tag, rest) = r.split_once(',').unwrap();
                    let rest = rest.strip_suffix("}}").unwrap();
                    format!("{{\"table\":{table},\"event\":{{{rest},\"event\":{tag}}}}}")
                }
                3 => plain.replacen("\"event\":{\"event\":", "\"event\":{\"extra\":1,\"event\":", 1),
                4 => {
                    let end = plain.len() - 2;
                    format!("{},\"extra\":[1,2]}}}}", &plain[..end])
                }
                5 => plain.replacen("{\"table\"", "{\"note\":\"x\",\"table\"", 1),
                _ => plain.replacen(",\"ante\":", ",\"ante_was\":", 1).replacen(",\"needs_approval\":", ",\"approval\":", 1),
            };
            prop_assume!(body != plain);
            prop_assert!(decode(&body).is_none(), "{body}");
            prop_assert_eq!(Body::decode(&body).map_err(|e| e.to_string()), general(&body));
        }
    }

    /// Every other engine event, and a casino event, is left to the general way.
    #[test]
    fn only_the_hot_two_are_taken() {
        let cold = [
            Event::BettingClosed { coup: 3 },
            Event::CoupClosed { coup: 3 },
            Event::WagerWithdrawn { wager: WagerId(4) },
            Event::WagerReturned { wager: WagerId(4), rule: "NSW 14.12".into() },
            Event::Resumed,
        ];
        for e in &cold {
            let body = Body::encode_event(TableId(2), None, None, e);
            assert!(decode(&body).is_none(), "{body}");
            assert_eq!(Body::decode(&body).unwrap().event.as_ref(), Some(e));
        }
        // A tag written with an escape is not borrowed: the general way reads it.
        let escaped = "{\"table\":1,\"event\":{\"event\":\"wager_\\u0073ettled\",\"wager\":4,\"outcome\":null,\"pays\":\"\",\"settlement\":{\"stake\":1,\"returned\":0,\"lost\":1,\"won\":0,\"commission\":0,\"void\":0},\"ante\":0}}";
        assert!(decode(escaped).is_none());
        assert!(matches!(Body::decode(escaped).unwrap().event, Some(Event::WagerSettled { wager: WagerId(4), .. })));
        let casino = "{\"table\":0,\"casino\":{\"event\":\"wager_placed\",\"wager\":1}}";
        assert!(decode(casino).is_none());
        assert_eq!(Body::decode(casino).map_err(|e| e.to_string()), general(casino));
        assert!(Body::decode("{\"table\":0,\"event\":{\"event\":\"wager_placed\"}}").is_err());
    }
}
