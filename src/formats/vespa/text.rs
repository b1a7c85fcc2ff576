//! Printing tensors as literals, the way Vespa's Java `toString` does.

use std::cmp::Ordering;

use super::cell::CellType;
use super::javanum::{double_to_string, float_to_string};
use super::tensor::{Block, Tensor, TensorKind};
use super::types::is_bare_label;

impl Tensor {
    /// The literal Java's `toString` prints: `type:` then the dense form `[[..], ..]` for bound
    /// indexed tensors (float and bfloat16 cells as Java floats, int8 cells as integers), the
    /// mixed form `{label:[..], ..}` for one mapped dimension plus bound indexed ones (a one-cell
    /// block as its value), else the cells sorted by address: `{label:v, ..}` at rank 1,
    /// `{{d:l,..}:v, ..}` above, `{v}` at rank 0. It parses back to the same tensor.
    pub fn to_text(&self) -> String {
        let mapped = self.dims().iter().filter(|d| d.is_mapped()).count();
        let body = match self.kind() {
            TensorKind::Indexed if self.dims().is_empty() => self.general(false),
            TensorKind::Indexed if !self.tensor_type().has_unbound() => {
                let values = self.blocks().first().map(|b| b.values.as_slice()).unwrap_or(&[]);
                dense_text(values, self.dense_sizes(), &|v| dense_value(v, self.cell_type()))
            }
            TensorKind::Mixed if mapped == 1 && !self.tensor_type().has_unbound() => {
                self.mixed_text()
            }
            _ => self.general(false),
        };
        format!("{}:{body}", self.tensor_type())
    }

    /// The literal in the general form only: `type:{{d:l,..}:v, ..}` (`{v}` at rank 0), cells
    /// sorted by address, values as Java doubles.
    pub fn to_text_general(&self) -> String {
        format!("{}:{}", self.tensor_type(), self.general(true))
    }

    fn general(&self, always_braced: bool) -> String {
        let mut cells: Vec<(Vec<String>, f64)> = self.cells().collect();
        cells.sort_by(|a, b| compare_labels(&a.0, &b.0));
        let names: Vec<&str> = self.dims().iter().map(|d| d.name()).collect();
        let parts: Vec<String> = cells
            .iter()
            .map(|(labels, v)| {
                let value = double_to_string(*v);
                match names.as_slice() {
                    [] => value,
                    [_] if !always_braced => format!("{}:{value}", label_text(&labels[0])),
                    _ => {
                        let address: Vec<String> = names
                            .iter()
                            .zip(labels)
                            .map(|(n, l)| format!("{n}:{}", label_text(l)))
                            .collect();
                        format!("{{{}}}:{value}", address.join(","))
                    }
                }
            })
            .collect();
        format!("{{{}}}", parts.join(", "))
    }

    fn mixed_text(&self) -> String {
        let mut blocks: Vec<&Block> = self.blocks().iter().collect();
        blocks.sort_by(|a, b| compare_labels(&a.labels, &b.labels));
        let parts: Vec<String> = blocks
            .iter()
            .map(|b| {
                let label = label_text(b.labels.first().map_or("", String::as_str));
                let content = match b.values.as_slice() {
                    [v] => double_to_string(*v),
                    values => dense_text(values, self.dense_sizes(), &|v| double_to_string(v)),
                };
                format!("{label}:{content}")
            })
            .collect();
        format!("{{{}}}", parts.join(", "))
    }
}

/// How a dense-form cell prints: floats as Java floats, int8 as the integer.
fn dense_value(v: f64, cell: CellType) -> String {
    match cell {
        CellType::Double => double_to_string(v),
        CellType::Float | CellType::BFloat16 => float_to_string(v as f32),
        CellType::Int8 => format!("{}", v as i64),
    }
}

/// Nested lists in row-major order: `[[1.0, 2.0], [3.0, 4.0]]`.
fn dense_text(values: &[f64], sizes: &[usize], fmt: &dyn Fn(f64) -> String) -> String {
    match sizes {
        [] | [_] => format!("[{}]", values.iter().map(|v| fmt(*v)).collect::<Vec<_>>().join(", ")),
        [_, inner @ ..] => {
            let step = inner.iter().product::<usize>().max(1);
            let parts: Vec<String> =
                values.chunks(step).map(|c| dense_text(c, inner, fmt)).collect();
            format!("[{}]", parts.join(", "))
        }
    }
}

/// A label bare when it is an identifier or integer, else quoted with `"` if it contains `'`,
/// else with `'`.
pub fn label_text(label: &str) -> String {
    if is_bare_label(label) {
        label.to_string()
    } else if label.contains('\'') {
        format!("\"{label}\"")
    } else {
        format!("'{label}'")
    }
}

/// Java's address order: label by label, `String.compareTo` (UTF-16 code units).
fn compare_labels(a: &[String], b: &[String]) -> Ordering {
    a.iter()
        .zip(b)
        .map(|(x, y)| x.encode_utf16().cmp(y.encode_utf16()))
        .find(|o| o.is_ne())
        .unwrap_or(Ordering::Equal)
}
