//! `einrow.Plan` (a step's indexing plan: loops, per-axis indices, JSON) and
//! `einrow.Executable` (the plan compiled once, run on numpy arrays as often as wanted).

use einrow::kernel::{Accum, Combine, Scalar};
use einrow::project::{Compute, Executable, IndexPlan, ProjectError, Storage, View, ViewMut};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use smallvec::SmallVec;

use crate::arrays::{array_flags, element_type, Memory, NotInPlace};
use crate::dtypes::{supported, Dt, ForType};
use crate::{convert, errors, np, threads};

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
    Ok(Compute { accum, combine })
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

    /// Compiles the plan onto the kernel's loop nests, once.
    fn compile(&self, py: Python<'_>) -> PyResult<PyExecutable> {
        let exe =
            Executable::compile(&self.plan).map_err(|e| errors::project_error(py, None, &e))?;
        let work = self.plan.parts.iter().fold(0u128, |sum, p| {
            let points = p.loops.iter().fold(1u128, |n, l| n.saturating_mul(l.size as u128));
            sum.saturating_add(points)
        });
        Ok(PyExecutable { exe, work })
    }

    fn __str__(&self) -> String {
        self.plan.to_string().trim_end().to_string()
    }

    fn __repr__(&self) -> String {
        format!("<einrow.Plan {} -> {:?}>", self.plan.op.name(), self.plan.result_dims)
    }
}

/// A compiled plan: `run(*operands, out=None)` on numpy arrays of the plan's operand shapes
/// (memory order), float32 or float64, any strides, read in place; the GIL is released while
/// large plans run.
#[pyclass(module = "einrow", name = "Executable", frozen)]
pub struct PyExecutable {
    exe: Executable,
    work: u128,
}

#[pymethods]
impl PyExecutable {
    /// The result's sizes, in memory order.
    #[getter]
    fn result_shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.exe.result_dims())
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
        let mut arrays: SmallVec<[Bound<'py, PyUntypedArray>; 4]> =
            operands.iter().map(|o| np::as_array(&o)).collect::<PyResult<_>>()?;
        let out = match out {
            Some(o) if !o.is_none() => Some(
                o.cast_into::<PyUntypedArray>()
                    .map_err(|_| PyTypeError::new_err("out must be a numpy array"))?,
            ),
            _ => None,
        };
        let dt = match arrays.first().or(out.as_ref()) {
            None => Dt::F64,
            Some(a) => element_type(a).ok_or_else(|| type_error(Some(a)))?,
        };
        let mut mems: SmallVec<[Memory; 4]> = SmallVec::new();
        for a in arrays.iter_mut() {
            let m = match Memory::of(a) {
                Ok(m) if m.dt == dt => m,
                Err(NotInPlace::Layout) if element_type(a) == Some(dt) => {
                    *a = np::readable_copy(a, dt)?;
                    Memory::of(a).map_err(|_| PyTypeError::new_err("unreadable copy"))?
                }
                _ => return Err(type_error(Some(a))),
            };
            mems.push(m);
        }
        let target = |arr: &Bound<'py, PyUntypedArray>| -> PyResult<Option<Memory>> {
            match Memory::of(arr) {
                Ok(m) if m.dt == dt && !mems.iter().any(|i| i.overlaps(&m)) => Ok(Some(m)),
                Ok(m) if m.dt == dt => Ok(None),
                Err(NotInPlace::Layout) if element_type(arr) == Some(dt) => Ok(None),
                _ => Err(type_error(Some(arr))),
            }
        };
        let fail = |e: ProjectError| errors::project_error(py, None, &e);
        let shape: Vec<usize> = self.exe.result_dims().iter().map(|&d| d as usize).collect();
        let Some(out) = out else {
            let result = np::empty(py, dt, &shape)?;
            let m = target(&result)?.ok_or_else(|| PyTypeError::new_err("unreadable result"))?;
            self.run_on(py, &mems, &m).map_err(fail)?;
            return Ok(result.into_any());
        };
        if array_flags(&out) & numpy::npyffi::NPY_ARRAY_WRITEABLE == 0 {
            let msg = "the output array is read-only".to_string();
            return Err(errors::value_error(py, einrow::ErrorCode::Value, msg));
        }
        match target(&out)? {
            Some(m) => self.run_on(py, &mems, &m).map_err(fail)?,
            None => {
                if out.shape() != shape.as_slice() {
                    let msg = format!(
                        "the output has shape {:?} but the plan's result {:?}",
                        out.shape(),
                        shape
                    );
                    return Err(errors::value_error(py, einrow::ErrorCode::Elems, msg));
                }
                let result = np::empty(py, dt, &shape)?;
                let m =
                    target(&result)?.ok_or_else(|| PyTypeError::new_err("unreadable result"))?;
                self.run_on(py, &mems, &m).map_err(fail)?;
                np::COPYTO.get(py)?.call1((&out, &result))?;
            }
        }
        Ok(out.into_any())
    }

    fn __repr__(&self) -> String {
        format!("<einrow.Executable -> {:?}>", self.exe.result_dims())
    }
}

fn type_error(array: Option<&Bound<'_, PyUntypedArray>>) -> PyErr {
    let got = array.map(|a| a.dtype().to_string()).unwrap_or_else(|| "nothing".to_string());
    PyTypeError::new_err(format!(
        "a compiled plan runs on arrays of one element type, {}; got {got}",
        supported()
    ))
}

impl PyExecutable {
    fn run_on(&self, py: Python<'_>, inputs: &[Memory], out: &Memory) -> Result<(), ProjectError> {
        threads::run_kernel(py, out.dt, self.work, Job { exe: &self.exe, inputs, out })
    }
}

/// One run of an executable, generic over the element type.
struct Job<'a> {
    exe: &'a Executable,
    inputs: &'a [Memory],
    out: &'a Memory,
}

impl ForType for Job<'_> {
    type Out = Result<(), ProjectError>;

    fn run<T: Scalar + Storage + numpy::Element>(self) -> Self::Out {
        let sizes = |m: &Memory| m.shape.iter().map(|&d| d as u64).collect::<SmallVec<[u64; 6]>>();
        let mut views: SmallVec<[View<'_, T>; 4]> = SmallVec::with_capacity(self.inputs.len());
        for m in self.inputs {
            // SAFETY: the arrays are held by the caller for the call and were read as `T`;
            // the output shares no byte with any operand (checked by the caller).
            let data = unsafe { m.slice::<T>() };
            views.push(View::strided(data, &sizes(m), &m.strides, m.offset)?);
        }
        let o = self.out;
        // SAFETY: as above; the output array is writeable (checked by the caller).
        let data = unsafe { o.slice_mut::<T>() };
        let mut out = ViewMut::strided(data, &sizes(o), &o.strides, o.offset)?;
        self.exe.run_views(&views, &mut out)
    }
}
