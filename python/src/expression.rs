//! `einrow.contract_expression`: opt_einsum's reusable expression. Built once for operand
//! shapes (some operands given as constant arrays), it plans the path, evaluates the steps
//! that only involve constants, and plans the rest; each call then runs the planned einsum on
//! the arrays given, reading them in place. It pickles, deep-copies and round-trips through
//! JSON (constants included).

use std::sync::Arc;

use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple, PyType};
use smallvec::SmallVec;

use crate::cache::{self, Planned};
use crate::einsum::{evaluate, out_array, Arrays, Keywords};
use crate::expression_build::{choose_path, fold_constants, Remaining, Slot};
use crate::expression_state::State;
use crate::keywords::{self, Casting, Order};
use crate::operands::split_operands;
use crate::{errors, np};

/// A contraction built once for operand shapes, called on arrays as often as wanted
/// (opt_einsum's `ContractExpression`): `expr(*arrays, out=None)` takes the arrays of the
/// non-constant operands, in order, and returns numpy's einsum of all of them. Arrays of other
/// sizes (same ranks) are planned along the same path. Picklable; `to_json`/`from_json`.
#[pyclass(module = "einrow", name = "ContractExpression", frozen)]
pub struct PyContractExpression {
    /// What it was built from (kept for pickling, JSON and `repr`).
    pub(crate) state: State,
    /// What each call runs.
    rest: Remaining,
    /// The plan of `rest` for the shapes it was built for.
    planned: Arc<Planned>,
    /// The shapes `planned` is for.
    rest_shapes: Vec<Vec<usize>>,
}

impl PyContractExpression {
    /// Builds the expression of `state` (path chosen, constants evaluated).
    pub fn build(py: Python<'_>, state: State) -> PyResult<PyContractExpression> {
        let shapes: Vec<&[usize]> = state.shapes.iter().map(Vec::as_slice).collect();
        let kw = state.keywords(py);
        let operands: Vec<Option<Bound<'_, PyUntypedArray>>> =
            (0..shapes.len()).map(|i| state.constant(i).map(|a| a.bind(py).clone())).collect();
        let rest = fold_constants(py, &state.subscripts, &shapes, operands, &state.path, &kw)?;
        let rest_shapes: Vec<Vec<usize>> = rest
            .slots
            .iter()
            .map(|s| match s {
                Slot::Arg(k) => state.arg_shape(*k).to_vec(),
                Slot::Const(a) => a.bind(py).shape().to_vec(),
            })
            .collect();
        let refs: Vec<&[usize]> = rest_shapes.iter().map(Vec::as_slice).collect();
        let planned = cache::plan(&rest.spec, &refs, Some(&rest.path))
            .map_err(|e| errors::einsum_error(py, &rest.spec, &e))?;
        Ok(PyContractExpression { state, rest, planned, rest_shapes })
    }
}

/// opt_einsum's `contract_expression(subscripts, *shapes, constants=None, optimize=True,
/// memory_limit=None)`: `shapes` are the operands' shapes, or the arrays themselves at the
/// positions listed in `constants`. `optimize` is `True` (einrow's `auto`), a strategy name
/// (`greedy`, `optimal`, `dp`, `auto`, and opt_einsum's own names when opt_einsum is
/// installed), a path optimizer object (called as opt_einsum calls one: cotengra's work), or
/// an explicit path (`[(0, 1), (0, 1)]`, numpy's `['einsum_path', ...]` too); `False` is a
/// `BadValueError` (there is nothing to precompute). `memory_limit`: `None`/`-1` (none), a
/// number of elements, or `'max_input'`. `dtype`, `order`, `casting` are einsum's, used at
/// every call; `use_blas` is accepted for opt_einsum's signature (einrow's kernel runs
/// products as GEMM whenever they are).
#[pyfunction]
#[pyo3(signature = (subscripts, *shapes, constants = None, optimize = None, memory_limit = None,
                    use_blas = true, dtype = None, order = None, casting = None))]
#[allow(clippy::too_many_arguments)]
pub fn contract_expression(
    py: Python<'_>,
    subscripts: &Bound<'_, PyAny>,
    shapes: &Bound<'_, PyTuple>,
    constants: Option<Vec<usize>>,
    optimize: Option<&Bound<'_, PyAny>>,
    memory_limit: Option<&Bound<'_, PyAny>>,
    use_blas: bool,
    dtype: Option<&Bound<'_, PyAny>>,
    order: Option<&Bound<'_, PyAny>>,
    casting: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyContractExpression> {
    let _ = use_blas;
    let all: Vec<Bound<'_, PyAny>> =
        std::iter::once(subscripts.clone()).chain(shapes.iter()).collect();
    let args = PyTuple::new(py, all)?;
    let (spec, objs) = split_operands(&args)?;
    let constants = constants.unwrap_or_default();
    let mut consts: Vec<(usize, Py<PyUntypedArray>)> = Vec::with_capacity(constants.len());
    for &i in &constants {
        let Some(obj) = objs.get(i) else {
            let msg = format!("constant position {i} is past the {} operands", objs.len());
            return Err(errors::value_error(py, einrow::ErrorCode::Bounds, msg));
        };
        if consts.iter().any(|(k, _)| *k == i) {
            let msg = format!("constant position {i} is listed twice");
            return Err(errors::value_error(py, einrow::ErrorCode::Value, msg));
        }
        consts.push((i, np::as_array(obj)?.unbind()));
    }
    consts.sort_by_key(|(i, _)| *i);
    let all_shapes: Vec<Vec<usize>> = objs
        .iter()
        .enumerate()
        .map(|(i, o)| match consts.iter().find(|(k, _)| *k == i) {
            Some((_, a)) => Ok(a.bind(py).shape().to_vec()),
            None => shape_arg(o),
        })
        .collect::<PyResult<_>>()?;
    let refs: Vec<&[usize]> = all_shapes.iter().map(Vec::as_slice).collect();
    let path = choose_path(py, &spec, &refs, optimize, memory_limit)?;
    let state = State {
        subscripts: spec.to_string(),
        shapes: all_shapes,
        constants: consts,
        path,
        dtype: dtype.filter(|d| !d.is_none()).map(|d| d.clone().unbind()),
        order: keywords::order(py, order)?,
        casting: keywords::casting(py, casting)?,
    };
    PyContractExpression::build(py, state)
}

/// A shape argument: a sequence of sizes, or anything with a `shape` (an array).
fn shape_arg(obj: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        return Ok(a.shape().to_vec());
    }
    if obj.cast::<PyString>().is_err() {
        if let Ok(s) = obj.extract::<Vec<usize>>() {
            return Ok(s);
        }
        if let Ok(s) = obj.getattr("shape").and_then(|s| s.extract::<Vec<usize>>()) {
            return Ok(s);
        }
    }
    let shown = obj.repr().map(|r| r.to_string()).unwrap_or_default();
    Err(PyTypeError::new_err(format!(
        "a shape is a sequence of non-negative sizes (or an array at a constant's position), \
         not {shown}"
    )))
}

#[pymethods]
impl PyContractExpression {
    /// Runs the contraction on the arrays of the non-constant operands (in order), into `out`
    /// when given. `backend` is accepted for opt_einsum's signature: `None`, `'auto'`,
    /// `'numpy'` or `'einrow'` (einrow computes; numpy arrays come back).
    #[pyo3(signature = (*arrays, out = None, backend = None))]
    fn __call__<'py>(
        &self,
        py: Python<'py>,
        arrays: &Bound<'py, PyTuple>,
        out: Option<Bound<'py, PyAny>>,
        backend: Option<&str>,
    ) -> PyResult<Bound<'py, PyAny>> {
        if !matches!(backend, None | Some("auto" | "numpy" | "einrow")) {
            let msg = format!(
                "backend {:?}: einrow computes every contraction itself (None, 'auto', \
                 'numpy' or 'einrow')",
                backend.unwrap_or_default()
            );
            return Err(errors::value_error(py, einrow::ErrorCode::Unsupported, msg));
        }
        let n = self.state.num_args();
        if arrays.len() != n {
            let msg = format!(
                "This `ContractExpression` takes exactly {n} array arguments but received {}.",
                arrays.len()
            );
            return Err(errors::value_error(py, einrow::ErrorCode::Arity, msg));
        }
        let mut ops: Arrays<'py> = SmallVec::with_capacity(self.rest.slots.len());
        for slot in &self.rest.slots {
            ops.push(match slot {
                Slot::Arg(k) => np::as_array(&arrays.get_item(*k)?)?,
                Slot::Const(a) => a.bind(py).clone(),
            });
        }
        let out = out_array(out)?;
        let kw = self.state.keywords(py);
        let spec = &self.rest.spec;
        let same = ops.iter().zip(&self.rest_shapes).all(|(a, s)| a.shape() == s.as_slice());
        if same {
            return evaluate(py, spec, Some(&self.rest.path), &self.planned, ops, out, &kw);
        }
        let planned = {
            let shapes: SmallVec<[&[usize]; 4]> = ops.iter().map(|a| a.shape()).collect();
            cache::plan(spec, &shapes, Some(&self.rest.path))
                .map_err(|e| errors::einsum_error(py, spec, &e))?
        };
        evaluate(py, spec, Some(&self.rest.path), &planned, ops, out, &kw)
    }

    /// The number of arrays a call takes (the non-constant operands).
    #[getter]
    fn num_args(&self) -> usize {
        self.state.num_args()
    }

    /// The contraction as opt_einsum writes it, constant operands in brackets
    /// (`'[ab],bc->ac'`).
    #[getter]
    fn contraction(&self) -> String {
        self.state.contraction()
    }

    /// The positions of the constant operands.
    #[getter]
    fn constants(&self) -> Vec<usize> {
        self.state.constants.iter().map(|(i, _)| *i).collect()
    }

    /// The contraction path over every operand (numpy's convention: positions in the
    /// current list, each result appended).
    #[getter]
    fn path<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let steps: Vec<Bound<'py, PyTuple>> =
            self.state.path.iter().map(|s| PyTuple::new(py, s)).collect::<PyResult<_>>()?;
        PyList::new(py, steps)
    }

    /// Each operand's shape (the constants' included).
    #[getter]
    fn shapes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let shapes: Vec<Bound<'py, PyTuple>> =
            self.state.shapes.iter().map(|s| PyTuple::new(py, s)).collect::<PyResult<_>>()?;
        PyList::new(py, shapes)
    }

    /// The expression as JSON: subscripts, shapes, path, einsum keywords and the constants'
    /// values (type, shape and bytes in base64), so that `from_json` rebuilds it exactly.
    fn to_json(&self, py: Python<'_>) -> PyResult<String> {
        self.state.to_json(py)
    }

    /// Rebuilds an expression from `to_json`'s text.
    #[classmethod]
    fn from_json(_cls: &Bound<'_, PyType>, py: Python<'_>, text: &str) -> PyResult<Self> {
        PyContractExpression::build(py, State::from_json(py, text)?)
    }

    /// Rebuilds an expression from its parts (pickling's constructor).
    #[classmethod]
    #[pyo3(signature = (subscripts, shapes, constants, path, dtype, order, casting))]
    #[allow(clippy::too_many_arguments)]
    fn _restore(
        _cls: &Bound<'_, PyType>,
        py: Python<'_>,
        subscripts: String,
        shapes: Vec<Vec<usize>>,
        constants: Vec<(usize, Bound<'_, PyUntypedArray>)>,
        path: Vec<Vec<usize>>,
        dtype: Option<Bound<'_, PyAny>>,
        order: &str,
        casting: &str,
    ) -> PyResult<Self> {
        let state = State {
            subscripts,
            shapes,
            constants: constants.into_iter().map(|(i, a)| (i, a.unbind())).collect(),
            path,
            dtype: dtype.filter(|d| !d.is_none()).map(Bound::unbind),
            order: keywords::order(py, Some(&PyString::new(py, order)))?,
            casting: keywords::casting(py, Some(&PyString::new(py, casting)))?,
        };
        PyContractExpression::build(py, state)
    }

    fn __reduce__<'py>(
        slf: &Bound<'py, Self>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let py = slf.py();
        let restore = slf.get_type().getattr("_restore")?;
        Ok((restore, slf.get().state.parts(py)?))
    }

    fn __repr__(&self) -> String {
        let constants = match self.state.constants.is_empty() {
            true => String::new(),
            false => format!(", constants={:?}", self.constants()),
        };
        format!("<ContractExpression('{}'{constants})>", self.contraction())
    }

    fn __str__(&self, py: Python<'_>) -> PyResult<String> {
        let path = self.path(py)?;
        Ok(format!("{}\n  path: {}\n  einsum: {}", self.__repr__(), path.str()?, self.rest.spec))
    }
}

impl State {
    /// einsum's keywords as a call reads them.
    pub fn keywords<'py>(&self, py: Python<'py>) -> Keywords<'py> {
        Keywords {
            dtype: self.dtype.as_ref().map(|d| d.bind(py).clone()),
            order: self.order,
            casting: self.casting,
        }
    }
}

/// The names `_restore` takes an order and a casting rule by.
pub fn keyword_names(order: Order, casting: Casting) -> (&'static str, &'static str) {
    let o = match order {
        Order::C => "C",
        Order::F => "F",
        Order::A => "A",
        Order::K => "K",
    };
    (o, casting.name())
}
