//! Reading `IndexDomain` and `IndexTransform` JSON, with TensorStore's member rules, defaults
//! and validation. Every error carries the JSON pointer of the offending value.

use serde_json::{Map, Value};

use super::array::{index_leaf, json_i64, IndexArray};
use super::domain::{check_rank, Dim, IndexDomain};
use super::error::{JsonPath, TsError, TsResult};
use super::interval::{Interval, OptInterval, INF_INDEX, INF_SIZE, MAX_RANK};
use super::slice::IntervalForm;
use super::transform::{IndexTransform, OutputMap};

/// The member names of a domain (`rank`, ...) or of a transform's input domain (`input_rank`).
pub(crate) struct Keys {
    pub rank: &'static str,
    pub inclusive_min: &'static str,
    pub inclusive_max: &'static str,
    pub shape: &'static str,
    pub exclusive_max: &'static str,
    pub labels: &'static str,
}

/// The member names of an `IndexDomain`.
pub(crate) const DOMAIN_KEYS: Keys = Keys {
    rank: "rank",
    inclusive_min: "inclusive_min",
    inclusive_max: "inclusive_max",
    shape: "shape",
    exclusive_max: "exclusive_max",
    labels: "labels",
};

/// The member names of an `IndexTransform`'s input domain.
pub(crate) const TRANSFORM_KEYS: Keys = Keys {
    rank: "input_rank",
    inclusive_min: "input_inclusive_min",
    inclusive_max: "input_inclusive_max",
    shape: "input_shape",
    exclusive_max: "input_exclusive_max",
    labels: "input_labels",
};

/// One bound entry: its value and whether it was written `[n]` (implicit).
type Entry = (i64, bool);

/// The members of a domain as read, before defaults and validation.
#[derive(Default)]
struct DomainParts {
    rank: Option<usize>,
    lower: Option<Vec<Entry>>,
    upper: Option<(IntervalForm, &'static str, Vec<Entry>)>,
    labels: Option<Vec<String>>,
}

pub(crate) fn as_object<'a>(v: &'a Value, path: &JsonPath) -> TsResult<&'a Map<String, Value>> {
    v.as_object()
        .ok_or_else(|| TsError::syntax(format!("Expected object, but received: {v}")).at(path))
}

fn as_array<'a>(v: &'a Value, path: &JsonPath) -> TsResult<&'a Vec<Value>> {
    v.as_array()
        .ok_or_else(|| TsError::syntax(format!("Expected array, but received: {v}")).at(path))
}

fn quoted(names: &[&str]) -> String {
    names.iter().map(|n| format!("{n:?}")).collect::<Vec<_>>().join(", ")
}

/// Rejects members outside `allowed`.
pub(crate) fn check_no_extra(
    obj: &Map<String, Value>,
    allowed: &[&str],
    path: &JsonPath,
) -> TsResult<()> {
    let extra: Vec<&str> =
        obj.keys().map(String::as_str).filter(|k| !allowed.contains(k)).collect();
    if extra.is_empty() {
        return Ok(());
    }
    let first = path.key(extra[0]);
    Err(TsError::syntax(format!("Object includes extra members: {}", quoted(&extra))).at(&first))
}

/// Reads an `i64` member value (integers, integral floats).
pub(crate) fn int_member(v: &Value, path: &JsonPath) -> TsResult<i64> {
    json_i64(v).ok_or_else(|| {
        TsError::value(format!("Expected 64-bit signed integer, but received: {v}")).at(path)
    })
}

/// TensorStore's bound reader (`JsonRequireInteger` with `strict`): a JSON number with an
/// integer value limited to `[neg, pos]`, plus `"-inf"` → `neg` when `neg` is given and
/// `"+inf"` → `pos` when given. No other string is read, not even a decimal one (`"3"`).
fn read_bound(v: &Value, neg: Option<i64>, pos: Option<i64>, path: &JsonPath) -> TsResult<i64> {
    if let Value::String(s) = v {
        match (s.as_str(), neg, pos) {
            ("-inf", Some(n), _) => return Ok(n),
            ("+inf", _, Some(p)) => return Ok(p),
            _ => {}
        }
    }
    if let Some(x) = json_i64(v) {
        if neg.is_none_or(|n| x >= n) && pos.is_none_or(|p| x <= p) {
            return Ok(x);
        }
    }
    let mut expected = String::from("64-bit signed integer");
    if neg.is_some() {
        expected.push_str(" or \"-inf\"");
    }
    if pos.is_some() {
        expected.push_str(" or \"+inf\"");
    }
    Err(TsError::value(format!("Expected {expected}, but received: {v}")).at(path))
}

/// Validates an array length against the rank, fixing the rank on first use.
fn bind_rank(rank: &mut Option<usize>, len: usize, path: &JsonPath) -> TsResult<()> {
    check_rank(len).map_err(|e| e.at(path))?;
    match *rank {
        Some(r) if r != len => {
            Err(TsError::rank(format!("Array has length {len} but should have length {r}"))
                .at(path))
        }
        _ => {
            *rank = Some(len);
            Ok(())
        }
    }
}

fn read_entries(
    v: &Value,
    rank: &mut Option<usize>,
    path: &JsonPath,
    neg: Option<i64>,
    pos: Option<i64>,
) -> TsResult<Vec<Entry>> {
    let items = as_array(v, path)?;
    bind_rank(rank, items.len(), path)?;
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let p = path.index(i);
        let entry = match item {
            Value::Array(inner) if inner.len() == 1 => {
                (read_bound(&inner[0], neg, pos, &p.index(0))?, true)
            }
            Value::Array(_) => {
                return Err(TsError::syntax(format!(
                    "Expected array of size 1 indicating an implicit value, but received: {item}"
                ))
                .at(&p));
            }
            _ => (read_bound(item, neg, pos, &p)?, false),
        };
        out.push(entry);
    }
    Ok(out)
}

fn read_rank(v: &Value, path: &JsonPath) -> TsResult<usize> {
    match json_i64(v) {
        Some(r) if (0..=MAX_RANK as i64).contains(&r) => Ok(r as usize),
        Some(_) => Err(TsError::rank(format!(
            "Expected integer in the range [0, {MAX_RANK}], but received: {v}"
        ))
        .at(path)),
        None => Err(TsError::value(format!(
            "Expected integer in the range [0, {MAX_RANK}], but received: {v}"
        ))
        .at(path)),
    }
}

fn read_labels(v: &Value, rank: &mut Option<usize>, path: &JsonPath) -> TsResult<Vec<String>> {
    let items = as_array(v, path)?;
    bind_rank(rank, items.len(), path)?;
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => Ok(s.clone()),
            _ => Err(TsError::syntax(format!("Expected string, but received: {item}"))
                .at(&path.index(i))),
        })
        .collect()
}

fn read_domain_parts(
    obj: &Map<String, Value>,
    keys: &Keys,
    path: &JsonPath,
) -> TsResult<DomainParts> {
    let all = [keys.rank, keys.inclusive_min, keys.shape, keys.inclusive_max, keys.exclusive_max];
    if !all.iter().chain([&keys.labels]).any(|k| obj.contains_key(*k)) {
        let names = [all.as_slice(), &[keys.labels]].concat();
        return Err(TsError::syntax(format!(
            "At least one of {} members must be specified",
            quoted(&names)
        ))
        .at(path));
    }
    let mut parts = DomainParts::default();
    if let Some(v) = obj.get(keys.rank) {
        parts.rank = Some(read_rank(v, &path.key(keys.rank))?);
    }
    if let Some(v) = obj.get(keys.inclusive_min) {
        let p = path.key(keys.inclusive_min);
        parts.lower = Some(read_entries(v, &mut parts.rank, &p, Some(-INF_INDEX), None)?);
    }
    let uppers = [
        (keys.shape, IntervalForm::Sized, INF_SIZE),
        (keys.inclusive_max, IntervalForm::Closed, INF_INDEX),
        (keys.exclusive_max, IntervalForm::HalfOpen, INF_INDEX + 1),
    ];
    let present: Vec<_> = uppers.iter().filter(|u| obj.contains_key(u.0)).collect();
    if present.len() > 1 {
        let names = [keys.shape, keys.inclusive_max, keys.exclusive_max];
        return Err(TsError::syntax(format!(
            "At most one of {} members is allowed",
            quoted(&names)
        ))
        .at(&path.key(present[1].0)));
    }
    if let Some(&&(key, form, pos)) = present.first() {
        let v = &obj[key];
        let entries = read_entries(v, &mut parts.rank, &path.key(key), None, Some(pos))?;
        parts.upper = Some((form, key, entries));
    }
    if let Some(v) = obj.get(keys.labels) {
        parts.labels = Some(read_labels(v, &mut parts.rank, &path.key(keys.labels))?);
    }
    Ok(parts)
}

fn dim_interval(form: IntervalForm, origin: i64, upper: i64) -> TsResult<Interval> {
    match form {
        IntervalForm::Sized => {
            let size = if upper == INF_SIZE { INF_INDEX + 1 - origin } else { upper };
            Interval::sized(origin, size)
        }
        IntervalForm::Closed => Interval::closed(origin, upper),
        IntervalForm::HalfOpen => Interval::half_open(origin, upper),
    }
}

/// Applies TensorStore's defaults and validates the intervals and labels.
fn finish_domain(parts: DomainParts, keys: &Keys, path: &JsonPath) -> TsResult<IndexDomain> {
    let rank = parts.rank.unwrap_or(0);
    let sized_upper = matches!(parts.upper, Some((IntervalForm::Sized, _, _)));
    let mut dims = Vec::with_capacity(rank);
    for i in 0..rank {
        let (origin, implicit_lower) = match &parts.lower {
            Some(l) => l.get(i).copied().unwrap_or((-INF_INDEX, true)),
            None if sized_upper => (0, false),
            None => (-INF_INDEX, true),
        };
        let (form, upper_key, (upper, implicit_upper)) = match &parts.upper {
            Some((form, key, u)) => (*form, *key, u.get(i).copied().unwrap_or((0, false))),
            None => (IntervalForm::HalfOpen, keys.exclusive_max, (INF_INDEX + 1, true)),
        };
        let interval =
            dim_interval(form, origin, upper).map_err(|e| e.at(&path.key(upper_key).index(i)))?;
        let label = parts.labels.as_ref().and_then(|l| l.get(i).cloned()).unwrap_or_default();
        dims.push(Dim { bounds: OptInterval { interval, implicit_lower, implicit_upper }, label });
    }
    IndexDomain::new(dims).map_err(|e| e.at(&path.key(keys.labels)))
}

/// Reads an `IndexDomain` JSON object.
pub fn domain_from_json(v: &Value) -> TsResult<IndexDomain> {
    let path = JsonPath::root();
    let obj = as_object(v, &path)?;
    let k = &DOMAIN_KEYS;
    let parts = read_domain_parts(obj, k, &path)?;
    let allowed = [k.rank, k.inclusive_min, k.inclusive_max, k.shape, k.exclusive_max, k.labels];
    check_no_extra(obj, &allowed, &path)?;
    finish_domain(parts, k, &path)
}

/// Reads `index_array_bounds`: `[lo, hi]` (closed), each end a number or `"-inf"`/`"+inf"`.
fn read_index_bounds(v: &Value, path: &JsonPath) -> TsResult<Interval> {
    let items = as_array(v, path)?;
    if items.len() != 2 {
        return Err(TsError::syntax(format!(
            "Expected array of length 2 [inclusive_min, inclusive_max], but received: {v}"
        ))
        .at(path));
    }
    let lo = read_bound(&items[0], Some(-INF_INDEX), None, &path.index(0))?;
    let hi = read_bound(&items[1], None, Some(INF_INDEX), &path.index(1))?;
    Interval::closed(lo, hi).map_err(|e| e.at(path))
}

fn read_output_map(v: &Value, o: usize, path: &JsonPath) -> TsResult<OutputMap> {
    let obj = as_object(v, path)?;
    let offset = obj.get("offset").map(|o| int_member(o, &path.key("offset"))).transpose()?;
    if obj.contains_key("input_dimension") && obj.contains_key("index_array") {
        return Err(TsError::syntax(
            "At most one of \"input_dimension\", \"index_array\" members is allowed",
        )
        .at(&path.key("index_array")));
    }
    let input_dimension =
        obj.get("input_dimension").map(|d| int_member(d, &path.key("input_dimension")));
    let input_dimension = input_dimension.transpose()?;
    let array = obj
        .get("index_array")
        .map(|a| IndexArray::from_json(a, &path.key("index_array"), &index_leaf))
        .transpose()?;
    let mut bounds = Interval::INFINITE;
    if let Some(b) = obj.get("index_array_bounds") {
        let p = path.key("index_array_bounds");
        if array.is_none() {
            return Err(TsError::syntax(
                "\"index_array_bounds\" is only valid with \"index_array\"",
            )
            .at(&p));
        }
        bounds = read_index_bounds(b, &p)?;
    }
    let mut stride = 1;
    if let Some(s) = obj.get("stride") {
        let p = path.key("stride");
        if input_dimension.is_none() && array.is_none() {
            return Err(TsError::syntax(
                "Either \"input_dimension\" or \"index_array\" must be specified in conjunction \
                 with \"stride\"",
            )
            .at(&p));
        }
        stride = int_member(s, &p)?;
    }
    let allowed = ["offset", "input_dimension", "index_array", "index_array_bounds", "stride"];
    check_no_extra(obj, &allowed, path)?;
    let offset = offset.unwrap_or(0);
    Ok(match (input_dimension, array) {
        (Some(d), _) => {
            let input_dimension = usize::try_from(d).map_err(|_| {
                TsError::bounds(format!(
                    "Input dimension {d} specified for output dimension {o} is outside valid range"
                ))
                .at(&path.key("input_dimension"))
            })?;
            OutputMap::SingleInputDimension { offset, stride, input_dimension }
        }
        (None, Some(array)) => OutputMap::IndexArray { offset, stride, array, bounds },
        (None, None) => OutputMap::Constant { offset },
    })
}

fn read_outputs(v: &Value, path: &JsonPath) -> TsResult<Vec<OutputMap>> {
    let items = as_array(v, path)?;
    check_rank(items.len()).map_err(|e| e.at(path))?;
    items.iter().enumerate().map(|(i, item)| read_output_map(item, i, &path.index(i))).collect()
}

/// Static rank requirements for [`transform_from_json_with_ranks`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RankConstraint {
    /// The required input rank, if any.
    pub input: Option<usize>,
    /// The required output rank, if any.
    pub output: Option<usize>,
}

/// Reads an `IndexTransform` JSON object.
pub fn transform_from_json(v: &Value) -> TsResult<IndexTransform> {
    transform_from_json_with_ranks(v, RankConstraint::default())
}

/// Reads an `IndexTransform` JSON object whose ranks must satisfy `ranks`.
pub fn transform_from_json_with_ranks(
    v: &Value,
    ranks: RankConstraint,
) -> TsResult<IndexTransform> {
    let path = JsonPath::root();
    let obj = as_object(v, &path)?;
    let k = &TRANSFORM_KEYS;
    let parts = read_domain_parts(obj, k, &path)?;
    let input_rank = parts.rank.unwrap_or(0);
    if let Some(r) = ranks.input.filter(|&r| r != input_rank) {
        return Err(TsError::rank(format!("Expected input_rank to be {r}, but is: {input_rank}")));
    }
    let output_path = path.key("output");
    let output = obj.get("output").map(|o| read_outputs(o, &output_path)).transpose()?;
    match (&output, ranks.output) {
        (Some(o), Some(r)) if o.len() != r => {
            return Err(TsError::rank(format!(
                "Expected output rank to be {r}, but is: {}",
                o.len()
            ))
            .at(&output_path));
        }
        (None, Some(r)) if r != input_rank => {
            return Err(TsError::syntax("Missing \"output\" member"));
        }
        _ => {}
    }
    let allowed =
        [k.rank, k.inclusive_min, k.inclusive_max, k.shape, k.exclusive_max, k.labels, "output"];
    check_no_extra(obj, &allowed, &path)?;
    let domain = finish_domain(parts, k, &path)?;
    match output {
        None => Ok(IndexTransform::identity(domain)),
        Some(maps) => IndexTransform::new(domain, maps).map_err(|e| e.under(&output_path)),
    }
}
