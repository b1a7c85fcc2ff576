//! numpy's `optimize` argument as einrow path options, and `einrow.einsum_path`.

use einrow::numpy::{einsum_path as plan_path, EinsumPlan, MemoryLimit, Optimize, PathOptions};
use pyo3::exceptions::{PyOverflowError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};

use crate::errors;
use crate::operands::{shape_of, split_operands};

/// The largest explicit path read (steps); a longer one is an error, not a long loop.
const MAX_STEPS: usize = 1 << 16;

/// numpy's `optimize` as read: path options, or what decides them once the operands are
/// known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathArg {
    /// Planned with these options (`None`: no planning, einrow's own order).
    Options(Option<PathOptions>),
    /// One step over every operand: a memory limit below one element, which no intermediate
    /// fits (numpy's planners then contract everything at once).
    OneStep,
    /// A strategy name einrow does not have: numpy accepts any name where it plans nothing
    /// (one or two operands, or no label summed) and raises `KeyError` elsewhere.
    Unknown(String),
}

impl PathArg {
    /// The path options for operands of `shapes`; an unknown strategy where a path is needed
    /// is `UnknownStrategyError` (a `BadValueError` and a `KeyError`, numpy's class).
    pub fn resolve(
        self,
        py: Python<'_>,
        spec: &str,
        shapes: &[&[usize]],
    ) -> PyResult<Option<PathOptions>> {
        let one_step = || PathOptions::new(Optimize::Explicit(vec![(0..shapes.len()).collect()]));
        match self {
            PathArg::Options(o) => Ok(o),
            PathArg::OneStep => Ok(Some(one_step())),
            PathArg::Unknown(_) if shapes.len() <= 2 => Ok(None),
            PathArg::Unknown(name) => {
                let plan = EinsumPlan::new(spec, shapes, None)
                    .map_err(|e| errors::einsum_error(py, spec, &e))?;
                let an = plan.analysis();
                if an.labels.len() == an.output.len() {
                    return Ok(Some(one_step()));
                }
                Err(errors::unknown_strategy_error(py, &name))
            }
        }
    }
}

/// Reads numpy's `optimize`: `False`/`None` (no planning), `True` (`greedy`), a strategy
/// name (`greedy`, `optimal`, einrow's `dp` and `auto`), an explicit path
/// `['einsum_path', (0, 1), ...]`, or `(name, memory_limit)` with the limit a Python `int` or
/// `float` (truncated, as numpy's `int()`). Named strategies keep every intermediate within
/// the largest operand or output unless a limit is given, as numpy does.
pub fn path_options(obj: Option<&Bound<'_, PyAny>>) -> PyResult<PathArg> {
    let Some(obj) = obj else { return Ok(PathArg::Options(None)) };
    if obj.is_none() {
        return Ok(PathArg::Options(None));
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        let named = PathOptions::new(Optimize::Greedy).memory_limit(MemoryLimit::MaxInput);
        return Ok(PathArg::Options(b.is_true().then_some(named)));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(named(&s.to_cow()?, MemoryLimit::MaxInput));
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
        return explicit(&items[1..]).map(|o| PathArg::Options(Some(o)));
    }
    if let ([_, limit], Some(name_text)) = (&items[..], first) {
        if let Some(n) = memory_limit(limit)? {
            let elements = u64::try_from(n.max(1)).unwrap_or(u64::MAX);
            return Ok(match named(&name_text, MemoryLimit::Elements(elements)) {
                PathArg::Options(_) if n < 1 => PathArg::OneStep,
                other => other,
            });
        }
    }
    Err(not_understood(obj))
}

/// A memory limit as numpy reads it (`int(limit)` of a Python `int` or `float`, `bool`
/// included): `None` for another type; NaN is numpy's `ValueError`, an infinity its
/// `OverflowError`.
fn memory_limit(limit: &Bound<'_, PyAny>) -> PyResult<Option<i128>> {
    if let Ok(f) = limit.cast::<PyFloat>() {
        let x = f.value();
        if x.is_nan() {
            return Err(PyValueError::new_err("cannot convert float NaN to integer"));
        }
        if x.is_infinite() {
            return Err(PyOverflowError::new_err("cannot convert float infinity to integer"));
        }
        return Ok(Some(x.trunc().clamp(i128::MIN as f64, i128::MAX as f64) as i128));
    }
    if limit.cast::<PyInt>().is_ok() {
        // Beyond i128 is beyond any memory: the sign is what counts.
        return Ok(Some(limit.extract::<i128>().unwrap_or_else(|_| {
            if limit.gt(0).unwrap_or(true) {
                i128::MAX
            } else {
                i128::MIN
            }
        })));
    }
    Ok(None)
}

fn not_understood(obj: &Bound<'_, PyAny>) -> PyErr {
    let shown = obj.str().map(|r| r.to_string()).unwrap_or_else(|_| "?".into());
    PyTypeError::new_err(format!("Did not understand the path: {shown}"))
}

/// A strategy by name with a memory limit.
fn named(name: &str, limit: MemoryLimit) -> PathArg {
    let o = match name {
        "greedy" => Optimize::Greedy,
        "optimal" => Optimize::Optimal,
        "dp" => Optimize::Dp,
        "auto" => Optimize::Auto,
        other => return PathArg::Unknown(other.to_string()),
    };
    PathArg::Options(Some(PathOptions::new(o).memory_limit(limit)))
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
) -> PyResult<Bound<'py, PyAny>> {
    if einsum_call {
        return Err(PyTypeError::new_err("einsum_call is numpy's internal argument"));
    }
    if let Some(r) =
        crate::dispatch::dispatched(py, "einsum_path", operands, &[("optimize", optimize)])?
    {
        return Ok(r);
    }
    let (spec, objs) = split_operands(operands)?;
    let shapes: Vec<Vec<usize>> = objs.iter().map(shape_of).collect::<PyResult<_>>()?;
    let shape_refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let arg = match optimize {
        None => PathArg::Options(None),
        Some(o) => path_options(Some(o))?,
    };
    let opts = match (optimize, arg.resolve(py, &spec, &shape_refs)?) {
        // numpy's default strategy.
        (None, _) => PathOptions::new(Optimize::Greedy).memory_limit(MemoryLimit::MaxInput),
        (_, Some(opts)) => opts,
        // No planning: one contraction of every operand, as numpy reports it.
        (_, None) => PathOptions::new(Optimize::Explicit(vec![(0..objs.len()).collect()])),
    };
    let report =
        plan_path(&spec, &shape_refs, &opts).map_err(|e| errors::einsum_error(py, &spec, &e))?;
    let path = PyList::new(py, [PyString::new(py, "einsum_path").into_any()])?;
    for step in report.path() {
        path.append(PyTuple::new(py, step)?)?;
    }
    Ok((path, report.numpy_text()).into_pyobject(py)?.into_any())
}
