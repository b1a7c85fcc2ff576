//! Reading a dimension expression from the JSON form of the conformance suites:
//! `{"op": NAME, "dims": [SELECTOR, ...], ...members}` (see the `ts_dim_expr` kind of the
//! [case format](crate::check::format#tensorstore-index-spaces)).

use serde_json::{Map, Value};

use super::array::{index_leaf, json_i64, IndexArray, NdArray};
use super::error::{JsonPath, TsError, TsResult};
use super::expr::{DimExpr, DimOp, IndexTerm, IndexVector, PerDim};
use super::json_read::{as_object, check_no_extra, int_member};
use super::select::DimSelector;
use super::slice::SliceSpec;

fn opt_int(v: &Value, path: &JsonPath) -> TsResult<Option<i64>> {
    match v {
        Value::Null => Ok(None),
        _ => int_member(v, path).map(Some),
    }
}

fn selector(v: &Value, path: &JsonPath) -> TsResult<DimSelector> {
    match v {
        Value::String(s) => Ok(DimSelector::Label(s.clone())),
        Value::Object(obj) => {
            check_no_extra(obj, &["range"], path)?;
            let p = path.key("range");
            let items = obj.get("range").and_then(Value::as_array).ok_or_else(|| {
                TsError::syntax("a range selector is {\"range\": [start, stop, step]}").at(path)
            })?;
            if items.len() > 3 {
                return Err(TsError::syntax("a range has at most 3 entries").at(&p));
            }
            let get = |i: usize| items.get(i).map_or(Ok(None), |x| opt_int(x, &p.index(i)));
            let (start, stop, step) = (get(0)?, get(1)?, get(2)?.unwrap_or(1));
            Ok(DimSelector::Range { start, stop, step })
        }
        _ => int_member(v, path).map(DimSelector::Index),
    }
}

fn selectors(v: &Value, path: &JsonPath) -> TsResult<Vec<DimSelector>> {
    match v {
        Value::Array(items) => {
            items.iter().enumerate().map(|(i, x)| selector(x, &path.index(i))).collect()
        }
        other => Ok(vec![selector(other, path)?]),
    }
}

fn index_vector(v: &Value, path: &JsonPath) -> TsResult<IndexVector> {
    match v {
        Value::Array(items) => Ok(PerDim::Each(
            items
                .iter()
                .enumerate()
                .map(|(i, x)| opt_int(x, &path.index(i)))
                .collect::<TsResult<_>>()?,
        )),
        other => Ok(PerDim::All(opt_int(other, path)?)),
    }
}

fn slice_spec(v: &Value, path: &JsonPath) -> TsResult<SliceSpec> {
    let obj = as_object(v, path)?;
    check_no_extra(obj, &["start", "stop", "step"], path)?;
    let get = |k: &str| obj.get(k).map_or(Ok(None), |x| opt_int(x, &path.key(k)));
    Ok(SliceSpec::new(get("start")?, get("stop")?, get("step")?.unwrap_or(1)))
}

fn first_leaf(v: &Value) -> &Value {
    match v {
        Value::Array(items) => items.first().map_or(v, first_leaf),
        other => other,
    }
}

fn bool_leaf(v: &Value, path: &JsonPath) -> TsResult<bool> {
    v.as_bool().ok_or_else(|| {
        TsError::value(format!("Expected boolean (mask element), but received: {v}")).at(path)
    })
}

fn index_term(v: &Value, path: &JsonPath) -> TsResult<IndexTerm> {
    match v {
        Value::Array(_) if first_leaf(v).is_boolean() => {
            Ok(IndexTerm::Mask(NdArray::from_json(v, path, &bool_leaf)?))
        }
        Value::Array(_) => Ok(IndexTerm::Array(IndexArray::from_json(v, path, &index_leaf)?)),
        Value::Bool(_) => Ok(IndexTerm::Mask(NdArray::from_json(v, path, &bool_leaf)?)),
        _ => json_i64(v).map(IndexTerm::Index).ok_or_else(|| {
            TsError::value(format!("Expected integer or array, but received: {v}")).at(path)
        }),
    }
}

fn strings(v: &Value, path: &JsonPath) -> TsResult<Vec<String>> {
    match v {
        Value::String(s) => Ok(vec![s.clone()]),
        Value::Array(items) => items
            .iter()
            .enumerate()
            .map(|(i, x)| {
                x.as_str().map(str::to_string).ok_or_else(|| {
                    TsError::syntax(format!("Expected string, but received: {x}"))
                        .at(&path.index(i))
                })
            })
            .collect(),
        _ => Err(TsError::syntax(format!("Expected list of strings, but received: {v}")).at(path)),
    }
}

fn opt_bool(obj: &Map<String, Value>, key: &str, path: &JsonPath) -> TsResult<Option<bool>> {
    match obj.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(*b)),
        Some(v) => Err(TsError::syntax(format!("Expected true, false or null, but received: {v}"))
            .at(&path.key(key))),
    }
}

/// Reads the one member `key` of the op, which is required.
fn required<'a>(obj: &'a Map<String, Value>, key: &str, path: &JsonPath) -> TsResult<&'a Value> {
    obj.get(key).ok_or_else(|| TsError::syntax(format!("missing member {key:?}")).at(path))
}

fn terms(v: &Value, path: &JsonPath) -> TsResult<Vec<IndexTerm>> {
    let items = v.as_array().ok_or_else(|| {
        TsError::syntax("\"arrays\" is a list with one array per selected dimension").at(path)
    })?;
    items.iter().enumerate().map(|(i, x)| index_term(x, &path.index(i))).collect()
}

fn transpose_target(v: &Value, path: &JsonPath) -> TsResult<DimOp> {
    match v {
        Value::Array(_) => Ok(DimOp::Transpose(selectors(v, path)?)),
        _ => Ok(DimOp::Transpose(vec![DimSelector::Index(int_member(v, path)?)])),
    }
}

fn intervals(v: &Value, path: &JsonPath) -> TsResult<PerDim<SliceSpec>> {
    match v {
        Value::Array(items) => Ok(PerDim::Each(
            items
                .iter()
                .enumerate()
                .map(|(i, x)| slice_spec(x, &path.index(i)))
                .collect::<TsResult<_>>()?,
        )),
        other => Ok(PerDim::All(slice_spec(other, path)?)),
    }
}

/// `mark_bounds_implicit`: `lower`/`upper` (or `implicit` for both), each a bool or null.
fn mark_implicit(obj: &Map<String, Value>, path: &JsonPath) -> TsResult<DimOp> {
    let both = opt_bool(obj, "implicit", path)?;
    let lower = opt_bool(obj, "lower", path)?.or(both);
    let upper = opt_bool(obj, "upper", path)?.or(both);
    Ok(DimOp::MarkBoundsImplicit { lower, upper })
}

/// The op and the names of the members it reads (besides `op` and `dims`).
fn read_op(
    name: &str,
    obj: &Map<String, Value>,
    path: &JsonPath,
) -> TsResult<(DimOp, &'static [&'static str])> {
    let member = |k: &str| required(obj, k, path).map(|v| (v, path.key(k)));
    Ok(match name {
        "translate_to" => {
            let (v, p) = member("origins")?;
            (DimOp::TranslateTo(index_vector(v, &p)?), &["origins"])
        }
        "translate_by" | "translate_backward_by" => {
            let (v, p) = member("offsets")?;
            let vector = index_vector(v, &p)?;
            let op = if name == "translate_by" {
                DimOp::TranslateBy(vector)
            } else {
                DimOp::TranslateBackwardBy(vector)
            };
            (op, &["offsets"])
        }
        "label" => (DimOp::Label(strings(member("labels")?.0, &path.key("labels"))?), &["labels"]),
        "transpose" => {
            let (v, p) = member("target")?;
            (transpose_target(v, &p)?, &["target"])
        }
        "move_to" => {
            let (v, p) = member("target")?;
            (DimOp::MoveTo(int_member(v, &p)?), &["target"])
        }
        "stride" => {
            let (v, p) = member("strides")?;
            (DimOp::Stride(index_vector(v, &p)?), &["strides"])
        }
        "interval_slice" => {
            let (v, p) = member("intervals")?;
            (DimOp::IntervalSlice(intervals(v, &p)?), &["intervals"])
        }
        "index_slice" => {
            let (v, p) = member("indices")?;
            (DimOp::IndexSlice(index_vector(v, &p)?), &["indices"])
        }
        "oindex" | "vindex" => {
            let (v, p) = member("arrays")?;
            let t = terms(v, &p)?;
            (if name == "oindex" { DimOp::OIndex(t) } else { DimOp::VIndex(t) }, &["arrays"])
        }
        "diagonal" => (DimOp::Diagonal, &[]),
        "newaxis" => (DimOp::NewAxis, &[]),
        "mark_bounds_implicit" => (mark_implicit(obj, path)?, &["lower", "upper", "implicit"]),
        other => {
            return Err(TsError::syntax(format!("unknown dimension-expression op {other:?}"))
                .at(&path.key("op")));
        }
    })
}

/// Reads one op object (`{"op": ..., "dims": [...], ...}`).
pub fn dim_expr_from_json(v: &Value, path: &JsonPath) -> TsResult<DimExpr> {
    let obj = as_object(v, path)?;
    let name = obj
        .get("op")
        .and_then(Value::as_str)
        .ok_or_else(|| TsError::syntax("an op needs a string member \"op\"").at(path))?;
    let dims = match obj.get("dims") {
        Some(d) => selectors(d, &path.key("dims"))?,
        None => return Err(TsError::syntax("missing member \"dims\"").at(path)),
    };
    let (op, members) = read_op(name, obj, path)?;
    let allowed: Vec<&str> = ["op", "dims"].iter().chain(members).copied().collect();
    check_no_extra(obj, &allowed, path)?;
    Ok(DimExpr::new(dims, op))
}
