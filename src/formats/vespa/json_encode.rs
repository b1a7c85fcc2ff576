//! Encoding tensors as Vespa tensor JSON (`JsonFormat.encode` with `EncodeOptions`).

use serde_json::{Map, Value};

use super::cell::CellType;
use super::hex;
use super::tensor::{Tensor, TensorKind};

/// Java's `EncodeOptions(shortForm, directValues, hexForDensePart)`.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub struct EncodeOptions {
    /// Use the type-dependent short form (`values`, `cells` object, `blocks`) instead of the
    /// list of address/value cells.
    pub short_form: bool,
    /// Write the content itself at the root, without the `{"type":..., KEY: ...}` wrapper.
    pub direct_values: bool,
    /// Write dense parts as one uppercase hex string (short form only).
    pub hex_dense: bool,
}

/// Encodes a tensor as JSON. Values are numbers (int8 cells as integers); NaN and infinities,
/// which JSON cannot hold, become `null` as in Vespa.
pub fn encode_json(tensor: &Tensor, options: EncodeOptions) -> Value {
    let (key, content) = if options.short_form {
        short_form(tensor, options.hex_dense)
    } else {
        ("cells", cell_list(tensor))
    };
    if options.direct_values {
        return content;
    }
    let mut root = Map::new();
    root.insert("type".into(), Value::String(tensor.tensor_type().to_string()));
    root.insert(key.into(), content);
    Value::Object(root)
}

fn short_form(t: &Tensor, hex_dense: bool) -> (&'static str, Value) {
    let mapped = t.dims().iter().filter(|d| d.is_mapped()).count();
    match t.kind() {
        TensorKind::Indexed => {
            let values = t.blocks().first().map(|b| b.values.as_slice()).unwrap_or(&[]);
            ("values", dense(t, values, hex_dense))
        }
        TensorKind::Mapped if t.dims().len() == 1 => {
            let cells = t.blocks().iter().map(|b| {
                (label0(&b.labels), number(b.values.first().copied().unwrap_or(0.0), t.cell_type()))
            });
            ("cells", Value::Object(cells.collect()))
        }
        TensorKind::Mixed if mapped == 1 => {
            let blocks =
                t.blocks().iter().map(|b| (label0(&b.labels), dense(t, &b.values, hex_dense)));
            ("blocks", Value::Object(blocks.collect()))
        }
        TensorKind::Mixed => {
            let names: Vec<&str> =
                t.dims().iter().filter(|d| d.is_mapped()).map(|d| d.name()).collect();
            let blocks = t.blocks().iter().map(|b| {
                let address: Map<String, Value> = names
                    .iter()
                    .zip(&b.labels)
                    .map(|(n, l)| (n.to_string(), Value::String(l.clone())))
                    .collect();
                let mut block = Map::new();
                block.insert("address".into(), Value::Object(address));
                block.insert("values".into(), dense(t, &b.values, hex_dense));
                Value::Object(block)
            });
            ("blocks", Value::Array(blocks.collect()))
        }
        TensorKind::Mapped => ("cells", cell_list(t)),
    }
}

fn label0(labels: &[String]) -> String {
    labels.first().cloned().unwrap_or_default()
}

/// A dense block as nested lists in canonical order (rank 0: `[v]`), or as hex.
fn dense(t: &Tensor, values: &[f64], hex_dense: bool) -> Value {
    if hex_dense {
        return Value::String(hex::encode(values, t.cell_type()));
    }
    let sizes = t.dense_sizes();
    if sizes.is_empty() {
        return Value::Array(values.iter().map(|v| number(*v, t.cell_type())).collect());
    }
    nested(values, sizes, t.cell_type())
}

fn nested(values: &[f64], sizes: &[usize], cell: CellType) -> Value {
    match sizes {
        [] | [_] => Value::Array(values.iter().map(|v| number(*v, cell)).collect()),
        [_, inner @ ..] => {
            let step = inner.iter().product::<usize>().max(1);
            Value::Array(values.chunks(step).map(|c| nested(c, inner, cell)).collect())
        }
    }
}

/// `[{"address": {...}, "value": v}, ...]` in the tensor's cell order.
fn cell_list(t: &Tensor) -> Value {
    let names: Vec<&str> = t.dims().iter().map(|d| d.name()).collect();
    let cells = t.cells().map(|(labels, v)| {
        let address: Map<String, Value> =
            names.iter().zip(labels).map(|(n, l)| (n.to_string(), Value::String(l))).collect();
        let mut cell = Map::new();
        cell.insert("address".into(), Value::Object(address));
        cell.insert("value".into(), number(v, t.cell_type()));
        Value::Object(cell)
    });
    Value::Array(cells.collect())
}

fn number(v: f64, cell: CellType) -> Value {
    if cell == CellType::Int8 && v.is_finite() {
        return Value::from(v as i64);
    }
    serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number)
}
