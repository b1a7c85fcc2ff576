//! The `tensorstore` kinds: `ts_domain`, `ts_transform`, `ts_align`, `ts_dim_expr`.
//!
//! Results are compared as JSON values (members in any order, integers exact).

use serde_json::{json, Value};

use super::case::CaseOutcome;
use super::compare::{expected_error, json_diff, member, settle_error};
use crate::code::{Coded, ErrorCode};
use crate::formats::tensorstore::{
    align_dimensions_to, align_domain_to, dim_expr_from_json, AlignOptions, IndexDomain,
    IndexTransform, JsonPath, TsError,
};

type Got = Result<Value, (ErrorCode, String)>;

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
    Ok(IndexDomain::from_json(input).map(|d| json!({"normalized": d.to_json()})).map_err(coded))
}

fn transform(case: &Value) -> Result<Got, String> {
    let input = member(case, "transform")?;
    Ok(IndexTransform::from_json(input).map(|t| json!({"normalized": t.to_json()})).map_err(coded))
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
    let run = || -> Result<Value, TsError> {
        let source = IndexDomain::from_json(member_ts(case, "source_domain")?)?;
        let target = IndexDomain::from_json(member_ts(case, "target_domain")?)?;
        let matches = align_dimensions_to(&source, &target, opts)?;
        let list: Vec<i64> =
            matches.iter().map(|m| m.and_then(|j| i64::try_from(j).ok()).unwrap_or(-1)).collect();
        let mut out = json!({ "source_matches": list });
        if expect.get("transform").is_some() {
            out["transform"] = align_domain_to(&source, &target, opts)?.to_json();
        }
        Ok(out)
    };
    Ok(run().map_err(coded))
}

fn member_ts<'a>(case: &'a Value, key: &str) -> Result<&'a Value, TsError> {
    case.get(key).ok_or_else(|| TsError::syntax(format!("case has no {key:?}")))
}

fn dim_expr(case: &Value) -> Result<Got, String> {
    let input = member(case, "transform")?;
    let ops = member(case, "ops")?.as_array().ok_or("\"ops\" is not a list")?;
    let run = || -> Result<Value, TsError> {
        let mut t = IndexTransform::from_json(input)?;
        let base = JsonPath::root().key("ops");
        for (i, op) in ops.iter().enumerate() {
            let expr = dim_expr_from_json(op, &base.index(i))?;
            t = t.apply(&expr).map_err(|e| e.context(format!("op {i}")))?;
        }
        Ok(json!({ "transform": t.to_json() }))
    };
    Ok(run().map_err(coded))
}
