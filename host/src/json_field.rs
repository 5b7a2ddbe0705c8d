//! One field of a JSON object by name: the lookup every reader of hook inputs and
//! answers uses (a leaf: it depends on nothing else in the crate).

use serde_json::Value;

/// The field `name` of a JSON object (`None` for anything else). Hook inputs and configs
/// have a few dozen fields at most, and comparing that many short keys costs less than
/// hashing one (serde_json's maps hash with SipHash); larger objects are looked up by
/// hash.
pub(crate) fn field<'a>(value: &'a Value, name: &str) -> Option<&'a Value> {
    let map = value.as_object()?;
    if map.len() > SCAN_FIELDS {
        return map.get(name);
    }
    map.iter()
        .find(|(key, _)| key.as_str() == name)
        .map(|(_, v)| v)
}

/// Objects with at most this many fields are searched by [`field`] one key at a time.
const SCAN_FIELDS: usize = 32;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_is_found_by_scan_and_by_hash_alike() {
        let small = serde_json::json!({"session_id": "s", "cwd": "/p", "": 0});
        assert_eq!(field(&small, "cwd"), Some(&serde_json::json!("/p")));
        assert_eq!(field(&small, ""), Some(&serde_json::json!(0)));
        assert_eq!(field(&small, "cw"), None);
        assert_eq!(field(&serde_json::json!(["cwd"]), "cwd"), None);
        let large: serde_json::Map<String, Value> = (0..SCAN_FIELDS + 5)
            .map(|i| (format!("f{i}"), Value::from(i)))
            .collect();
        let large = Value::Object(large);
        for i in [0, SCAN_FIELDS, SCAN_FIELDS + 4] {
            let name = format!("f{i}");
            assert_eq!(field(&large, &name), large.get(&name), "{name}");
        }
        assert_eq!(field(&large, "f99"), None);
    }
}
