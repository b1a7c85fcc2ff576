//! The `view` kind: Nervana tensor descriptions ([`NamedView`]) built from a base and a list
//! of view operations, compared member by member with `expect`.

use serde_json::{json, Value};

use super::case::CaseOutcome;
use super::compare::{expected_error, json_diff, member, settle_error};
use crate::code::{Coded, ErrorCode};
use crate::tensor::{NamedView, SliceItem, SliceSpec};

type Failure = (ErrorCode, String);

/// Runs one `view` case.
pub fn run(case: &Value) -> CaseOutcome {
    let expect = member(case, "expect")?;
    let got = evaluate(case);
    if let Some(code) = expected_error(expect) {
        return settle_error(code, got);
    }
    let view = got.map_err(|(code, msg)| format!("error [{code}]: {msg}"))?;
    let actual = report(&view, expect).map_err(|(code, msg)| format!("error [{code}]: {msg}"))?;
    match json_diff(expect, &actual, 0.0) {
        None => Ok(()),
        Some(d) => Err(d),
    }
}

/// The members of `expect` computed from `view` (only those `expect` has). Listing the values
/// of a view larger than [`MAX_LISTED_VALUES`](crate::tensor::MAX_LISTED_VALUES) is an error.
fn report(view: &NamedView, expect: &Value) -> Result<Value, Failure> {
    let mut out = serde_json::Map::new();
    let Some(keys) = expect.as_object() else { return Ok(Value::Object(out)) };
    for key in keys.keys() {
        let v = match key.as_str() {
            "axes" => Value::Array(
                view.axes()
                    .iter()
                    .map(|a| if a.flattened { json!(a.names) } else { json!(a.names[0]) })
                    .collect(),
            ),
            "shape" => json!(view.shape()),
            "strides" => json!(view.strides_bytes().iter().map(|&s| s as i64).collect::<Vec<_>>()),
            "offset" => json!(view.offset_bytes() as i64),
            "c_contiguous" => json!(view.c_contiguous()),
            "broadcast_contiguous" => json!(view.broadcast_contiguous()),
            "values" => json!(view.values().map_err(coded)?),
            _ => continue,
        };
        out.insert(key.clone(), v);
    }
    Ok(Value::Object(out))
}

/// Builds the base and applies the ops.
fn evaluate(case: &Value) -> Result<NamedView, Failure> {
    let base = case.get("base").ok_or_else(|| syntax("case has no \"base\""))?;
    let axes = axis_list(base.get("axes").ok_or_else(|| syntax("base has no \"axes\""))?)?;
    let dtype_bytes = base.get("dtype_bytes").map_or(Ok(4), |v| uint(v, "dtype_bytes"))?;
    let full = match base.get("full_sizes") {
        None | Some(Value::Null) => None,
        Some(v) => Some(
            list(v, "full_sizes")?
                .iter()
                .map(|x| uint(x, "full_sizes"))
                .collect::<Result<Vec<_>, _>>()?,
        ),
    };
    let mut view = NamedView::new(&axes, dtype_bytes, full.as_deref()).map_err(coded)?;
    let ops = case.get("ops").map_or(Ok(&[][..]), |v| list(v, "ops"))?;
    for op in ops {
        view = apply(&view, op)?;
    }
    Ok(view)
}

fn apply(view: &NamedView, op: &Value) -> Result<NamedView, Failure> {
    let name =
        op.get("op").and_then(Value::as_str).ok_or_else(|| syntax("an op has no \"op\" name"))?;
    let field = |k: &str| op.get(k).ok_or_else(|| syntax(&format!("op {name} has no {k:?}")));
    match name {
        "transpose" => Ok(view.transpose()),
        "reorder" => view.reorder(&name_items(field("axes")?)?).map_err(coded),
        "broadcast" => view.broadcast(&axis_list(field("axes")?)?).map_err(coded),
        "elementwise" => view.elementwise(&axis_list(field("other")?)?).map_err(coded),
        "flatten" => view.flatten(&name_items(field("axes")?)?).map_err(coded),
        "unflatten" => Ok(view.unflatten()),
        "slice" => {
            let items = list(field("slices")?, "slices")?
                .iter()
                .map(slice_item)
                .collect::<Result<Vec<_>, _>>()?;
            let names = match op.get("names") {
                None | Some(Value::Null) => None,
                Some(v) => {
                    Some(list(v, "names")?.iter().map(string).collect::<Result<Vec<_>, _>>()?)
                }
            };
            view.slice(&items, names.as_deref()).map_err(coded)
        }
        other => Err((ErrorCode::Unsupported, format!("unknown view op {other:?}"))),
    }
}

/// `[{"name", "length"}, ...]`.
fn axis_list(v: &Value) -> Result<Vec<(String, u64)>, Failure> {
    list(v, "axes")?
        .iter()
        .map(|a| {
            let name = string(a.get("name").ok_or_else(|| syntax("an axis has no \"name\""))?)?;
            let len = uint(
                a.get("length").ok_or_else(|| syntax("an axis has no \"length\""))?,
                "length",
            )?;
            Ok((name, len))
        })
        .collect()
}

/// Items that are a name or a list of names.
fn name_items(v: &Value) -> Result<Vec<Vec<String>>, Failure> {
    list(v, "axes")?
        .iter()
        .map(|it| match it {
            Value::Array(xs) => xs.iter().map(string).collect(),
            other => Ok(vec![string(other)?]),
        })
        .collect()
}

fn slice_item(v: &Value) -> Result<SliceItem, Failure> {
    if let Some(i) = v.as_i64() {
        return Ok(SliceItem::Index(i));
    }
    let obj = v.as_object().ok_or_else(|| syntax(&format!("bad slice item {v}")))?;
    let opt = |k: &str| -> Result<Option<i64>, Failure> {
        match obj.get(k) {
            None | Some(Value::Null) => Ok(None),
            Some(x) => {
                x.as_i64().map(Some).ok_or_else(|| syntax(&format!("slice {k} must be an integer")))
            }
        }
    };
    let step = opt("step")?.unwrap_or(1);
    Ok(SliceItem::Range(SliceSpec { start: opt("start")?, stop: opt("stop")?, step }))
}

fn list<'a>(v: &'a Value, what: &str) -> Result<&'a [Value], Failure> {
    v.as_array().map(Vec::as_slice).ok_or_else(|| syntax(&format!("{what} must be a list")))
}

fn string(v: &Value) -> Result<String, Failure> {
    v.as_str().map(str::to_string).ok_or_else(|| syntax(&format!("expected a name, got {v}")))
}

fn uint(v: &Value, what: &str) -> Result<u64, Failure> {
    match (v.as_u64(), v.as_i64()) {
        (Some(x), _) => Ok(x),
        (None, Some(x)) => Err((ErrorCode::Value, format!("{what} must not be negative, got {x}"))),
        _ => Err(syntax(&format!("{what} must be an integer, got {v}"))),
    }
}

fn syntax(msg: &str) -> Failure {
    (ErrorCode::Syntax, msg.to_string())
}

fn coded(e: crate::tensor::TensorError) -> Failure {
    (e.code(), e.to_string())
}
