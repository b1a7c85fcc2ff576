//! numpy's `optimize` argument as einrow path options, and `einrow.einsum_path`.

use einrow::numpy::{einsum_path as plan_path, MemoryLimit, Optimize, PathOptions};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyList, PyString, PyTuple};

use crate::errors;
use crate::operands::{shape_of, split_operands};

/// The largest explicit path read (steps); a longer one is an error, not a long loop.
const MAX_STEPS: usize = 1 << 16;

/// Reads numpy's `optimize`: `False`/`None` (no planning: `None`), `True` (`greedy`), a
/// strategy name (`greedy`, `optimal`, einrow's `dp` and `auto`), an explicit path
/// `['einsum_path', (0, 1), ...]`, or `(name, memory_limit)`. Named strategies keep every
/// intermediate within the largest operand or output unless a limit is given, as numpy does.
pub fn path_options(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<PathOptions>> {
    let Some(obj) = obj else { return Ok(None) };
    if obj.is_none() {
        return Ok(None);
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        let named = PathOptions::new(Optimize::Greedy).memory_limit(MemoryLimit::MaxInput);
        return Ok(b.is_true().then_some(named));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return named(obj.py(), s.to_str()?, MemoryLimit::MaxInput).map(Some);
    }
    let items: Vec<Bound<'_, PyAny>> = match obj.cast::<PyList>() {
        Ok(l) => l.iter().collect(),
        Err(_) => match obj.cast::<PyTuple>() {
            Ok(t) => t.iter().collect(),
            Err(_) => return Err(not_understood(obj)),
        },
    };
    let first = items.first().and_then(|f| f.cast::<PyString>().ok().map(|s| s.to_string()));
    if first.as_deref() == Some("einsum_path") {
        return explicit(&items[1..]).map(Some);
    }
    if let ([_, limit], Some(name_text)) = (&items[..], first) {
        if limit.cast::<PyBool>().is_err() {
            if let Ok(n) = limit.extract::<f64>() {
                if n.is_nan() || n < 1.0 {
                    let msg = format!("the memory limit must be at least 1 element, not {n}");
                    return Err(errors::value_error(obj.py(), einrow::ErrorCode::Value, msg));
                }
                let n = if n >= u64::MAX as f64 { u64::MAX } else { n as u64 };
                return named(obj.py(), &name_text, MemoryLimit::Elements(n)).map(Some);
            }
        }
    }
    Err(not_understood(obj))
}

fn not_understood(obj: &Bound<'_, PyAny>) -> PyErr {
    let shown = obj.repr().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!("Did not understand the path: {shown}"))
}

/// A strategy by name with a memory limit.
fn named(py: Python<'_>, name: &str, limit: MemoryLimit) -> PyResult<PathOptions> {
    match Optimize::parse(name) {
        Ok(o @ (Optimize::Greedy | Optimize::Optimal | Optimize::Dp | Optimize::Auto)) => {
            Ok(PathOptions::new(o).memory_limit(limit))
        }
        Ok(_) => Err(PyTypeError::new_err(format!("Did not understand the path: {name:?}"))),
        Err(e) => Err(errors::path_error(py, name, &e)),
    }
}

/// The steps of an explicit path: each a sequence of operand positions.
fn explicit(steps: &[Bound<'_, PyAny>]) -> PyResult<PathOptions> {
    if steps.len() > MAX_STEPS {
        return Err(PyTypeError::new_err(format!("a path of {} steps is too long", steps.len())));
    }
    let mut out = Vec::with_capacity(steps.len());
    for s in steps {
        let positions: Vec<usize> = s.extract().map_err(|_| {
            let shown = s.repr().map(|r| r.to_string()).unwrap_or_default();
            PyTypeError::new_err(format!(
                "each step of a path is a tuple of operand positions (non-negative integers), not {shown}"
            ))
        })?;
        out.push(positions);
    }
    Ok(PathOptions::new(Optimize::Explicit(out)))
}

/// `einrow.einsum_path(subscripts, *operands, optimize='greedy')`: numpy's `einsum_path`.
/// Returns the path (`['einsum_path', (i, j), ...]`) and numpy's printed report; only the
/// operands' shapes are read.
#[pyfunction]
#[pyo3(signature = (*operands, optimize = None, einsum_call = false))]
pub fn einsum_path<'py>(
    py: Python<'py>,
    operands: &Bound<'py, PyTuple>,
    optimize: Option<&Bound<'py, PyAny>>,
    einsum_call: bool,
) -> PyResult<(Bound<'py, PyList>, String)> {
    if einsum_call {
        return Err(PyTypeError::new_err("einsum_call is numpy's internal argument"));
    }
    let (spec, objs) = split_operands(operands)?;
    let shapes: Vec<Vec<usize>> = objs.iter().map(shape_of).collect::<PyResult<_>>()?;
    let shape_refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let opts = match optimize {
        None => PathOptions::new(Optimize::Greedy).memory_limit(MemoryLimit::MaxInput),
        Some(o) => match path_options(Some(o))? {
            Some(opts) => opts,
            // No planning: one contraction of every operand, as numpy reports it.
            None => PathOptions::new(Optimize::Explicit(vec![(0..objs.len()).collect()])),
        },
    };
    let report =
        plan_path(&spec, &shape_refs, &opts).map_err(|e| errors::einsum_error(py, &spec, &e))?;
    let path = PyList::new(py, [PyString::new(py, "einsum_path").into_any()])?;
    for step in report.path() {
        path.append(PyTuple::new(py, step)?)?;
    }
    Ok((path, report.numpy_text()))
}
