//! The `parse` kind: labels and einsum specs in OCANNL syntax.

use serde_json::Value;

use super::case::CaseOutcome;
use super::compare::{json_diff, member, str_member};
use crate::spec::{lexer::is_multichar, parse_einsum, parse_labels};

/// Runs one `parse` case.
pub fn run(case: &Value) -> CaseOutcome {
    let spec = str_member(case, "spec")?;
    let expect = member(case, "expect")?;
    let got = match str_member(case, "as")? {
        "labels" => parse_labels(spec).map(|s| s.to_json()),
        "einsum" => parse_einsum(spec).map(|s| s.to_json()),
        other => return Err(format!("unknown \"as\": {other:?}")),
    };
    if let Some(code) = expect.get("error").and_then(Value::as_str) {
        return match got {
            Err(_) => Ok(()),
            Ok(v) => Err(format!("expected error {code}, got {v}")),
        };
    }
    let mode_only = expect.as_object().is_some_and(|o| o.len() == 1 && o.contains_key("multichar"));
    if mode_only {
        let want = expect["multichar"].as_bool();
        let have = is_multichar(spec);
        return if want == Some(have) { Ok(()) } else { Err(format!("multichar: got {have}")) };
    }
    let got = got.map_err(|e| format!("unexpected error: {e}"))?;
    for (key, want) in expect.as_object().into_iter().flatten() {
        let have = got.get(key).unwrap_or(&Value::Null);
        if let Some(d) = json_diff(&without_empty_rows(want), have, 0.0) {
            return Err(format!("{key}: {d}"));
        }
    }
    Ok(())
}

/// Drops empty row lists from ROWS objects (a missing key and `[]` both mean an empty row).
fn without_empty_rows(v: &Value) -> Value {
    match v {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(_, x)| !x.as_array().is_some_and(Vec::is_empty))
                .map(|(k, x)| (k.clone(), without_empty_rows(x)))
                .collect(),
        ),
        Value::Array(xs) if xs.iter().all(Value::is_object) => {
            Value::Array(xs.iter().map(without_empty_rows).collect())
        }
        other => other.clone(),
    }
}
