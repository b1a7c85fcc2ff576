//! `einrow.CompiledGraph`: every step of a solved graph (or of a scheme instance) compiled
//! once, then run forward as often as wanted on numpy buffers the caller owns, one per
//! tensor: leaves are read, results overwritten, each step read and written in place
//! whatever the strides (the crate's `CompiledGraph`, run step by step so that numpy arrays
//! of any layout, a Python hook between steps, and the GIL's release per step all fit).

use std::collections::HashMap;
use std::sync::Arc;

use einrow::ids::{StepId, TensorId};
use einrow::infer::{Instance, Step};
use einrow::project::{derive_plan, instance_plans, Compute, IndexPlan};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyMapping, PyString, PyTuple};
use smallvec::SmallVec;

use crate::declare::type_name;
use crate::graph::PyGraph;
use crate::origin::Origin;
use crate::plan::{out_array, parse_compute, PyExecutable};
use crate::run::{common_type, Compiled};
use crate::scheme::{producer, step_results, tensor_in};
use crate::{errors, np};

/// One compiled step: its result, its operands, its executable.
struct CompiledStep {
    out: TensorId,
    args: SmallVec<[TensorId; 3]>,
    compiled: Compiled,
}

/// Every step of a solved graph or of a scheme instance, compiled once (`Graph.compile`,
/// `Instance.compile`). `run(buffers)` runs them in order on one numpy array per tensor;
/// `run_step(t, *operands, out=None)` runs one step.
#[pyclass(module = "einrow", name = "CompiledGraph", frozen)]
pub struct PyCompiledGraph {
    graph: Py<PyGraph>,
    /// Each tensor's sizes in memory order.
    dims: Vec<Vec<u64>>,
    /// The graph's steps (for the tensor each computes).
    steps: Vec<Step>,
    compiled: Vec<CompiledStep>,
    /// The call that made it.
    origin: Origin,
}

/// Each step's computation: its operation's default, or what `compute` maps its result to
/// (an `(accum, combine)` pair, or an `accum` name).
pub(crate) fn computes(
    graph: &Bound<'_, PyGraph>,
    steps: &[Step],
    tensor_count: usize,
    compute: Option<&Bound<'_, PyAny>>,
) -> PyResult<Vec<Compute>> {
    let py = graph.py();
    let mut out: Vec<Compute> =
        steps.iter().map(|s| Compute::default_for(s.op, s.args.len())).collect();
    let Some(compute) = compute.filter(|c| !c.is_none()) else { return Ok(out) };
    let map = compute.cast::<PyMapping>().map_err(|_| {
        PyTypeError::new_err(format!(
            "`compute` maps result tensors to (accum, combine) pairs, not {}",
            type_name(compute)
        ))
    })?;
    for item in map.items()?.iter() {
        let (key, value): (Bound<'_, PyAny>, Bound<'_, PyAny>) = item.extract()?;
        let id = tensor_in(graph, &key, tensor_count)?;
        let Some(step) = producer(steps, id) else {
            let name = errors::tensor_name(&graph.borrow().g, id);
            let msg = format!("`{name}` is a leaf: no step computes it");
            return Err(errors::value_error(py, einrow::ErrorCode::Value, msg));
        };
        let (accum, combine): (String, Option<String>) = match value.cast::<PyString>() {
            Ok(s) => (s.to_cow()?.into_owned(), None),
            Err(_) => value.extract().map_err(|_| {
                PyTypeError::new_err(format!(
                    "a computation is an (accum, combine) pair of names, not {}",
                    type_name(&value)
                ))
            })?,
        };
        let slot = &mut out[step];
        *slot = parse_compute(py, &accum, combine.as_deref(), *slot)?;
    }
    Ok(out)
}

/// [`PyCompiledGraph`] of a solved graph.
pub fn compile_graph(
    graph: &Bound<'_, PyGraph>,
    compute: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyCompiledGraph> {
    let py = graph.py();
    let origin = Origin::new(graph.as_any(), "compile", PyTuple::empty(py), compute, graph)?;
    let (steps, n) = {
        let this = graph.borrow();
        (this.g.steps().to_vec(), this.g.tensor_count())
    };
    let computes = computes(graph, &steps, n, compute)?;
    let this = graph.borrow();
    let mut dims = Vec::with_capacity(n);
    let ids: Vec<TensorId> = this.g.tensor_ids().collect();
    for id in ids {
        let sizes = this.g.sizes(id).map_err(|e| this.infer_err(py, &e))?;
        dims.push(sizes.memory_order());
    }
    let mut compiled = Vec::with_capacity(steps.len());
    let step_ids: Vec<StepId> = this.g.step_ids().collect();
    for (i, (s, step)) in steps.iter().zip(step_ids).enumerate() {
        let plan = derive_plan(&this.g, step, computes[i], 0)
            .map_err(|e| errors::project_error(py, Some(&this.g), &e))?;
        let c = Compiled::compile(&plan).map_err(|e| errors::project_error(py, None, &e))?;
        compiled.push(CompiledStep { out: s.out, args: s.args.clone(), compiled: c });
    }
    drop(this);
    Ok(PyCompiledGraph { graph: graph.clone().unbind(), dims, steps, compiled, origin })
}

/// [`PyCompiledGraph`] of a scheme instance: the crate's plans of the instance (steps with
/// the same plan share it), each distinct plan compiled once.
pub fn compile_instance(
    graph: &Bound<'_, PyGraph>,
    inst: &Instance,
    compute: Option<&Bound<'_, PyAny>>,
    origin: Origin,
) -> PyResult<PyCompiledGraph> {
    let py = graph.py();
    let steps = inst.steps().to_vec();
    let computes = computes(graph, &steps, inst.tensor_count(), compute)?;
    let fail = |e| errors::project_error(py, None, &e);
    let plans = instance_plans(inst, &|s: StepId| computes[s.index()]).map_err(fail)?;
    let mut seen: HashMap<*const IndexPlan, Compiled> = HashMap::new();
    let mut compiled = Vec::with_capacity(steps.len());
    for (s, plan) in steps.iter().zip(&plans) {
        let c = match seen.get(&Arc::as_ptr(plan)) {
            Some(c) => c.clone(),
            None => {
                let c = Compiled::compile(plan).map_err(fail)?;
                seen.insert(Arc::as_ptr(plan), c.clone());
                c
            }
        };
        compiled.push(CompiledStep { out: s.out, args: s.args.clone(), compiled: c });
    }
    let dims = inst
        .tensor_ids()
        .map(|t| inst.memory_dims(t).map(|d| d.to_vec()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| errors::infer_error(py, None, &e, None))?;
    Ok(PyCompiledGraph { graph: graph.clone().unbind(), dims, steps, compiled, origin })
}

impl PyCompiledGraph {
    /// The compiled step that computes `t`.
    fn step_of(&self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<&CompiledStep> {
        let graph = self.graph.bind(py);
        let id = tensor_in(graph, t, self.dims.len())?;
        let step = producer(&self.steps, id).ok_or_else(|| {
            let name = errors::tensor_name(&graph.borrow().g, id);
            let msg = format!("`{name}` is a leaf: no step computes it");
            errors::value_error(py, einrow::ErrorCode::Value, msg)
        })?;
        Ok(&self.compiled[step])
    }

    /// The name of the graph's tensor `i`.
    fn name_at(&self, py: Python<'_>, i: usize) -> String {
        let graph = self.graph.borrow(py);
        let id = graph.g.tensor_ids().nth(i);
        id.map_or_else(|| format!("t{i}"), |t| errors::tensor_name(&graph.g, t))
    }

    fn name(&self, py: Python<'_>, t: TensorId) -> String {
        errors::tensor_name(&self.graph.borrow(py).g, t)
    }

    /// The buffers given, one slot per tensor, read from a mapping `{Tensor: array}` or a
    /// sequence indexed by tensor; `None` leaves a slot empty.
    fn read_buffers<'py>(
        &self,
        py: Python<'py>,
        buffers: &Bound<'py, PyAny>,
    ) -> PyResult<Vec<Option<Bound<'py, PyUntypedArray>>>> {
        let n = self.dims.len();
        let mut slots: Vec<Option<Bound<'py, PyUntypedArray>>> = vec![None; n];
        let array = |v: &Bound<'py, PyAny>| -> PyResult<Option<Bound<'py, PyUntypedArray>>> {
            if v.is_none() {
                return Ok(None);
            }
            v.cast::<PyUntypedArray>().map(|a| Some(a.clone())).map_err(|_| {
                PyTypeError::new_err(format!("a buffer is a numpy array, not {}", type_name(v)))
            })
        };
        if let Ok(map) = buffers.cast::<PyMapping>() {
            for item in map.items()?.iter() {
                let (key, value): (Bound<'py, PyAny>, Bound<'py, PyAny>) = item.extract()?;
                let id = tensor_in(self.graph.bind(py), &key, n)?;
                slots[id.index()] = array(&value)?;
            }
        } else {
            let items: Vec<Bound<'py, PyAny>> = buffers
                .try_iter()
                .map_err(|_| {
                    PyTypeError::new_err(format!(
                        "buffers are a dict {{Tensor: array}} or a list indexed by tensor, not {}",
                        type_name(buffers)
                    ))
                })?
                .collect::<PyResult<_>>()?;
            if items.len() != n {
                let msg = format!("the graph has {n} tensors; {} buffers were given", items.len());
                return Err(errors::value_error(py, einrow::ErrorCode::Arity, msg));
            }
            for (slot, item) in slots.iter_mut().zip(&items) {
                *slot = array(item)?;
            }
        }
        for (i, slot) in slots.iter().enumerate() {
            let Some(a) = slot else { continue };
            let want: Vec<usize> = self.dims[i].iter().map(|&d| d as usize).collect();
            if a.shape() != want.as_slice() {
                let msg = format!(
                    "the buffer of `{}` has shape {:?}; the tensor's is {want:?}",
                    self.name_at(py, i),
                    a.shape()
                );
                return Err(errors::value_error(py, einrow::ErrorCode::Elems, msg));
            }
        }
        Ok(slots)
    }
}

#[pymethods]
impl PyCompiledGraph {
    /// The number of tensors (of buffers `run` takes).
    #[getter]
    fn tensor_count(&self) -> usize {
        self.dims.len()
    }

    /// The tensor each step computes, in order.
    #[getter]
    fn steps<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        step_results(self.graph.bind(py), &self.steps)
    }

    /// A tensor's sizes in memory order (batch, output, input): the shape of its buffer.
    fn shape<'py>(&self, py: Python<'py>, t: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
        let id = tensor_in(self.graph.bind(py), t, self.dims.len())?;
        PyTuple::new(py, &self.dims[id.index()])
    }

    /// The executable of the step that computed `t`.
    fn executable(&self, py: Python<'_>, t: &Bound<'_, PyAny>) -> PyResult<PyExecutable> {
        Ok(PyExecutable::new(self.step_of(py, t)?.compiled.clone()))
    }

    /// Runs the step that computed `t` on `operands` (its operands' buffers, in order)
    /// into `out` (a fresh array when `None`), which it overwrites and returns; as
    /// `Executable.run`.
    #[pyo3(signature = (t, *operands, out = None))]
    fn run_step<'py>(
        &self,
        py: Python<'py>,
        t: &Bound<'py, PyAny>,
        operands: &Bound<'py, PyTuple>,
        out: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let step = self.step_of(py, t)?;
        let arrays = operands.iter().map(|o| np::as_array(&o)).collect::<PyResult<_>>()?;
        Ok(step.compiled.run(py, arrays, out_array(out)?)?.into_any())
    }

    /// Runs every step in order on `buffers`: a dict `{Tensor: array}` or a list indexed by
    /// `Tensor.index`, each array of its tensor's `shape` (any strides), all of one element
    /// type. Leaves are read; each step's result is overwritten, or, without a buffer,
    /// allocated and stored into `buffers`. `after(tensor, array)`, when given, is called
    /// once each step has run (to apply what plans do not compute, such as an activation,
    /// in place). Returns `buffers`. Errors: a buffer of another shape or a missing leaf
    /// (`ElemsError`), a list of another length (`ArityError`), several element types
    /// (`DTypeError`).
    #[pyo3(signature = (buffers, *, after = None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        buffers: &Bound<'py, PyAny>,
        after: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let mut slots = self.read_buffers(py, buffers)?;
        let given: Vec<Bound<'py, PyUntypedArray>> = slots.iter().flatten().cloned().collect();
        let dt = common_type(py, &given, None)?;
        let graph = self.graph.bind(py);
        let mut made = Vec::new();
        for s in &self.compiled {
            let mut ops: SmallVec<[Bound<'py, PyUntypedArray>; 4]> = SmallVec::new();
            for a in &s.args {
                let buf = slots[a.index()].clone().ok_or_else(|| {
                    let msg = format!(
                        "no buffer for `{}`, which the step computing `{}` reads",
                        self.name(py, *a),
                        self.name(py, s.out)
                    );
                    errors::value_error(py, einrow::ErrorCode::Elems, msg)
                })?;
                ops.push(buf);
            }
            let out = match &slots[s.out.index()] {
                Some(o) => o.clone(),
                None => {
                    let shape: Vec<usize> =
                        self.dims[s.out.index()].iter().map(|&d| d as usize).collect();
                    let fresh = np::empty(py, dt, &shape)?;
                    slots[s.out.index()] = Some(fresh.clone());
                    made.push(s.out);
                    fresh
                }
            };
            let result = s.compiled.run(py, ops, Some(out))?;
            if let Some(f) = after.filter(|f| !f.is_none()) {
                f.call1((PyGraph::tensor(graph, s.out), result))?;
            }
        }
        let is_map = buffers.cast::<PyMapping>().is_ok();
        for t in made {
            let array = slots[t.index()].clone();
            if is_map {
                buffers.set_item(PyGraph::tensor(graph, t), array)?;
            } else {
                buffers.set_item(t.index(), array)?;
            }
        }
        Ok(buffers.clone())
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        self.origin.reduce(py, "compiled graph")
    }

    fn __repr__(&self) -> String {
        format!(
            "<einrow.CompiledGraph: {} tensors, {} steps>",
            self.dims.len(),
            self.compiled.len()
        )
    }
}
