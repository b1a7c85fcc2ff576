//! The shape of a declaration as Python gives it (a shape string, a tuple of sizes, or rows
//! of sizes, `...` and row variables), read into a [`ShapeBuilder`]; and the sizes Python
//! passes elsewhere (tuples of non-negative integers).

use einrow::infer::ShapeBuilder;
use einrow::spec::ast::RowKind;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyString;

use crate::errors;
use crate::graph::PyGraph;
use crate::handles::PyRowVar;

/// A declared shape: a shape string, or typed rows.
pub enum Declared {
    Text(String),
    Typed(Box<ShapeBuilder>),
}

pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into())
}

/// Reads a declaration's shape: `shape` (a shape string or a tuple of sizes) or the rows.
pub fn declared(
    slf: &Bound<'_, PyGraph>,
    shape: Option<&Bound<'_, PyAny>>,
    rows: [Option<&Bound<'_, PyAny>>; 3],
) -> PyResult<Declared> {
    let any_row = rows.iter().any(Option::is_some);
    match shape {
        Some(_) if any_row => {
            Err(PyTypeError::new_err("give either `shape` or the rows `batch`, `input`, `output`"))
        }
        Some(s) => {
            if let Ok(text) = s.cast::<PyString>() {
                return Ok(Declared::Text(text.to_cow()?.into_owned()));
            }
            let sizes = sizes_of(slf.py(), s, "shape")?;
            Ok(Declared::Typed(Box::new(ShapeBuilder::array(sizes))))
        }
        None if !any_row => Ok(Declared::Typed(Box::new(ShapeBuilder::unknown()))),
        None => {
            let mut b = ShapeBuilder::new();
            for (kind, row) in
                [RowKind::Batch, RowKind::Input, RowKind::Output].into_iter().zip(rows)
            {
                if let Some(row) = row {
                    b = row_items(slf, b, kind, row)?;
                }
            }
            Ok(Declared::Typed(Box::new(b)))
        }
    }
}

/// Sizes given as a sequence of non-negative integers.
pub fn sizes_of(py: Python<'_>, obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u64>> {
    let items: Vec<i128> = obj.extract().map_err(|_| {
        PyTypeError::new_err(format!(
            "`{what}` is a tuple of sizes (integers) or a shape string, not {}",
            type_name(obj)
        ))
    })?;
    items
        .into_iter()
        .map(|n| {
            u64::try_from(n).map_err(|_| {
                let msg = format!("`{what}` has the size {n}; sizes are non-negative");
                errors::value_error(py, einrow::ErrorCode::Value, msg)
            })
        })
        .collect()
}

/// One row's items: sizes, `...` (a row variable of the tensor's own) and row variables.
fn row_items(
    slf: &Bound<'_, PyGraph>,
    mut b: ShapeBuilder,
    kind: RowKind,
    row: &Bound<'_, PyAny>,
) -> PyResult<ShapeBuilder> {
    let py = slf.py();
    let bad = |item: &Bound<'_, PyAny>| {
        PyTypeError::new_err(format!(
            "the {} row holds sizes, `...` and einrow.RowVar, not {}",
            kind.name(),
            type_name(item)
        ))
    };
    let items = match row.cast::<PyRowVar>() {
        Ok(_) => vec![row.clone()],
        Err(_) => row.try_iter().map_err(|_| bad(row))?.collect::<PyResult<Vec<_>>>()?,
    };
    for item in &items {
        if item.is(py.Ellipsis()) {
            b = b.open(kind);
        } else if let Ok(v) = item.cast::<PyRowVar>() {
            b = b.var(kind, v.get().handle());
        } else if let Ok(n) = item.extract::<i128>() {
            let n = u64::try_from(n).map_err(|_| {
                let msg =
                    format!("the {} row has the size {n}; sizes are non-negative", kind.name());
                errors::value_error(py, einrow::ErrorCode::Value, msg)
            })?;
            b = b.sizes(kind, [n]);
        } else {
            return Err(bad(item));
        }
    }
    Ok(b)
}
