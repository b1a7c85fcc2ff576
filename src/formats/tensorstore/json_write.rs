//! Writing domains and transforms in TensorStore's normal JSON form.
//!
//! Bounds are always `inclusive_min` + `exclusive_max`, each left out when every bound of its
//! side is implicit and infinite; infinite bounds are `"-inf"`/`"+inf"`, implicit ones `[n]`;
//! `labels` only when some label is non-empty; `rank` only when none of those is written.
//! Output maps leave out offset 0 and stride 1, `output` is left out for the identity, and
//! `index_array_bounds` is written only when some array value lies outside it.

use serde_json::{json, Map, Value};

use super::domain::IndexDomain;
use super::interval::{Interval, INF_INDEX};
use super::json_read::{Keys, DOMAIN_KEYS, TRANSFORM_KEYS};
use super::transform::{IndexTransform, OutputMap};

/// A bound as written: `neg_inf` prints as `"-inf"`, `pos_inf` as `"+inf"`.
fn bound_value(v: i64, neg_inf: i64, pos_inf: i64) -> Value {
    if v == neg_inf {
        json!("-inf")
    } else if v == pos_inf {
        json!("+inf")
    } else {
        json!(v)
    }
}

fn entry(v: i64, implicit: bool) -> Value {
    let b = bound_value(v, -INF_INDEX, INF_INDEX + 1);
    if implicit {
        json!([b])
    } else {
        b
    }
}

fn write_domain_members(d: &IndexDomain, keys: &Keys, obj: &mut Map<String, Value>) {
    let dims = d.dims();
    let all_implicit_lower =
        dims.iter().all(|x| x.implicit_lower() && x.interval().inclusive_min() == -INF_INDEX);
    let all_implicit_upper =
        dims.iter().all(|x| x.implicit_upper() && x.interval().inclusive_max() == INF_INDEX);
    let mut wrote = false;
    if !all_implicit_lower {
        let v = dims.iter().map(|x| entry(x.interval().inclusive_min(), x.implicit_lower()));
        obj.insert(keys.inclusive_min.into(), Value::Array(v.collect()));
        wrote = true;
    }
    if !all_implicit_upper {
        let v = dims.iter().map(|x| entry(x.interval().exclusive_max(), x.implicit_upper()));
        obj.insert(keys.exclusive_max.into(), Value::Array(v.collect()));
        wrote = true;
    }
    if !d.is_unlabeled() {
        let v = dims.iter().map(|x| Value::String(x.label.clone()));
        obj.insert(keys.labels.into(), Value::Array(v.collect()));
        wrote = true;
    }
    if !wrote {
        obj.insert(keys.rank.into(), json!(d.rank()));
    }
}

/// The normal JSON form of a domain.
pub fn domain_to_json(d: &IndexDomain) -> Value {
    let mut obj = Map::new();
    write_domain_members(d, &DOMAIN_KEYS, &mut obj);
    Value::Object(obj)
}

fn interval_json(b: Interval) -> Value {
    json!([
        bound_value(b.inclusive_min(), -INF_INDEX, INF_INDEX),
        bound_value(b.inclusive_max(), -INF_INDEX, INF_INDEX)
    ])
}

fn output_map_json(m: &OutputMap) -> Value {
    let mut obj = Map::new();
    if m.offset() != 0 {
        obj.insert("offset".into(), json!(m.offset()));
    }
    match m {
        OutputMap::Constant { .. } => {}
        OutputMap::SingleInputDimension { stride, input_dimension, .. } => {
            if *stride != 1 {
                obj.insert("stride".into(), json!(stride));
            }
            obj.insert("input_dimension".into(), json!(input_dimension));
        }
        OutputMap::IndexArray { stride, array, bounds, .. } => {
            if *stride != 1 {
                obj.insert("stride".into(), json!(stride));
            }
            obj.insert("index_array".into(), array.to_json());
            let outside = array
                .data()
                .iter()
                .any(|&v| v < bounds.inclusive_min() || v > bounds.inclusive_max());
            if *bounds != Interval::INFINITE && outside {
                obj.insert("index_array_bounds".into(), interval_json(*bounds));
            }
        }
    }
    Value::Object(obj)
}

/// The normal JSON form of a transform.
pub fn transform_to_json(t: &IndexTransform) -> Value {
    let mut obj = Map::new();
    write_domain_members(t.domain(), &TRANSFORM_KEYS, &mut obj);
    if !t.is_identity_map() {
        let maps = t.output().iter().map(output_map_json).collect();
        obj.insert("output".into(), Value::Array(maps));
    }
    Value::Object(obj)
}
