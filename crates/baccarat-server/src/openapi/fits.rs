//! The checks a validator would make of the document's simple shapes, for
//! the tests that hold a value as sent against the schema derived for it
//! (`replies.rs`, `views.rs`): an object's fields against its properties and
//! required list, each value's JSON type, an enum's values, an array's
//! length where one is said, an integer's bounds, a string's `pattern`, a
//! map's values against its `additionalProperties`, following `$ref`,
//! `allOf`, `anyOf` and `oneOf`.

use serde_json::{json, Map, Value};

/// `value` fits `schema` (components in `defs`), or the test fails saying
/// where and why.
pub(super) fn fits(value: &Value, schema: &Value, defs: &Map<String, Value>, at: &str) {
    if let Err(why) = check(value, schema, defs, at) {
        panic!("{why}");
    }
}

/// Whether `value` fits `schema`, and where and why not.
pub(super) fn check(value: &Value, schema: &Value, defs: &Map<String, Value>, at: &str) -> Result<(), String> {
    if let Some(r) = schema["$ref"].as_str() {
        let name = r.trim_start_matches("#/components/schemas/");
        let named = defs.get(name).ok_or_else(|| format!("{at}: no component {name}"))?;
        return check(value, named, defs, at);
    }
    if value.is_null() && schema["nullable"] == true {
        return Ok(());
    }
    if let Some(all) = schema["allOf"].as_array() {
        return all.iter().try_for_each(|s| check(value, s, defs, at));
    }
    for key in ["oneOf", "anyOf"] {
        if let Some(any) = schema[key].as_array() {
            let tries: Vec<String> = any.iter().filter_map(|s| check(value, s, defs, at).err()).collect();
            let fitted = any.len() - tries.len();
            let ok = if key == "oneOf" { fitted == 1 } else { fitted >= 1 };
            return if ok { Ok(()) } else { Err(format!("{at}: {value} fits {fitted} of {key}: {tries:?}")) };
        }
    }
    if let Some(values) = schema["enum"].as_array() {
        if !values.contains(value) {
            return Err(format!("{at}: {value} is not in the enum"));
        }
    }
    shape(value, schema, defs, at)
}

/// The value's own JSON type against the schema's `type`, and inside it.
fn shape(value: &Value, schema: &Value, defs: &Map<String, Value>, at: &str) -> Result<(), String> {
    let ty = schema["type"].as_str();
    let want = |t: &str| match ty {
        Some(ty) if ty == t => Ok(()),
        None if t == "string" && schema["enum"].is_array() => Ok(()),
        _ => Err(format!("{at}: {value} is not of type {ty:?}")),
    };
    match value {
        Value::Object(o) => {
            want("object")?;
            let Some(props) = schema["properties"].as_object() else {
                // A map: each value against `additionalProperties` where
                // that is a schema (`true` or absent: free-form).
                let values = &schema["additionalProperties"];
                if !values.is_object() {
                    return Ok(());
                }
                return o.iter().try_for_each(|(k, v)| check(v, values, defs, &format!("{at}.{k}")));
            };
            for k in o.keys() {
                if !props.contains_key(k) {
                    return Err(format!("{at}: field {k} is not in the schema"));
                }
            }
            for k in schema["required"].as_array().into_iter().flatten() {
                if !o.contains_key(k.as_str().unwrap_or_default()) {
                    return Err(format!("{at}: required {k} missing"));
                }
            }
            o.iter().try_for_each(|(k, v)| check(v, &props[k], defs, &format!("{at}.{k}")))
        }
        Value::Array(items) => {
            want("array")?;
            let n = json!(items.len());
            let short = schema["minItems"].as_u64().is_some_and(|m| (items.len() as u64) < m);
            let long = schema["maxItems"].as_u64().is_some_and(|m| (items.len() as u64) > m);
            if short || long {
                return Err(format!("{at}: {n} items, not between minItems and maxItems"));
            }
            items.iter().enumerate().try_for_each(|(i, v)| check(v, &schema["items"], defs, &format!("{at}[{i}]")))
        }
        Value::Number(n) => {
            want("integer")?;
            let v = n.as_i64().ok_or_else(|| format!("{at}: {n} is not an integer"))?;
            if schema["minimum"].as_i64().is_some_and(|min| v < min) {
                return Err(format!("{at}: {n} is below its minimum"));
            }
            if schema["maximum"].as_i64().is_some_and(|max| v > max) {
                return Err(format!("{at}: {n} is above its maximum"));
            }
            Ok(())
        }
        Value::String(s) => {
            want("string")?;
            match schema["pattern"].as_str() {
                Some(p) if !regex::Regex::new(p).map_err(|e| format!("{at}: pattern {p:?}: {e}"))?.is_match(s) => {
                    Err(format!("{at}: {s:?} does not match {p:?}"))
                }
                _ => Ok(()),
            }
        }
        Value::Bool(_) => want("boolean"),
        Value::Null => Err(format!("{at}: null where not nullable")),
    }
}

#[cfg(test)]
mod tests {
    use super::check;
    use serde_json::{json, Map};

    /// Each check refuses what it should, and passes its neighbour.
    #[test]
    fn each_check_can_fail() {
        let defs = Map::new();
        let hex = json!({ "type": "string", "pattern": "^[0-9a-f]{4}$" });
        assert!(check(&json!("00ff"), &hex, &defs, "x").is_ok());
        assert!(check(&json!("00fg"), &hex, &defs, "x").unwrap_err().contains("does not match"));
        let map = json!({ "type": "object", "additionalProperties": { "type": "integer", "minimum": 0 } });
        assert!(check(&json!({ "a": 1, "b": 0 }), &map, &defs, "x").is_ok());
        assert!(check(&json!({ "a": 1, "b": -1 }), &map, &defs, "x").unwrap_err().contains("x.b"));
        assert!(check(&json!({ "a": "1" }), &map, &defs, "x").is_err());
        let free = json!({ "type": "object", "additionalProperties": true });
        assert!(check(&json!({ "a": "1" }), &free, &defs, "x").is_ok());
        let small = json!({ "type": "integer", "minimum": 1, "maximum": 1440 });
        assert!(check(&json!(1440), &small, &defs, "x").is_ok());
        assert!(check(&json!(1441), &small, &defs, "x").unwrap_err().contains("above its maximum"));
        assert!(check(&json!(0), &small, &defs, "x").unwrap_err().contains("below its minimum"));
        assert!(check(&json!(1.5), &small, &defs, "x").is_err());
    }
}
