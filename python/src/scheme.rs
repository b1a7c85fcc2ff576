//! `einrow.Scheme` (a graph solved once with its batch rows symbolic) and `einrow.Instance`
//! (the scheme for concrete sizes, without solving again): each tensor's shape, each step's
//! plan, and the whole graph compiled for those sizes.

use einrow::ids::{StepId, TensorId};
use einrow::infer::{Handle, HandleKind, Instance, Scheme, Step};
use einrow::project::{instance_plan, Compute};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyMapping, PyString, PyTuple};

use crate::compiled_graph::{self, PyCompiledGraph};
use crate::declare::{sizes_of, type_name};
use crate::errors;
use crate::graph::{sizes_dict, PyGraph, PyTensor};
use crate::handles::{handle_of, PyRowVar};
use crate::origin::Origin;
use crate::plan::{parse_compute, PyPlan};

/// A graph solved once with some row variables kept symbolic (`Graph.solve_scheme`): every
/// tensor's shape in terms of them. `instantiate` gives the shapes for concrete sizes as
/// often as needed, without solving again.
///
/// ```python
/// batch = g.row_var("batch")
/// x = g.input("x", batch=(batch,), output=(4,))
/// ...
/// scheme = g.solve_scheme(batch)
/// scheme.shape_string(x)            # '..batch..|4'
/// inst = scheme.instantiate({batch: (3, 2)})
/// inst.shape(x)                     # (3, 2, 4)
/// ```
#[pyclass(module = "einrow", name = "Scheme", frozen)]
pub struct PyScheme {
    graph: Py<PyGraph>,
    scheme: Scheme,
    vars: Vec<Py<PyRowVar>>,
    origin: Origin,
}

/// A scheme for concrete sizes of its variables: each tensor's shape and each step's plan,
/// as solving the graph with those sizes would give them.
#[pyclass(module = "einrow", name = "Instance", frozen)]
pub struct PyInstance {
    graph: Py<PyGraph>,
    inst: Instance,
    vars: Vec<Handle>,
    origin: Origin,
}

/// The id of tensor `t` of `graph`, which must be one of the `count` tensors a scheme has.
pub fn tensor_in(
    graph: &Bound<'_, PyGraph>,
    t: &Bound<'_, PyAny>,
    count: usize,
) -> PyResult<TensorId> {
    let id = PyGraph::id_of(graph, t)?;
    if id.index() >= count {
        let name = errors::tensor_name(&graph.borrow().g, id);
        let msg = format!("`{name}` was added to the graph after the scheme was solved");
        return Err(errors::value_error(graph.py(), einrow::ErrorCode::Name, msg));
    }
    Ok(id)
}

/// The position in `steps` of the step whose result is `t` (results ascend with their
/// steps).
pub fn producer(steps: &[Step], t: TensorId) -> Option<usize> {
    steps.binary_search_by_key(&t, |s| s.out).ok()
}

/// The step of `ids` (the step ids of `steps`) that computed `t`, or a `BadValueError` for a
/// leaf.
fn producer_or_err(
    py: Python<'_>,
    graph: &Bound<'_, PyGraph>,
    steps: &[Step],
    mut ids: impl Iterator<Item = StepId>,
    t: TensorId,
) -> PyResult<StepId> {
    producer(steps, t).and_then(|i| ids.nth(i)).ok_or_else(|| {
        let msg = format!(
            "`{}` is a leaf: no step computed it",
            errors::tensor_name(&graph.borrow().g, t)
        );
        errors::value_error(py, einrow::ErrorCode::Value, msg)
    })
}

/// The result tensors of `steps`, in order.
pub fn step_results<'py>(
    graph: &Bound<'py, PyGraph>,
    steps: &[Step],
) -> PyResult<Bound<'py, PyList>> {
    let ts: Vec<PyTensor> = steps.iter().map(|s| PyGraph::tensor(graph, s.out)).collect();
    PyList::new(graph.py(), ts)
}

impl PyScheme {
    /// Solves `graph` as a scheme with `vars` (RowVars) symbolic.
    pub fn solve(graph: &Bound<'_, PyGraph>, vars: &Bound<'_, PyTuple>) -> PyResult<PyScheme> {
        let py = graph.py();
        let mut handles = Vec::with_capacity(vars.len());
        let mut objs = Vec::with_capacity(vars.len());
        for v in vars.iter() {
            let row = v.cast::<PyRowVar>().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a scheme's variables are einrow.RowVar, not {}",
                    type_name(&v)
                ))
            })?;
            handles.push(handle_of(graph, &v)?);
            objs.push(row.clone().unbind());
        }
        let scheme = {
            let this = graph.borrow();
            this.g.solve_scheme(&handles).map_err(|e| this.infer_err(py, &e))?
        };
        let origin = Origin::new(graph.as_any(), "solve_scheme", vars.clone(), None, graph)?;
        Ok(PyScheme { graph: graph.clone().unbind(), scheme, vars: objs, origin })
    }

    /// The position of `var` among the scheme's variables.
    fn var_index(&self, py: Python<'_>, var: &Bound<'_, PyAny>) -> PyResult<usize> {
        let h = handle_of(self.graph.bind(py), var)?;
        self.scheme.vars().position(|v| v == h).ok_or_else(|| {
            let msg = format!(
                "{} is not a variable of the scheme",
                var.repr().map(|r| r.to_string()).unwrap_or_default()
            );
            errors::value_error(py, einrow::ErrorCode::Label, msg)
        })
    }

    /// The sizes of each variable, read from a sequence (in the variables' order) or a
    /// mapping (`{RowVar or its name: sizes}`); sizes are a tuple of axes or one integer.
    fn read_sizes(&self, py: Python<'_>, sizes: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u64>>> {
        let n = self.vars.len();
        let Ok(map) = sizes.cast::<PyMapping>() else {
            let items: Vec<Bound<'_, PyAny>> = match sizes.cast::<PyString>() {
                Ok(_) => {
                    return Err(PyTypeError::new_err(
                        "sizes are a sequence or a mapping, not a string",
                    ))
                }
                Err(_) => sizes.try_iter()?.collect::<PyResult<_>>()?,
            };
            if items.len() != n {
                let msg =
                    format!("the scheme has {n} variables; {} size lists were given", items.len());
                return Err(errors::value_error(py, einrow::ErrorCode::Arity, msg));
            }
            return items.iter().map(|s| axes(py, s)).collect();
        };
        let mut out: Vec<Option<Vec<u64>>> = vec![None; n];
        for item in map.items()?.iter() {
            let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
            let k = match key.cast::<PyString>() {
                Ok(name) => {
                    let name = name.to_cow()?;
                    let name = name.as_ref();
                    self.vars.iter().position(|v| v.get().name_str() == name).ok_or_else(|| {
                        let msg = format!("the scheme has no variable named {name:?}");
                        errors::value_error(py, einrow::ErrorCode::Label, msg)
                    })?
                }
                Err(_) => self.var_index(py, &key)?,
            };
            out[k] = Some(axes(py, &value)?);
        }
        out.into_iter()
            .zip(&self.vars)
            .map(|(s, v)| {
                s.ok_or_else(|| {
                    let msg =
                        format!("no sizes were given for the variable `{}`", v.get().name_str());
                    errors::value_error(py, einrow::ErrorCode::Arity, msg)
                })
            })
            .collect()
    }
}

/// A variable's axes: a tuple of sizes, or one integer for one axis.
fn axes(py: Python<'_>, obj: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
    if let Ok(n) = obj.extract::<i128>() {
        return u64::try_from(n).map(|n| vec![n]).map_err(|_| {
            let msg = format!("a variable has the size {n}; sizes are non-negative");
            errors::value_error(py, einrow::ErrorCode::Value, msg)
        });
    }
    sizes_of(py, obj, "sizes")
}

#[pymethods]
impl PyScheme {
    /// The symbolic row variables, in the order `instantiate` takes their sizes.
    #[getter]
    fn vars(&self, py: Python<'_>) -> Vec<Py<PyRowVar>> {
        self.vars.iter().map(|v| v.clone_ref(py)).collect()
    }

    /// The number of tensors.
    #[getter]
    fn tensor_count(&self) -> usize {
        self.scheme.tensor_count()
    }

    /// The tensor each step computes, in order.
    #[getter]
    fn steps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        step_results(self.graph.bind(py), self.scheme.steps())
    }

    /// The warnings of the solution (legal, but often not what was meant), as text.
    #[getter]
    fn warnings(&self) -> Vec<String> {
        self.scheme.warnings().iter().map(|w| w.to_string()).collect()
    }

    /// A tensor's shape as a shape string, the symbolic variables written `..name..` and
    /// axes computed from them as `2*batch+1`.
    fn shape_string(&self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<String> {
        let id = tensor_in(self.graph.bind(py), t, self.scheme.tensor_count())?;
        self.scheme.shape_string(id).map_err(|e| errors::infer_error(py, None, &e, None))
    }

    /// Whether some step reads `var` axis by axis (a label, a fixed index): its instances
    /// then give it exactly one axis.
    fn is_rank_fixed(&self, py: Python<'_>, var: &Bound<'_, PyAny>) -> PyResult<bool> {
        Ok(self.scheme.is_rank_fixed(self.var_index(py, var)?))
    }

    /// The smallest size `var`'s axes may have (0 when any size will do).
    fn min_size(&self, py: Python<'_>, var: &Bound<'_, PyAny>) -> PyResult<u64> {
        Ok(self.scheme.min_size(self.var_index(py, var)?))
    }

    /// The scheme for concrete sizes: `sizes` maps each variable (a `RowVar` or its name) to
    /// its axes (a tuple, or one integer for one axis), or lists them in the order of
    /// `vars`. Nothing is solved. Errors: a missing or extra variable (`ArityError`), a
    /// rank-fixed variable given other than one axis (`RankError`), a size above 2^62
    /// (`BadValueError`), a size a fixed index reads past (`BoundsError`).
    fn instantiate(slf: &Bound<'_, Self>, sizes: &Bound<'_, PyAny>) -> PyResult<PyInstance> {
        let (py, this) = (slf.py(), slf.get());
        let sizes = this.read_sizes(py, sizes)?;
        let refs: Vec<&[u64]> = sizes.iter().map(Vec::as_slice).collect();
        let inst =
            this.scheme.instantiate(&refs).map_err(|e| errors::infer_error(py, None, &e, None))?;
        let graph = this.graph.bind(py);
        let args = PyTuple::new(py, [sizes.into_pyobject(py)?])?;
        let origin = Origin::new(slf.as_any(), "instantiate", args, None, graph)?;
        let vars = this.scheme.vars().collect();
        Ok(PyInstance { graph: this.graph.clone_ref(py), inst, vars, origin })
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        self.origin.reduce(py, "scheme")
    }

    fn __repr__(&self) -> String {
        let names: Vec<&str> = self.vars.iter().map(|v| v.get().name_str()).collect();
        format!(
            "<einrow.Scheme over {names:?}: {} tensors, {} steps>",
            self.scheme.tensor_count(),
            self.scheme.steps().len()
        )
    }
}

impl PyInstance {
    fn tensor(&self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<TensorId> {
        tensor_in(self.graph.bind(py), t, self.inst.tensor_count())
    }

    fn err(&self, py: Python<'_>, e: &einrow::infer::InferError) -> PyErr {
        errors::infer_error(py, None, e, None)
    }

    /// The axes of a handle: a scheme variable's sizes, or a captured label's size in the
    /// step it was captured from.
    fn handle_dims(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<Vec<u64>> {
        let graph = self.graph.bind(py);
        let h = handle_of(graph, handle)?;
        if let Some(k) = self.vars.iter().position(|&v| v == h) {
            return Ok(self.inst.var_sizes(k).unwrap_or_default().to_vec());
        }
        let g = graph.borrow();
        let err = |e| errors::infer_error(py, Some(&g.g), &e, None);
        let (kind, step, name) = (
            g.g.handle_kind(h).map_err(err)?,
            g.g.handle_step(h).map_err(err)?,
            g.g.handle_name(h).map_err(err)?,
        );
        let label = match (kind, step) {
            (HandleKind::Dim, Some(step)) if step.index() < self.inst.steps().len() => {
                let spec = self.inst.steps()[step.index()].spec.as_ref();
                let names = spec.map_or(&[][..], |s| s.labels());
                names
                    .iter()
                    .position(|n| *n == name)
                    .and_then(|i| self.inst.label_sizes(step).ok()?.get(i).copied())
            }
            _ => None,
        };
        label.map(|n| vec![n]).ok_or_else(|| {
            let msg = format!("an instance knows the sizes of its scheme's variables and of labels captured from its steps; `{name}` is neither");
            errors::value_error(py, einrow::ErrorCode::Unsupported, msg)
        })
    }
}

#[pymethods]
impl PyInstance {
    /// The number of tensors.
    #[getter]
    fn tensor_count(&self) -> usize {
        self.inst.tensor_count()
    }

    /// The tensor each step computes, in order.
    #[getter]
    fn steps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        step_results(self.graph.bind(py), self.inst.steps())
    }

    /// A tensor's sizes in memory order (batch, output, input), as a tuple: the shape of
    /// its buffer.
    fn shape<'py>(&self, py: Python<'py>, t: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
        let id = self.tensor(py, t)?;
        PyTuple::new(py, self.inst.memory_dims(id).map_err(|e| self.err(py, &e))?)
    }

    /// A tensor's sizes by row: `{"batch": (...), "input": (...), "output": (...)}`.
    fn sizes<'py>(&self, py: Python<'py>, t: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let id = self.tensor(py, t)?;
        let sizes = self.inst.sizes(id).map_err(|e| self.err(py, &e))?;
        sizes_dict(py, &sizes)
    }

    /// The sizes of the labels of the spec step that computed `t`, by name (empty for
    /// steps without a spec).
    fn labels<'py>(&self, py: Python<'py>, t: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let id = self.tensor(py, t)?;
        let step =
            producer_or_err(py, self.graph.bind(py), self.inst.steps(), self.inst.step_ids(), id)?;
        let d = PyDict::new(py);
        if let Some(spec) = &self.inst.steps()[step.index()].spec {
            let sizes = self.inst.label_sizes(step).map_err(|e| self.err(py, &e))?;
            for (name, size) in spec.labels().iter().zip(sizes) {
                d.set_item(name.as_str(), size)?;
            }
        }
        Ok(d)
    }

    /// The axes of a handle in this instance: a scheme variable's sizes as given, a label
    /// captured from a step (`Graph.capture`) its size as a one-element tuple.
    fn dims<'py>(
        &self,
        py: Python<'py>,
        handle: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        PyTuple::new(py, self.handle_dims(py, handle)?)
    }

    /// The size of a handle in this instance: a label's size, a variable's number of
    /// elements (the product of its axes).
    fn size(&self, py: Python<'_>, handle: &Bound<'_, PyAny>) -> PyResult<u64> {
        let dims = self.handle_dims(py, handle)?;
        dims.iter().try_fold(1u64, |n, &d| n.checked_mul(d)).ok_or_else(|| {
            let msg = "the row holds more elements than a 64-bit count".to_string();
            errors::value_error(py, einrow::ErrorCode::Value, msg)
        })
    }

    /// The indexing plan of the step that computed `t`, for this instance's sizes (nothing
    /// is solved): `accum` over `combine` of the operands, as `Graph.plan`.
    #[pyo3(signature = (t, *, accum = "+", combine = None))]
    fn plan(
        &self,
        py: Python<'_>,
        t: &Bound<'_, PyAny>,
        accum: &str,
        combine: Option<&str>,
    ) -> PyResult<PyPlan> {
        let id = self.tensor(py, t)?;
        let step =
            producer_or_err(py, self.graph.bind(py), self.inst.steps(), self.inst.step_ids(), id)?;
        let s = &self.inst.steps()[step.index()];
        let compute = parse_compute(py, accum, combine, Compute::default_for(s.op, s.args.len()))?;
        let plan = instance_plan(&self.inst, step, compute)
            .map_err(|e| errors::project_error(py, None, &e))?;
        Ok(PyPlan::new(plan))
    }

    /// Derives and compiles every step's plan for this instance's sizes into a
    /// `CompiledGraph` (steps with the same plan share one executable). `compute` maps a
    /// result tensor to its step's `(accum, combine)`, as `Graph.compile`.
    #[pyo3(signature = (*, compute = None))]
    fn compile(
        slf: &Bound<'_, Self>,
        compute: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyCompiledGraph> {
        let (py, this) = (slf.py(), slf.get());
        let graph = this.graph.bind(py);
        let origin = Origin::new(slf.as_any(), "compile", PyTuple::empty(py), compute, graph)?;
        compiled_graph::compile_instance(graph, &this.inst, compute, origin)
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        self.origin.reduce(py, "instance")
    }

    fn __repr__(&self) -> String {
        let sizes: Vec<&[u64]> =
            (0..self.vars.len()).filter_map(|k| self.inst.var_sizes(k)).collect();
        format!("<einrow.Instance for {sizes:?}: {} tensors>", self.inst.tensor_count())
    }
}
