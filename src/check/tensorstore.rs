//! The `tensorstore` kinds: `ts_domain`, `ts_transform`, `ts_align`, `ts_dim_expr`.
//!
//! Results are compared as JSON values (members in any order, integers exact). When an
//! expectation also gives TensorStore's printed form (`"repr"`), the printed form is compared
//! too (ignoring trailing whitespace).

use serde_json::{json, Value};

use super::case::CaseOutcome;
use super::compare::{expected_error, json_diff, member, settle_error};
use crate::code::{Coded, ErrorCode};
use crate::formats::tensorstore::{
    align_dimensions_to, align_domain_to, dim_expr_from_json, AlignOptions, IndexDomain,
    IndexTransform, JsonPath, TsError,
};

/// The result object and the printed form of the result.
type Got = Result<(Value, String), (ErrorCode, String)>;

/// Adds the printed form when the expectation has one; trailing whitespace does not count.
fn with_repr(mut value: Value, repr: &str, expect: &Value) -> Value {
    if let Some(expected) = expect.get("repr").and_then(Value::as_str) {
        let same = expected.trim_end() == repr.trim_end();
        value["repr"] = Value::from(if same { expected } else { repr });
    }
    value
}

fn coded(e: TsError) -> (ErrorCode, String) {
    (e.code(), e.to_string())
}

/// Runs one case of a `tensorstore` kind.
pub fn run(kind: &str, case: &Value) -> CaseOutcome {
    let expect = member(case, "expect")?;
    let got = match kind {
        "ts_domain" => domain(case)?,
        "ts_transform" => transform(case)?,
        "ts_align" => align(case, expect)?,
        "ts_dim_expr" => dim_expr(case)?,
        other => return Err(format!("unsupported kind {other:?}")),
    };
    let got = got.map(|(value, repr)| with_repr(value, &repr, expect));
    if let Some(code) = expected_error(expect) {
        return settle_error(code, got);
    }
    match got {
        Ok(actual) => match json_diff(expect, &actual, 0.0) {
            None => Ok(()),
            Some(d) => Err(format!("{d} (got {actual})")),
        },
        Err((code, message)) => Err(format!("unexpected error [{code}] {message}")),
    }
}

fn domain(case: &Value) -> Result<Got, String> {
    let input = member(case, "domain")?;
    Ok(IndexDomain::from_json(input)
        .map(|d| (json!({"normalized": d.to_json()}), d.to_string()))
        .map_err(coded))
}

fn transform(case: &Value) -> Result<Got, String> {
    let input = member(case, "transform")?;
    Ok(IndexTransform::from_json(input)
        .map(|t| (json!({"normalized": t.to_json()}), t.to_string()))
        .map_err(coded))
}

fn options(case: &Value) -> Result<AlignOptions, String> {
    let list = member(case, "options")?.as_array().ok_or("\"options\" is not a list")?;
    let mut o = AlignOptions::NONE;
    for item in list {
        match item.as_str() {
            Some("permute") => o.permute = true,
            Some("translate") => o.translate = true,
            Some("broadcast") => o.broadcast = true,
            _ => return Err(format!("unknown alignment option {item}")),
        }
    }
    Ok(o)
}

fn align(case: &Value, expect: &Value) -> Result<Got, String> {
    let opts = options(case)?;
    let run = || -> Result<(Value, String), TsError> {
        let source = IndexDomain::from_json(member_ts(case, "source_domain")?)?;
        let target = IndexDomain::from_json(member_ts(case, "target_domain")?)?;
        let matches = align_dimensions_to(&source, &target, opts)?;
        let list: Vec<i64> =
            matches.iter().map(|m| m.and_then(|j| i64::try_from(j).ok()).unwrap_or(-1)).collect();
        let mut out = json!({ "source_matches": list });
        let mut repr = String::new();
        if expect.get("transform").is_some() || expect.get("repr").is_some() {
            let t = align_domain_to(&source, &target, opts)?;
            repr = t.to_string();
            if expect.get("transform").is_some() {
                out["transform"] = t.to_json();
            }
        }
        Ok((out, repr))
    };
    Ok(run().map_err(coded))
}

fn member_ts<'a>(case: &'a Value, key: &str) -> Result<&'a Value, TsError> {
    case.get(key).ok_or_else(|| TsError::syntax(format!("case has no {key:?}")))
}

fn dim_expr(case: &Value) -> Result<Got, String> {
    let input = member(case, "transform")?;
    let ops = member(case, "ops")?.as_array().ok_or("\"ops\" is not a list")?;
    let run = || -> Result<(Value, String), TsError> {
        let mut t = IndexTransform::from_json(input)?;
        let base = JsonPath::root().key("ops");
        for (i, op) in ops.iter().enumerate() {
            let expr = dim_expr_from_json(op, &base.index(i))?;
            t = t.apply(&expr).map_err(|e| e.context(format!("op {i}")))?;
        }
        Ok((json!({ "transform": t.to_json() }), t.to_string()))
    };
    Ok(run().map_err(coded))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(case: Value, pass: bool) {
        let kind = case["kind"].as_str().unwrap_or("").to_string();
        let outcome = run(&kind, &case);
        assert_eq!(outcome.is_ok(), pass, "{case}: {outcome:?}");
    }

    #[test]
    fn verdicts() {
        let d = json!({"shape": [2]});
        let normal = json!({"inclusive_min": [0], "exclusive_max": [2]});
        check(json!({"kind": "ts_domain", "domain": d, "expect": {"normalized": normal}}), true);
        check(
            json!({"kind": "ts_domain", "domain": d, "expect": {"normalized": {"rank": 1}}}),
            false,
        );
        check(json!({"kind": "ts_domain", "domain": d, "expect": {"error": "syntax"}}), false);
        check(json!({"kind": "ts_domain", "domain": {}, "expect": {"error": "syntax"}}), true);
        let repr = "{ [0, 2) }";
        let with_repr = json!({"normalized": normal, "repr": repr});
        check(json!({"kind": "ts_domain", "domain": d, "expect": with_repr}), true);
        let wrong_repr = json!({"normalized": normal, "repr": "{ [0, 3) }"});
        check(json!({"kind": "ts_domain", "domain": d, "expect": wrong_repr}), false);
        check(json!({"kind": "ts_unknown", "expect": {}}), false);
    }

    #[test]
    fn alignment_and_expressions() {
        let dom = json!({"shape": [3]});
        let align = json!({"kind": "ts_align", "source_domain": dom, "target_domain": dom,
            "options": [], "expect": {"source_matches": [0]}});
        check(align, true);
        let bad_option = json!({"kind": "ts_align", "source_domain": dom, "target_domain": dom,
            "options": ["rotate"], "expect": {"source_matches": [0]}});
        check(bad_option, false);
        let expr = json!({"kind": "ts_dim_expr", "transform": {"input_shape": [3]},
            "ops": [{"op": "translate_by", "dims": [0], "offsets": [1]}],
            "expect": {"transform": {"input_inclusive_min": [1], "input_exclusive_max": [4],
                "output": [{"input_dimension": 0, "offset": -1}]}}});
        check(expr, true);
    }
}
