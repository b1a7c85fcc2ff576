//! `einrow.Plan` (a step's indexing plan: loops, per-axis indices, JSON) and
//! `einrow.Executable` (the plan compiled once, run on numpy arrays as often as wanted).

use einrow::kernel::{Accum, Combine};
use einrow::project::{Compute, IndexPlan};
use numpy::PyUntypedArray;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple, PyType};
use std::hash::{Hash, Hasher};

use crate::run::Compiled;
use crate::{convert, errors, np};

/// Reads `accum` and `combine` names; `default` fills in an unnamed combine.
pub fn parse_compute(
    py: Python<'_>,
    accum: &str,
    combine: Option<&str>,
    default: Compute,
) -> PyResult<Compute> {
    let bad = |what: &str, name: &str, names: &str| {
        let msg = format!("unknown {what} {name:?}; the names are {names}");
        errors::value_error(py, einrow::ErrorCode::Value, msg)
    };
    let accum = match accum {
        "+" => Accum::Add,
        "*" => Accum::Mul,
        "max" => Accum::Max,
        "min" => Accum::Min,
        "=" => Accum::Store,
        other => return Err(bad("accumulation", other, "+, *, max, min, =")),
    };
    let combine = match combine {
        None => default.combine,
        Some("*") => Combine::Mul,
        Some("+") => Combine::Add,
        Some("-") => Combine::Sub,
        Some("/") => Combine::Div,
        Some("max") => Combine::Max,
        Some("min") => Combine::Min,
        Some("first") => Combine::First,
        Some(other) => return Err(bad("combine", other, "*, +, -, /, max, min, first")),
    };
    Ok(Compute::new(accum, combine))
}

/// The indexing plan of one step: its loops, and for the result and each operand the index
/// of every axis. `str(plan)` prints the loops; `to_json()` gives the plan as JSON.
#[pyclass(module = "einrow", name = "Plan", frozen)]
pub struct PyPlan {
    plan: IndexPlan,
}

impl PyPlan {
    /// Wraps a plan.
    pub fn new(plan: IndexPlan) -> PyPlan {
        PyPlan { plan }
    }
}

#[pymethods]
impl PyPlan {
    /// The result's sizes, in memory order.
    #[getter]
    fn result_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, &self.plan.result_dims)
    }

    /// Each operand's sizes, in memory order.
    #[getter]
    fn operand_shapes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let shapes: Vec<Bound<'py, PyTuple>> =
            self.plan.operand_dims.iter().map(|d| PyTuple::new(py, d)).collect::<PyResult<_>>()?;
        PyList::new(py, shapes)
    }

    /// The plan as a JSON string: `op`, `result_dims`, `operand_dims`, `accum`, `combine`,
    /// `bijective`, and `parts`, each with its `loops`, the index of each `result` axis, and
    /// the `operands` it reads as `{"operand": k, "index": [...]}` (only those it reads).
    fn to_json(&self) -> String {
        self.plan.to_json().to_string()
    }

    /// The plan as Python dicts and lists (the JSON's structure).
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        convert::json_to_py(py, &self.plan.to_json())
    }

    /// The plan of `to_json`'s text (`Plan.from_json(p.to_json()) == p`).
    #[classmethod]
    fn from_json(_cls: &Bound<'_, PyType>, py: Python<'_>, text: &str) -> PyResult<Self> {
        read_plan(py, text).map(PyPlan::new)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().getattr("from_json")?, (slf.get().to_json(),)))
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other.cast::<PyPlan>().is_ok_and(|o| o.get().plan == self.plan)
    }

    fn __hash__(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.plan.hash(&mut h);
        h.finish()
    }

    /// Compiles the plan onto the kernel's loop nests, once.
    fn compile(&self, py: Python<'_>) -> PyResult<PyExecutable> {
        let compiled =
            Compiled::compile(&self.plan).map_err(|e| errors::project_error(py, None, &e))?;
        Ok(PyExecutable { compiled })
    }

    fn __str__(&self) -> String {
        self.plan.to_string().trim_end().to_string()
    }

    fn __repr__(&self) -> String {
        format!("<einrow.Plan {} -> {:?}>", self.plan.op.name(), self.plan.result_dims)
    }
}

/// A compiled plan: `run(*operands, out=None)` on numpy arrays of the plan's operand shapes
/// (memory order), any strides, read in place, all of one element type: bool, int8, uint8,
/// int16, int32, int64, float16, bfloat16 (ml_dtypes'), float32 or float64. Narrower
/// integers are computed in int64 and float16/bfloat16 in float32, the result written back
/// in the arrays' type (integer sums wrap, as numpy's). The GIL is released while large
/// plans run.
#[pyclass(module = "einrow", name = "Executable", frozen)]
pub struct PyExecutable {
    compiled: Compiled,
}

impl PyExecutable {
    /// Wraps a compiled plan.
    pub fn new(compiled: Compiled) -> PyExecutable {
        PyExecutable { compiled }
    }
}

#[pymethods]
impl PyExecutable {
    /// The result's sizes, in memory order.
    #[getter]
    fn result_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.compiled.exe.result_dims())
    }

    /// Each operand's sizes, in memory order.
    #[getter]
    fn operand_shapes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let shapes: Vec<Bound<'py, PyTuple>> = self
            .compiled
            .exe
            .operand_dims()
            .iter()
            .map(|d| PyTuple::new(py, d))
            .collect::<PyResult<_>>()?;
        PyList::new(py, shapes)
    }

    /// Runs the plan on `operands` into `out` (a fresh array when `None`), which it
    /// overwrites and returns.
    #[pyo3(signature = (*operands, out = None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        operands: &Bound<'py, PyTuple>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let arrays = operands.iter().map(|o| np::as_array(&o)).collect::<PyResult<_>>()?;
        let out = out_array(out)?;
        Ok(self.compiled.run(py, arrays, out)?.into_any())
    }

    /// The plan compiled, as JSON (`Plan.to_json`'s form).
    fn to_json(&self) -> String {
        self.compiled.plan.to_json().to_string()
    }

    /// The executable of `to_json`'s text: the plan read and compiled.
    #[classmethod]
    fn from_json(_cls: &Bound<'_, PyType>, py: Python<'_>, text: &str) -> PyResult<Self> {
        let plan = read_plan(py, text)?;
        let compiled = Compiled::compile(&plan).map_err(|e| errors::project_error(py, None, &e))?;
        Ok(PyExecutable { compiled })
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        Ok((slf.get_type().getattr("from_json")?, (slf.get().to_json(),)))
    }

    fn __repr__(&self) -> String {
        format!("<einrow.Executable -> {:?}>", self.compiled.exe.result_dims())
    }
}

/// A plan of JSON text (`IndexPlan::to_json`'s form); malformed text is `SpecSyntaxError`.
fn read_plan(py: Python<'_>, text: &str) -> PyResult<IndexPlan> {
    let bad = |msg: String| errors::value_error(py, einrow::ErrorCode::Syntax, msg);
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| bad(format!("not JSON: {e}")))?;
    IndexPlan::from_json(&value).map_err(|e| bad(e.to_string()))
}

/// The `out` argument: `None`, or a numpy array.
pub fn out_array(out: Option<Bound<'_, PyAny>>) -> PyResult<Option<Bound<'_, PyUntypedArray>>> {
    match out {
        Some(o) if !o.is_none() => Ok(Some(
            o.cast_into::<PyUntypedArray>()
                .map_err(|_| PyTypeError::new_err("out must be a numpy array"))?,
        )),
        _ => Ok(None),
    }
}
