//! Amounts of money as an operator types them: `1000`, `1000.5`, `1000.50`
//! (major units, at most two decimals), read by hand into integer minor
//! units (cents), never through a float.
//!
//! The rulebooks are silent on how a back office types money; we chose the
//! major unit with a decimal point, as a cage's slips and the server's own
//! messages write it ("cash-out 5000.00 is more than …"), so that `1000` is
//! a thousand, never ten. The API itself takes cents.

use baccarat_rules::Money;

/// `text` in minor units: digits, optionally a point and one or two digits.
/// No sign, exponent, separators or spaces; zero is allowed (opening chips).
pub fn parse_amount(text: &str) -> Result<Money, String> {
    let bad = |why: &str| format!("amount {text:?}: {why} (write it as 1000 or 1000.50)");
    let (whole, frac) = match text.split_once('.') {
        Some((w, f)) => (w, Some(f)),
        None => (text, None),
    };
    if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
        return Err(bad("digits are needed before any decimal point, and nothing else"));
    }
    let cents = match frac {
        None => 0,
        Some(f) if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) => {
            return Err(bad("one or two digits are needed after the decimal point"))
        }
        Some(f) if f.len() > 2 => return Err(bad("at most two decimals (cents)")),
        Some(f) => f.parse::<i64>().map_err(|_| bad("not a number"))? * if f.len() == 1 { 10 } else { 1 },
    };
    whole
        .parse::<i64>()
        .ok()
        .and_then(|w| w.checked_mul(100))
        .and_then(|w| w.checked_add(cents))
        .map(Money)
        .ok_or_else(|| bad("too large"))
}

/// [`parse_amount`], refusing zero: a deposit, cash-out, fill or credit moves
/// some money.
pub fn positive_amount(text: &str) -> Result<Money, String> {
    match parse_amount(text)? {
        Money(0) => Err(format!("amount {text:?}: must be more than 0")),
        m => Ok(m),
    }
}

/// An amount of the API's (cents, a JSON integer) as the operator reads it:
/// `1000.50`; `?` where the answer has no such figure.
pub fn shown(v: &serde_json::Value) -> String {
    v.as_i64().map_or_else(|| "?".to_string(), |c| Money(c).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_units_and_decimals_become_cents() {
        assert_eq!(parse_amount("1000"), Ok(Money(100_000)));
        assert_eq!(parse_amount("1000.5"), Ok(Money(100_050)));
        assert_eq!(parse_amount("1000.50"), Ok(Money(100_050)));
        assert_eq!(parse_amount("1000.05"), Ok(Money(100_005)));
        assert_eq!(parse_amount("0.01"), Ok(Money(1)));
        assert_eq!(parse_amount("0"), Ok(Money(0)));
        assert_eq!(parse_amount("007.10"), Ok(Money(710)));
    }

    #[test]
    fn more_than_two_decimals_is_refused_not_rounded() {
        let e = parse_amount("10.005").unwrap_err();
        assert!(e.contains("at most two decimals"), "{e}");
        assert!(parse_amount("10.000").is_err());
    }

    #[test]
    fn anything_but_digits_and_one_point_is_refused() {
        for text in
            ["", ".", ".5", "5.", "-5", "+5", "1e3", "1,000", "1 000", " 5", "5 ", "1.2.3", "0x10", "NaN", "5.-1", "١٢"]
        {
            assert!(parse_amount(text).is_err(), "{text:?} accepted");
        }
    }

    #[test]
    fn an_amount_past_i64_is_refused_not_wrapped() {
        assert_eq!(parse_amount("92233720368547758.07"), Ok(Money(i64::MAX)));
        assert!(parse_amount("92233720368547758.08").unwrap_err().contains("too large"), "+ cents overflows");
        assert!(parse_amount("92233720368547759").unwrap_err().contains("too large"), "× 100 overflows");
        assert!(parse_amount("99999999999999999999").unwrap_err().contains("too large"), "past i64 itself");
    }

    #[test]
    fn a_movement_of_money_is_more_than_zero() {
        assert!(positive_amount("0").unwrap_err().contains("more than 0"));
        assert!(positive_amount("0.00").is_err());
        assert_eq!(positive_amount("0.01"), Ok(Money(1)));
    }

    #[test]
    fn cents_are_shown_with_two_decimals() {
        assert_eq!(shown(&serde_json::json!(100_050)), "1000.50");
        assert_eq!(shown(&serde_json::json!(null)), "?");
    }
}
