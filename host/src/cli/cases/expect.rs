//! What a fire of a case expects, how an outcome is held against it, and how `--bless`
//! rewrites it from what the engine answered.
//!
//! `expect` is a subset of the `EventOutcome` JSON — every key given must match (objects
//! recursively, arrays element by element with the same length) — plus four shorthand
//! keys for hook authors: `decision` (`allow`, `deny`, `ask`, `defer`, `block` or `none`),
//! and `reason`, `context` and `error`, substrings of the merged reason, the additional
//! context and the first hook error. With a shorthand key, a hook error fails the case
//! unless `error` expects it.

use serde_json::{Map, Value};

/// The shorthand keys.
const SHORTHAND: &[&str] = &["decision", "reason", "context", "error"];
/// The decisions `decision` may name.
const DECISIONS: &[&str] = &["allow", "deny", "ask", "defer", "block", "none"];

/// The outcome as compared and blessed: what varies from run to run removed.
pub fn comparable(mut outcome: Value) -> Value {
    if let Some(hooks) = outcome.get_mut("hooks").and_then(Value::as_array_mut) {
        for hook in hooks.iter_mut().filter_map(Value::as_object_mut) {
            hook.remove("duration_ms");
            // Changes with every rebuild of a guest.
            hook.remove("sha256");
        }
    }
    outcome
}

/// The decision an outcome stands for, in the shorthand's words.
fn decision(outcome: &Value) -> &str {
    match outcome["permission_decision"].as_str() {
        Some(decision) => decision,
        None if outcome["should_block"] == Value::Bool(true) => "block",
        None => "none",
    }
}

fn reason(outcome: &Value) -> Option<&str> {
    outcome["block_reason"]
        .as_str()
        .or(outcome["permission_decision_reason"].as_str())
}

fn first_error(outcome: &Value) -> Option<&str> {
    outcome["hooks"]
        .as_array()?
        .iter()
        .find_map(|hook| hook["error"].as_str())
}

/// Every way `outcome` falls short of `expect`.
pub fn check(expect: &Value, outcome: &Value) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(expect) = expect.as_object() else {
        if !expect.is_null() {
            problems.push("`expect` must be an object".into());
        }
        return problems;
    };
    let (short, full): (Map<String, Value>, Map<String, Value>) = expect
        .clone()
        .into_iter()
        .partition(|(key, _)| SHORTHAND.contains(&key.as_str()));
    subset(&Value::Object(full), outcome, "outcome", &mut problems);
    if short.is_empty() {
        return problems;
    }
    let error = first_error(outcome);
    if !short.contains_key("error")
        && let Some(error) = error
    {
        problems.push(format!("a hook failed: {error}"));
    }
    if let Some(want) = short.get("decision") {
        match want.as_str() {
            Some(want) if !DECISIONS.contains(&want) => problems.push(format!(
                "expect.decision `{want}` is not one of {DECISIONS:?}"
            )),
            Some(want) if want != decision(outcome) => problems.push(format!(
                "expected decision {want}, got {}",
                decision(outcome)
            )),
            Some(_) => {}
            None => problems.push("expect.decision must be a string".into()),
        }
    }
    let context = outcome["additional_context"].as_str();
    for (key, got) in [
        ("reason", reason(outcome)),
        ("context", context),
        ("error", error),
    ] {
        let Some(want) = short.get(key) else { continue };
        match (want.as_str(), got) {
            (Some(want), Some(got)) if got.contains(want) => {}
            (Some(want), got) => {
                problems.push(format!("expected {key} containing {want:?}, got {got:?}"))
            }
            (None, _) => problems.push(format!("expect.{key} must be a string")),
        }
    }
    problems
}

/// Whether `actual` holds everything `expected` says.
fn subset(expected: &Value, actual: &Value, path: &str, problems: &mut Vec<String>) {
    match (expected, actual) {
        (Value::Object(want), Value::Object(have)) => {
            for (key, value) in want {
                let here = format!("{path}.{key}");
                match have.get(key) {
                    Some(found) => subset(value, found, &here, problems),
                    None if value.is_null() => {}
                    None => problems.push(format!("{here}: missing, expected {value}")),
                }
            }
        }
        (Value::Array(want), Value::Array(have)) if want.len() == have.len() => {
            for (index, (w, h)) in want.iter().zip(have).enumerate() {
                subset(w, h, &format!("{path}[{index}]"), problems);
            }
        }
        (want, have) if want != have => {
            problems.push(format!("{path}: expected {want}, found {have}"))
        }
        _ => {}
    }
}

/// `expect` rewritten from `outcome`: the keys it names take the values the engine gave
/// (shorthand keys their full text); with no key named, the whole outcome.
pub fn bless(expect: &Value, outcome: &Value) -> Value {
    let Some(named) = expect.as_object().filter(|map| !map.is_empty()) else {
        return outcome.clone();
    };
    let mut out = Map::new();
    for (key, want) in named {
        let value = match key.as_str() {
            "decision" => Value::String(decision(outcome).to_string()),
            "reason" => reason(outcome).map_or(Value::Null, |r| Value::String(r.into())),
            "context" => outcome["additional_context"].clone(),
            "error" => first_error(outcome).map_or(Value::Null, |e| Value::String(e.into())),
            _ => project(want, outcome.get(key).unwrap_or(&Value::Null)),
        };
        out.insert(key.clone(), value);
    }
    Value::Object(out)
}

/// `actual` cut to the shape of `expected`: the keys an object names, an array element by
/// element when the lengths agree, else the actual value whole.
fn project(expected: &Value, actual: &Value) -> Value {
    match (expected, actual) {
        (Value::Object(want), Value::Object(have)) if !want.is_empty() => Value::Object(
            want.iter()
                .filter_map(|(key, w)| Some((key.clone(), project(w, have.get(key)?))))
                .collect(),
        ),
        (Value::Array(want), Value::Array(have)) if want.len() == have.len() => {
            Value::Array(want.iter().zip(have).map(|(w, h)| project(w, h)).collect())
        }
        _ => actual.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn outcome() -> Value {
        json!({"should_block": true, "block_reason": "say no", "permission_decision": "deny",
               "additional_context": null,
               "hooks": [{"name": "a", "status": "blocking", "duration_ms": 1.0},
                         {"name": "b", "status": "error", "error": "boom"}]})
    }

    #[test]
    fn subsets_and_shorthand_name_what_they_wanted() {
        let problems = check(
            &json!({"should_block": true, "hooks": [{"name": "a"}, {}]}),
            &outcome(),
        );
        assert!(problems.is_empty(), "{problems:?}");
        let problems = check(&json!({"hooks": [{"name": "a"}]}), &outcome());
        assert_eq!(
            problems.len(),
            1,
            "arrays have the same length: {problems:?}"
        );
        let problems = check(&json!({"decision": "deny", "reason": "no"}), &outcome());
        assert_eq!(problems, vec!["a hook failed: boom".to_string()]);
        assert!(check(&json!({"decision": "deny", "error": "boo"}), &outcome()).is_empty());
        let problems = check(&json!({"decision": "allow", "error": "x"}), &outcome());
        assert_eq!(problems.len(), 2, "{problems:?}");
        let problems = check(&json!({"decison": "deny"}), &outcome());
        assert!(problems[0].contains("decison"), "{problems:?}");
    }

    #[test]
    fn bless_keeps_the_shape_it_was_given() {
        let blessed = bless(
            &json!({"decision": "allow", "hooks": [{"name": "x"}, {"status": "y"}]}),
            &outcome(),
        );
        assert_eq!(
            blessed,
            json!({"decision": "deny", "hooks": [{"name": "a"}, {"status": "error"}]})
        );
        assert_eq!(bless(&json!({}), &outcome()), outcome());
        let whole = bless(&Value::Null, &comparable(outcome()));
        assert!(whole["hooks"][0].get("duration_ms").is_none());
    }
}
