//! Printing tensors as literals, the way Vespa's Java `toString` does.

use std::cmp::Ordering;
use std::fmt::{self, Write as _};

use super::cell::CellType;
use super::javanum::{double_to_string, float_to_string};
use super::tensor::{Block, Tensor, TensorKind};
use super::types::is_bare_label;
use crate::tensor::ListNesting;

impl Tensor {
    /// The literal Java's `toString` prints: `type:` then the dense form `[[..], ..]` for bound
    /// indexed tensors (float and bfloat16 cells as Java floats, int8 cells as integers; a
    /// one-cell tensor of any rank as `[v]`, as Java prints it), the mixed form
    /// `{label:[..], ..}` for one mapped dimension plus bound indexed ones (a one-cell block as
    /// its value), else the cells sorted by address: `{label:v, ..}` at rank 1, `{{d:l,..}:v, ..}`
    /// above, `{v}` at rank 0. It parses back to the same tensor.
    pub fn to_text(&self) -> String {
        let mut text = String::new();
        // Writing to a String cannot fail.
        let _ = self.write_text(&mut text);
        text
    }

    /// Writes [`to_text`](Tensor::to_text)'s literal to `w` as it goes (a dense tensor's cells
    /// are never collected into one string first).
    pub fn write_text(&self, w: &mut dyn fmt::Write) -> fmt::Result {
        let mapped = self.dims().iter().filter(|d| d.is_mapped()).count();
        write!(w, "{}:", self.tensor_type())?;
        match self.kind() {
            TensorKind::Indexed if self.dims().is_empty() => self.write_general(w, false),
            TensorKind::Indexed if !self.tensor_type().has_unbound() => {
                let values = self.blocks().first().map(|b| b.values.as_slice()).unwrap_or(&[]);
                let cell = self.cell_type();
                write_dense(w, values, self.dense_sizes(), &|w, v| write_dense_value(w, v, cell))
            }
            TensorKind::Mixed if mapped == 1 && !self.tensor_type().has_unbound() => {
                self.write_mixed(w)
            }
            _ => self.write_general(w, false),
        }
    }

    /// The literal in the general form only: `type:{{d:l,..}:v, ..}` (`{v}` at rank 0), cells
    /// sorted by address, values as Java doubles.
    pub fn to_text_general(&self) -> String {
        let mut text = String::new();
        let _ = write!(text, "{}:", self.tensor_type());
        let _ = self.write_general(&mut text, true);
        text
    }

    fn write_general(&self, w: &mut dyn fmt::Write, always_braced: bool) -> fmt::Result {
        let mut cells: Vec<(Vec<String>, f64)> = self.cells().collect();
        cells.sort_by(|a, b| compare_labels(&a.0, &b.0));
        let names: Vec<&str> = self.dims().iter().map(|d| d.name()).collect();
        w.write_char('{')?;
        for (i, (labels, v)) in cells.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            match names.as_slice() {
                [] => {}
                [_] if !always_braced => write!(w, "{}:", label_text(&labels[0]))?,
                _ => {
                    w.write_char('{')?;
                    for (k, (n, l)) in names.iter().zip(labels).enumerate() {
                        let comma = if k > 0 { "," } else { "" };
                        write!(w, "{comma}{n}:{}", label_text(l))?;
                    }
                    w.write_str("}:")?;
                }
            }
            w.write_str(&double_to_string(*v))?;
        }
        w.write_char('}')
    }

    fn write_mixed(&self, w: &mut dyn fmt::Write) -> fmt::Result {
        let mut blocks: Vec<&Block> = self.blocks().iter().collect();
        blocks.sort_by(|a, b| compare_labels(&a.labels, &b.labels));
        w.write_char('{')?;
        for (i, b) in blocks.iter().enumerate() {
            if i > 0 {
                w.write_str(", ")?;
            }
            write!(w, "{}:", label_text(b.labels.first().map_or("", String::as_str)))?;
            match b.values.as_slice() {
                [v] => w.write_str(&double_to_string(*v))?,
                values => write_dense(w, values, self.dense_sizes(), &|w, v| {
                    w.write_str(&double_to_string(v))
                })?,
            }
        }
        w.write_char('}')
    }
}

/// How a dense-form cell prints: floats as Java floats, int8 as the integer.
fn write_dense_value(w: &mut dyn fmt::Write, v: f64, cell: CellType) -> fmt::Result {
    match cell {
        CellType::Double => w.write_str(&double_to_string(v)),
        CellType::Float | CellType::BFloat16 => w.write_str(&float_to_string(v as f32)),
        CellType::Int8 => write!(w, "{}", v as i64),
    }
}

type ValueWriter<'a> = &'a dyn Fn(&mut dyn fmt::Write, f64) -> fmt::Result;

/// Nested lists in row-major order, `[[1.0, 2.0], [3.0, 4.0]]`, written cell by cell: before
/// each cell after the first, the lists its index closes and opens again. A single cell is
/// `[v]` whatever the rank (Java's `toString`; the reader takes it as the flat form).
fn write_dense(
    w: &mut dyn fmt::Write,
    values: &[f64],
    sizes: &[usize],
    value: ValueWriter<'_>,
) -> fmt::Result {
    let depth = if values.len() == 1 { 1 } else { sizes.len().max(1) };
    let sizes: &[usize] = if depth == sizes.len() { sizes } else { &[values.len()] };
    let mut nest = ListNesting::new(sizes);
    for v in values {
        match nest.advance() {
            None => brackets(w, '[', depth)?,
            Some(wrapped) => {
                brackets(w, ']', wrapped)?;
                w.write_str(", ")?;
                brackets(w, '[', wrapped)?;
            }
        }
        value(w, *v)?;
    }
    if values.is_empty() {
        brackets(w, '[', depth)?;
    }
    brackets(w, ']', depth)
}

fn brackets(w: &mut dyn fmt::Write, c: char, n: usize) -> fmt::Result {
    (0..n).try_for_each(|_| w.write_char(c))
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
