//! Encoding tensors as Vespa tensor JSON (`JsonFormat.encode` with `EncodeOptions`).

use std::io::{self, Write};

use serde_json::Value;

use super::cell::CellType;
use super::hex;
use super::tensor::{Tensor, TensorKind};
use crate::tensor::ListNesting;

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
/// which JSON cannot hold, become `null` as in Vespa. (The document [`write_json`] writes, read
/// back as a value.)
pub fn encode_json(tensor: &Tensor, options: EncodeOptions) -> Value {
    let mut bytes = Vec::new();
    // Writing to a vector cannot fail, and what was written is JSON.
    let _ = write_json(tensor, options, &mut bytes);
    serde_json::from_slice(&bytes).unwrap_or(Value::Null)
}

/// Writes [`encode_json`]'s document to `w` as it goes, compact (no spaces), members in the
/// order `type` then the content; a large tensor's cells are never collected into a document
/// first.
pub fn write_json(tensor: &Tensor, options: EncodeOptions, w: &mut dyn Write) -> io::Result<()> {
    let mut j = JsonOut { w, cell: tensor.cell_type() };
    if !options.direct_values {
        j.raw("{\"type\":")?;
        j.string(&tensor.tensor_type().to_string())?;
        j.raw(",")?;
        let key = if options.short_form { short_form_key(tensor) } else { "cells" };
        j.string(key)?;
        j.raw(":")?;
    }
    if options.short_form {
        short_form(&mut j, tensor, options.hex_dense)?;
    } else {
        cell_list(&mut j, tensor)?;
    }
    if !options.direct_values {
        j.raw("}")?;
    }
    Ok(())
}

/// The writer and the cell type its numbers follow.
struct JsonOut<'a> {
    w: &'a mut dyn Write,
    cell: CellType,
}

impl JsonOut<'_> {
    fn raw(&mut self, s: &str) -> io::Result<()> {
        self.w.write_all(s.as_bytes())
    }

    fn repeat(&mut self, s: &str, n: usize) -> io::Result<()> {
        (0..n).try_for_each(|_| self.raw(s))
    }

    /// A JSON string, escaped.
    fn string(&mut self, s: &str) -> io::Result<()> {
        serde_json::to_writer(&mut *self.w, s).map_err(io::Error::from)
    }

    /// A cell value: int8 cells as integers, NaN and infinities as `null`.
    fn number(&mut self, v: f64) -> io::Result<()> {
        if !v.is_finite() {
            return self.raw("null");
        }
        if self.cell == CellType::Int8 {
            return write!(self.w, "{}", v as i64);
        }
        serde_json::to_writer(&mut *self.w, &v).map_err(io::Error::from)
    }

    /// Items separated by commas inside `open` .. `close`.
    fn list<T>(
        &mut self,
        (open, close): (&str, &str),
        items: impl IntoIterator<Item = T>,
        mut item: impl FnMut(&mut Self, T) -> io::Result<()>,
    ) -> io::Result<()> {
        self.raw(open)?;
        for (i, x) in items.into_iter().enumerate() {
            if i > 0 {
                self.raw(",")?;
            }
            item(self, x)?;
        }
        self.raw(close)
    }
}

const ARRAY: (&str, &str) = ("[", "]");
const OBJECT: (&str, &str) = ("{", "}");

/// The member name of the short form of `t`'s kind.
fn short_form_key(t: &Tensor) -> &'static str {
    let mapped = t.dims().iter().filter(|d| d.is_mapped()).count();
    match t.kind() {
        TensorKind::Indexed => "values",
        TensorKind::Mapped if mapped == 1 => "cells",
        TensorKind::Mixed => "blocks",
        TensorKind::Mapped => "cells",
    }
}

fn short_form(j: &mut JsonOut, t: &Tensor, hex_dense: bool) -> io::Result<()> {
    let mapped = t.dims().iter().filter(|d| d.is_mapped()).count();
    match t.kind() {
        TensorKind::Indexed => {
            let values = t.blocks().first().map(|b| b.values.as_slice()).unwrap_or(&[]);
            dense(j, t, values, hex_dense)
        }
        TensorKind::Mapped if t.dims().len() == 1 => j.list(OBJECT, t.blocks(), |j, b| {
            j.string(label0(&b.labels))?;
            j.raw(":")?;
            j.number(b.values.first().copied().unwrap_or(0.0))
        }),
        TensorKind::Mixed if mapped == 1 => j.list(OBJECT, t.blocks(), |j, b| {
            j.string(label0(&b.labels))?;
            j.raw(":")?;
            dense(j, t, &b.values, hex_dense)
        }),
        TensorKind::Mixed => {
            let names: Vec<&str> =
                t.dims().iter().filter(|d| d.is_mapped()).map(|d| d.name()).collect();
            j.list(ARRAY, t.blocks(), |j, b| {
                j.raw("{\"address\":")?;
                address(j, &names, &b.labels)?;
                j.raw(",\"values\":")?;
                dense(j, t, &b.values, hex_dense)?;
                j.raw("}")
            })
        }
        TensorKind::Mapped => cell_list(j, t),
    }
}

fn label0(labels: &[String]) -> &str {
    labels.first().map_or("", String::as_str)
}

/// `{"dim": "label", ...}`.
fn address(j: &mut JsonOut, names: &[&str], labels: &[String]) -> io::Result<()> {
    j.list(OBJECT, names.iter().zip(labels), |j, (n, l)| {
        j.string(n)?;
        j.raw(":")?;
        j.string(l)
    })
}

/// A dense block as nested lists in canonical order (rank 0: `[v]`), or as hex.
fn dense(j: &mut JsonOut, t: &Tensor, values: &[f64], hex_dense: bool) -> io::Result<()> {
    if hex_dense {
        return j.string(&hex::encode(values, t.cell_type()));
    }
    let sizes = t.dense_sizes();
    if sizes.len() <= 1 {
        return j.list(ARRAY, values, |j, v| j.number(*v));
    }
    let mut nest = ListNesting::new(sizes);
    for v in values {
        match nest.advance() {
            None => j.repeat("[", sizes.len())?,
            Some(wrapped) => {
                j.repeat("]", wrapped)?;
                j.raw(",")?;
                j.repeat("[", wrapped)?;
            }
        }
        j.number(*v)?;
    }
    if values.is_empty() {
        j.repeat("[", sizes.len())?;
    }
    j.repeat("]", sizes.len())
}

/// `[{"address": {...}, "value": v}, ...]` in the tensor's cell order.
fn cell_list(j: &mut JsonOut, t: &Tensor) -> io::Result<()> {
    let names: Vec<&str> = t.dims().iter().map(|d| d.name()).collect();
    j.list(ARRAY, t.cells(), |j, (labels, v)| {
        j.raw("{\"address\":")?;
        address(j, &names, &labels)?;
        j.raw(",\"value\":")?;
        j.number(v)?;
        j.raw("}")
    })
}
