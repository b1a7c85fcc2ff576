//! How `einrow.contract_expression` is built: the contraction path (einrow's strategies,
//! opt_einsum's by name or as a path optimizer object, or an explicit path), and opt_einsum's
//! evaluation of constants: the path's steps are run, from the first, while every operand of
//! a step is constant, and what is left is one einsum over the remaining operands along the
//! rest of the path.

use einrow::numpy::{analyze, einsum_path, Analysis, Label, MemoryLimit, Optimize, PathOptions};
use einrow::ErrorCode;
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFrozenSet, PyList, PyString, PyTuple};
use smallvec::SmallVec;

use crate::einsum::{evaluate, Arrays, Keywords};
use crate::{cache, errors};

/// An operand of the einsum a call runs: the call's argument `k`, or a constant.
pub enum Slot {
    /// The call's `k`-th array.
    Arg(usize),
    /// A constant (given, or the result of constant steps).
    Const(Py<PyUntypedArray>),
}

/// What each call runs: `spec` over `slots` along `path`.
pub struct Remaining {
    /// The subscripts.
    pub spec: String,
    /// Each operand.
    pub slots: Vec<Slot>,
    /// The path (explicit).
    pub path: PathOptions,
}

/// The contraction path chosen by `optimize` (opt_einsum's values: `True`/`None` for
/// einrow's `auto`, a strategy name, a path optimizer object, an explicit path) within
/// `memory_limit` (opt_einsum's: `None` or `-1` for none, a number of elements, or
/// `"max_input"`).
pub fn choose_path(
    py: Python<'_>,
    spec: &str,
    shapes: &[&[usize]],
    optimize: Option<&Bound<'_, PyAny>>,
    memory_limit: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Vec<usize>>> {
    let fail = |e| errors::einsum_error(py, spec, &e);
    let limit = read_memory_limit(py, memory_limit)?;
    let planned = |o: Optimize| -> PyResult<Vec<Vec<usize>>> {
        let mut opts = PathOptions::new(o);
        opts.memory_limit = limit;
        Ok(einsum_path(spec, shapes, &opts).map_err(fail)?.path().to_vec())
    };
    let Some(obj) = optimize.filter(|o| !o.is_none()) else { return planned(Optimize::Auto) };
    if let Ok(b) = obj.cast::<PyBool>() {
        if !b.is_true() {
            let msg = "Can only generate expressions for optimized contractions.".to_string();
            return Err(errors::value_error(py, ErrorCode::Value, msg));
        }
        return planned(Optimize::Auto);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        let name = s.to_cow()?.to_lowercase();
        return match name.as_str() {
            "greedy" => planned(Optimize::Greedy),
            "optimal" => planned(Optimize::Optimal),
            "dp" | "dynamic-programming" => planned(Optimize::Dp),
            "auto" => planned(Optimize::Auto),
            other => match opt_einsum_path_fn(py, other)? {
                Some(f) => call_optimizer(py, spec, shapes, &f, limit),
                None => Err(errors::unknown_strategy_error(py, other)),
            },
        };
    }
    if obj.cast::<PyList>().is_ok() || obj.cast::<PyTuple>().is_ok() {
        let mut steps: Vec<Bound<'_, PyAny>> = obj.try_iter()?.collect::<PyResult<_>>()?;
        if steps.first().is_some_and(|f| f.cast::<PyString>().is_ok_and(|s| s == "einsum_path")) {
            steps.remove(0);
        }
        return explicit(py, spec, shapes, &steps);
    }
    if obj.is_callable() {
        return call_optimizer(py, spec, shapes, obj, limit);
    }
    let ty = obj.get_type().name().map(|n| n.to_string()).unwrap_or_default();
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "optimize must be True, a strategy name, a path optimizer or a path, not {ty}"
    )))
}

/// opt_einsum's memory limit as einrow's.
fn read_memory_limit(
    py: Python<'_>,
    obj: Option<&Bound<'_, PyAny>>,
) -> PyResult<Option<MemoryLimit>> {
    let Some(obj) = obj.filter(|o| !o.is_none()) else { return Ok(None) };
    if obj.cast::<PyString>().is_ok_and(|s| s == "max_input") {
        return Ok(Some(MemoryLimit::MaxInput));
    }
    let bad = || {
        let msg = "memory_limit must be None, -1, a number of elements of at least 1, or \
                   'max_input'"
            .to_string();
        errors::value_error(py, ErrorCode::Value, msg)
    };
    let n: i128 = obj.extract().map_err(|_| bad())?;
    match n {
        -1 => Ok(None),
        n if n >= 1 => Ok(Some(MemoryLimit::Elements(u64::try_from(n).unwrap_or(u64::MAX)))),
        _ => Err(bad()),
    }
}

/// opt_einsum's path function of this name, when opt_einsum is installed and has one.
fn opt_einsum_path_fn<'py>(py: Python<'py>, name: &str) -> PyResult<Option<Bound<'py, PyAny>>> {
    let Ok(paths) = py.import("opt_einsum.paths") else { return Ok(None) };
    let options = paths.getattr("_PATH_OPTIONS")?;
    if options.contains(name)? {
        return Ok(Some(options.get_item(name)?));
    }
    Ok(None)
}

/// A path optimizer called as opt_einsum calls one: `(inputs, output, size_dict,
/// memory_limit)` with each term a frozenset of one-character labels.
fn call_optimizer(
    py: Python<'_>,
    spec: &str,
    shapes: &[&[usize]],
    optimizer: &Bound<'_, PyAny>,
    limit: Option<MemoryLimit>,
) -> PyResult<Vec<Vec<usize>>> {
    let an = analysis(py, spec, shapes)?;
    let names = label_chars(py, &an)?;
    let term = |ls: &[usize]| -> PyResult<Bound<'_, PyFrozenSet>> {
        PyFrozenSet::new(py, ls.iter().map(|&l| names[l].to_string()))
    };
    let inputs = PyList::empty(py);
    for o in &an.operands {
        inputs.append(term(o)?)?;
    }
    let sizes = PyDict::new(py);
    for (l, &size) in an.sizes.iter().enumerate() {
        sizes.set_item(names[l].to_string(), size)?;
    }
    let limit = match limit {
        None => None,
        Some(MemoryLimit::Elements(n)) => Some(n as u128),
        Some(MemoryLimit::MaxInput) => {
            let size = |ls: &[usize]| ls.iter().map(|&l| an.sizes[l] as u128).product::<u128>();
            an.operands.iter().map(|o| size(o)).chain([size(&an.output)]).max()
        }
    };
    let path = optimizer.call1((inputs, term(&an.output)?, sizes, limit))?;
    let steps: Vec<Bound<'_, PyAny>> = path.try_iter()?.collect::<PyResult<_>>()?;
    explicit(py, spec, shapes, &steps)
}

/// An explicit path, checked by planning along it.
fn explicit(
    py: Python<'_>,
    spec: &str,
    shapes: &[&[usize]],
    steps: &[Bound<'_, PyAny>],
) -> PyResult<Vec<Vec<usize>>> {
    let path: Vec<Vec<usize>> =
        steps.iter().map(|s| s.extract::<Vec<usize>>()).collect::<PyResult<_>>().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(
                "each step of a path is a tuple of operand positions (non-negative integers)",
            )
        })?;
    let opts = PathOptions::new(Optimize::Explicit(path));
    let report =
        einsum_path(spec, shapes, &opts).map_err(|e| errors::einsum_error(py, spec, &e))?;
    Ok(report.path().to_vec())
}

/// The shape analysis of `spec` on `shapes`.
pub fn analysis(py: Python<'_>, spec: &str, shapes: &[&[usize]]) -> PyResult<Analysis> {
    let fail = |e: einrow::numpy::EinsumError| errors::einsum_error(py, spec, &e);
    let parsed = einrow::spec::parse_numpy(spec).map_err(|e| fail(e.into()))?;
    analyze(&parsed, shapes).map_err(fail)
}

/// A letter per label: letters stand for themselves, ellipsis dimensions take unused ones.
fn label_chars(py: Python<'_>, an: &Analysis) -> PyResult<Vec<char>> {
    let used: Vec<char> = an
        .labels
        .iter()
        .filter_map(|l| if let Label::Letter(c) = l { Some(*c) } else { None })
        .collect();
    let mut spare = ('a'..='z').chain('A'..='Z').filter(|c| !used.contains(c));
    an.labels
        .iter()
        .map(|l| match l {
            Label::Letter(c) => Ok(*c),
            Label::Ellipsis(_) => spare.next().ok_or_else(|| {
                let msg = "more than 52 labels with the ellipsis's dimensions: give the \
                           constants' einsum labels for every axis"
                    .to_string();
                errors::value_error(py, ErrorCode::Unsupported, msg)
            }),
        })
        .collect()
}

/// opt_einsum's evaluation of constants: runs the path's steps, from the first, while each
/// takes only constants (`operands[k]` is `Some` for a constant), and returns what is left.
pub fn fold_constants<'py>(
    py: Python<'py>,
    spec: &str,
    shapes: &[&[usize]],
    operands: Vec<Option<Bound<'py, PyUntypedArray>>>,
    path: &[Vec<usize>],
    kw: &Keywords<'py>,
) -> PyResult<Remaining> {
    let explicit = |p: &[Vec<usize>]| PathOptions::new(Optimize::Explicit(p.to_vec()));
    if operands.iter().all(Option::is_none) {
        let slots = (0..operands.len()).map(Slot::Arg).collect();
        return Ok(Remaining { spec: spec.to_string(), slots, path: explicit(path) });
    }
    let an = analysis(py, spec, shapes)?;
    let names = label_chars(py, &an)?;
    let text = |ls: &[usize]| ls.iter().map(|&l| names[l]).collect::<String>();
    let mut arg = 0;
    let mut list: Vec<(Vec<usize>, Slot)> = Vec::with_capacity(operands.len());
    for (labels, op) in an.operands.iter().zip(operands) {
        let slot = match op {
            Some(a) => Slot::Const(a.unbind()),
            None => {
                arg += 1;
                Slot::Arg(arg - 1)
            }
        };
        list.push((labels.clone(), slot));
    }
    // Positions index the list as it is before each step, results appended: replayed here.
    let mut done = 0;
    for step in path {
        if !step.iter().all(|&p| matches!(list.get(p), Some((_, Slot::Const(_))))) {
            break;
        }
        let mut order = step.clone();
        order.sort_unstable_by(|a, b| b.cmp(a));
        let taken: Vec<(Vec<usize>, Slot)> = order.iter().map(|&p| list.remove(p)).collect();
        let keep = kept_labels(&an, &taken, &list, done + 1 == path.len());
        let sub = format!(
            "{}->{}",
            taken.iter().map(|(ls, _)| text(ls)).collect::<Vec<_>>().join(","),
            text(&keep)
        );
        let arrays: Arrays<'py> = taken
            .iter()
            .filter_map(|(_, s)| match s {
                Slot::Const(a) => Some(a.bind(py).clone()),
                Slot::Arg(_) => None,
            })
            .collect();
        let result = run_step(py, &sub, arrays, kw)?;
        list.push((keep, Slot::Const(result.unbind())));
        done += 1;
    }
    let terms: Vec<String> = list.iter().map(|(ls, _)| text(ls)).collect();
    let spec = format!("{}->{}", terms.join(","), text(&an.output));
    let slots = list.into_iter().map(|(_, s)| s).collect();
    Ok(Remaining { spec, slots, path: explicit(&path[done..]) })
}

/// The labels a step's result keeps: those another live operand or the output has (the
/// output's order for the last step).
fn kept_labels(
    an: &Analysis,
    taken: &[(Vec<usize>, Slot)],
    rest: &[(Vec<usize>, Slot)],
    last: bool,
) -> Vec<usize> {
    if last {
        return an.output.clone();
    }
    let mut keep: Vec<usize> = Vec::new();
    for &l in taken.iter().flat_map(|(ls, _)| ls) {
        let needed = an.output.contains(&l) || rest.iter().any(|(ls, _)| ls.contains(&l));
        if needed && !keep.contains(&l) {
            keep.push(l);
        }
    }
    keep
}

/// One constant step, computed by einsum (a fresh array, never a view of a constant).
fn run_step<'py>(
    py: Python<'py>,
    spec: &str,
    arrays: Arrays<'py>,
    kw: &Keywords<'py>,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let planned = {
        let shapes: SmallVec<[&[usize]; 4]> = arrays.iter().map(|a| a.shape()).collect();
        cache::plan(spec, &shapes, None).map_err(|e| errors::einsum_error(py, spec, &e))?
    };
    let result = evaluate(py, spec, None, &planned, arrays, None, kw)?;
    let array = crate::np::as_array(&result)?;
    Ok(array.call_method0("copy")?.cast_into::<PyUntypedArray>()?)
}
