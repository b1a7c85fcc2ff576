//! The `vespa_*` kinds: type specs, literals, JSON decoding and encoding, cell casts.
//!
//! A `TENSOR` expectation compares the canonical type and Java's `toString` text exactly, and the
//! cells as a set of address/value pairs with relative tolerance 1e-9.

use std::collections::BTreeMap;

use serde_json::Value;

use super::case::CaseOutcome;
use super::compare::{
    close, expected_error, json_diff, member, number, settle_error, str_member, F64_TOL,
};
use crate::code::Coded;
use crate::formats::vespa::{
    decode_json, encode_json, CellType, EncodeOptions, Tensor, TensorType, VespaError,
};

/// Runs one case of a `vespa` kind.
pub fn run(kind: &str, case: &Value) -> CaseOutcome {
    let expect = member(case, "expect")?;
    match kind {
        "vespa_type" => {
            let got = TensorType::parse(str_member(case, "spec")?);
            settle(expect, got, |t| same_str(expect, "type", &t.to_string()))
        }
        "vespa_literal" => {
            let literal = str_member(case, "literal")?;
            let got = optional_type(case).and_then(|ty| Tensor::from_literal(literal, ty.as_ref()));
            settle(expect, got, |t| compare_tensor(expect, &t))
        }
        "vespa_json_decode" => {
            let json = str_member(case, "json")?;
            let got = optional_type(case).and_then(|ty| decode_json(json, ty.as_ref()));
            settle(expect, got, |t| compare_tensor(expect, &t))
        }
        "vespa_json_encode" => {
            let options = EncodeOptions {
                short_form: flag(case, "short_form"),
                direct_values: flag(case, "direct_values"),
                hex_dense: flag(case, "hex_dense"),
            };
            let got = Tensor::from_literal(str_member(case, "literal")?, None);
            settle(expect, got, |t| {
                let wanted = member(expect, "json")?;
                json_diff(wanted, &encode_json(&t, options), F64_TOL).map_or(Ok(()), Err)
            })
        }
        "vespa_cell_cast" => {
            let to = str_member(case, "to")?;
            let to = CellType::from_name(to).ok_or_else(|| format!("unknown cell type {to:?}"))?;
            let got = Tensor::from_literal(str_member(case, "literal")?, None).map(|t| t.cast(to));
            settle(expect, got, |t| compare_tensor(expect, &t))
        }
        other => Err(format!("unsupported kind {other:?}")),
    }
}

/// Settles an expected error, or checks a success with `check`.
fn settle<T>(
    expect: &Value,
    got: Result<T, VespaError>,
    check: impl FnOnce(T) -> CaseOutcome,
) -> CaseOutcome {
    if let Some(code) = expected_error(expect) {
        return settle_error(code, got.map_err(|e| (e.code(), e.to_string())));
    }
    match got {
        Ok(t) => check(t),
        Err(e) => Err(format!("expected success, got {} error: {e}", e.code())),
    }
}

fn optional_type(case: &Value) -> Result<Option<TensorType>, VespaError> {
    case.get("type").and_then(Value::as_str).map(TensorType::parse).transpose()
}

fn flag(case: &Value, key: &str) -> bool {
    case.get(key).and_then(Value::as_bool).unwrap_or(false)
}

fn same_str(expect: &Value, key: &str, got: &str) -> CaseOutcome {
    let wanted = str_member(expect, key)?;
    if wanted == got {
        Ok(())
    } else {
        Err(format!("{key}: expected {wanted:?}, got {got:?}"))
    }
}

/// Compares a `TENSOR` expectation: `type` and `text` exactly (when given), `cells` as a set.
fn compare_tensor(expect: &Value, t: &Tensor) -> CaseOutcome {
    if expect.get("type").is_some() {
        same_str(expect, "type", &t.tensor_type().to_string())?;
    }
    if let Some(cells) = expect.get("cells") {
        cells_diff(cells, t)?;
    }
    if expect.get("text").is_some() {
        same_str(expect, "text", &t.to_text())?;
    }
    Ok(())
}

type Address = BTreeMap<String, String>;

fn cells_diff(expected: &Value, t: &Tensor) -> CaseOutcome {
    let names: Vec<&str> = t.dims().iter().map(|d| d.name()).collect();
    let mut actual: BTreeMap<Address, f64> = BTreeMap::new();
    for (labels, v) in t.cells() {
        let address: Address = names.iter().map(|n| n.to_string()).zip(labels).collect();
        if actual.insert(address.clone(), v).is_some() {
            return Err(format!("cells: the tensor has {address:?} twice"));
        }
    }
    let wanted = expected.as_array().ok_or("expect.cells is not a list")?;
    if wanted.len() != actual.len() {
        return Err(format!("cells: expected {} cells, got {}", wanted.len(), actual.len()));
    }
    for cell in wanted {
        let address: Address = cell
            .get("address")
            .and_then(Value::as_object)
            .ok_or("an expected cell has no address object")?
            .iter()
            .map(|(k, v)| (k.clone(), v.as_str().map_or_else(|| v.to_string(), str::to_string)))
            .collect();
        let value =
            cell.get("value").and_then(number).ok_or("an expected cell has no numeric value")?;
        match actual.get(&address) {
            None => return Err(format!("cells: missing cell {address:?}")),
            Some(got) if !close(value, *got, F64_TOL) => {
                return Err(format!("cells: {address:?} expected {value}, got {got}"))
            }
            Some(_) => {}
        }
    }
    Ok(())
}
