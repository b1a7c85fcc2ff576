//! `einrow.Training` (`Graph.training(loss, params)`): the crate's compiled training step
//! (forward, then backward into the parameters' gradients, intermediates placed by liveness)
//! run on numpy arrays, with Python hooks between the steps; and `einrow.einsum_vjp`.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use einrow::ids::{StepId, TensorId};
use einrow::project::{
    Activation, Activations, Compute, Hooks, ProjectError, Storage, Training, Workspace,
};
use numpy::{
    Element, PyArray1, PyArrayDescrMethods, PyArrayDyn, PyArrayMethods, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyMapping, PyTuple};

use crate::compiled_graph::computes;
use crate::graph::{PyGraph, PyTensor};
use crate::origin::Origin;
use crate::{errors, np};

/// The forward and backward passes of a solved graph, compiled once: `run` computes the
/// loss and its gradient with respect to each parameter.
#[pyclass(module = "einrow", name = "Training", frozen)]
pub struct PyTraining {
    graph: Py<PyGraph>,
    train: Training,
    /// The call that made it.
    origin: Origin,
    /// The arrays handed to Python hooks, kept from one run to the next (fresh arrays of a
    /// large step's size cost their page faults at every call).
    hook_arrays: Arc<HookArrays>,
    /// A workspace per element type, kept between runs (a fresh arena costs its allocation
    /// and page faults at every call); a run takes it, and puts it back when done.
    workspaces: Mutex<HashMap<TypeId, Box<dyn Any + Send>>>,
}

/// Hook arrays by step and role (0: a forward result, 1: a result read backward, 2: a
/// gradient).
type HookArrays = Mutex<HashMap<(usize, u8), Py<PyAny>>>;

/// `Graph.training`: compiles the training step of `loss` with respect to `params`.
pub fn compile_training(
    graph: &Bound<'_, PyGraph>,
    loss: &Bound<'_, PyAny>,
    params: &Bound<'_, PyAny>,
    compute: Option<&Bound<'_, PyAny>>,
) -> PyResult<PyTraining> {
    let py = graph.py();
    let args = PyTuple::new(py, [loss, params])?;
    let origin = Origin::new(graph.as_any(), "training", args, compute, graph)?;
    let loss = PyGraph::id_of(graph, loss)?;
    let params: Vec<TensorId> =
        params.try_iter()?.map(|p| PyGraph::id_of(graph, &p?)).collect::<PyResult<_>>()?;
    let (steps, n) = {
        let this = graph.borrow();
        (this.g.steps().to_vec(), this.g.tensor_count())
    };
    let computes: Vec<Compute> = computes(graph, &steps, n, compute)?;
    let this = graph.borrow();
    let train = Training::compile(&this.g, loss, &params, &|s| computes[s.index()])
        .map_err(|e| errors::project_error(py, Some(&this.g), &e))?;
    drop(this);
    let (hook_arrays, workspaces) = (Arc::default(), Mutex::default());
    Ok(PyTraining { graph: graph.clone().unbind(), train, origin, hook_arrays, workspaces })
}

#[pymethods]
impl PyTraining {
    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        self.origin.reduce(py, "training step")
    }

    /// The parameters, in the order `run` returns their gradients.
    #[getter]
    fn params<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.tensors(py, self.train.params())
    }

    /// The leaves: `run` needs an array for each.
    #[getter]
    fn leaves<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        self.tensors(py, self.train.leaves())
    }

    /// The elements of the arena of intermediate values and gradients (placed by liveness).
    #[getter]
    fn arena_len(&self) -> usize {
        self.train.arena_len()
    }

    /// The elements one buffer per intermediate value and gradient would take.
    #[getter]
    fn unplanned_len(&self) -> usize {
        self.train.unplanned_len()
    }

    /// Runs forward and backward on `values` (`{Tensor: array}`, one per leaf; float32 or
    /// float64, all of one type): returns `(loss, grads)`, the loss's value and one gradient
    /// array per parameter. `forward(t, result)` is called after the step computing `t` ran
    /// (change `result` in place: an activation); `backward(t, result, grad)` before its
    /// gradient plans run (change `grad` in place: the activation's derivative). The arrays
    /// given to the hooks have the tensor's shape (memory order, as `Graph.shape`) and are
    /// copies, written back after the call; they are reused by later runs (copy what a hook
    /// keeps). A hook may instead be a mapping from tensors to
    /// such functions (`forward={a: relu}`): only the steps computing those tensors call
    /// Python and copy their buffers. `activations` (`{a: "relu"}`; `relu`, `elu`,
    /// `sigmoid`, `tanh`, `softplus`) applies elementwise activations and their derivatives
    /// natively, without calling Python: a function hook is not called for a step with an
    /// activation, and a mapping may not name one.
    #[pyo3(signature = (values, *, forward = None, backward = None, activations = None))]
    fn run<'py>(
        &self,
        py: Python<'py>,
        values: &Bound<'py, PyMapping>,
        forward: Option<Bound<'py, PyAny>>,
        backward: Option<Bound<'py, PyAny>>,
        activations: Option<Bound<'py, PyMapping>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let graph = self.graph.bind(py);
        let mut arrays: Vec<Bound<'py, PyUntypedArray>> = Vec::new();
        for &t in self.train.leaves() {
            let tensor = Bound::new(py, PyGraph::tensor(graph, t))?;
            let a = values.get_item(tensor).map_err(|_| {
                let name = errors::tensor_name(&graph.borrow().g, t);
                PyTypeError::new_err(format!("`values` has no array for the leaf `{name}`"))
            })?;
            arrays.push(np::as_array(&a)?);
        }
        // Each step's result and shape, read only for Python hooks.
        let hooked = forward.is_some() || backward.is_some();
        let steps = if hooked { step_results(graph) } else { Vec::new() };
        let hooks = PyHooks {
            graph: graph.clone(),
            forward: Hook::resolve(forward, graph, &steps)?,
            backward: Hook::resolve(backward, graph, &steps)?,
            native: self.activations(graph, activations)?,
            steps,
            arrays: self.hook_arrays.clone(),
            error: None,
        };
        hooks.check_overlap()?;
        if let Some(a) = arrays.iter().find(|a| a.dtype().kind() == b'c') {
            let msg = format!("a training step runs on real floats, not {}", a.dtype());
            return Err(errors::dtype_error(py, msg));
        }
        let wide = arrays.iter().any(|a| a.dtype().itemsize() == 8) || arrays.is_empty();
        match wide {
            true => self.run_in::<f64>(py, &arrays, hooks),
            false => self.run_in::<f32>(py, &arrays, hooks),
        }
    }
}

impl PyTraining {
    /// The native activations of a run (`{tensor: name}`).
    fn activations(
        &self,
        graph: &Bound<'_, PyGraph>,
        given: Option<Bound<'_, PyMapping>>,
    ) -> PyResult<Activations> {
        let mut native = Activations::new(&self.train);
        let Some(given) = given else { return Ok(native) };
        for item in given.items()?.iter() {
            let (key, name) = item.extract::<(Bound<'_, PyAny>, String)>().map_err(|_| {
                PyTypeError::new_err("`activations` maps tensors to activation names")
            })?;
            let f = Activation::from_name(&name).ok_or_else(|| {
                let known: Vec<&str> = Activation::ALL.iter().map(|a| a.name()).collect();
                let known = known.join(", ");
                PyValueError::new_err(format!("no activation `{name}`: one of {known}"))
            })?;
            let t = PyGraph::id_of(graph, &key)?;
            let this = graph.borrow();
            native
                .set(&this.g, t, f)
                .map_err(|e| errors::project_error(graph.py(), Some(&this.g), &e))?;
        }
        Ok(native)
    }

    /// The kept workspace of element type `T`, or a new one (when none is kept, or another
    /// run holds it).
    fn take_workspace<T: Storage + Send>(&self) -> Result<Workspace<T>, ProjectError> {
        let kept =
            self.workspaces.lock().unwrap_or_else(|e| e.into_inner()).remove(&TypeId::of::<T>());
        match kept.and_then(|b| b.downcast::<Workspace<T>>().ok()) {
            Some(ws) => Ok(*ws),
            None => self.train.workspace(),
        }
    }

    fn put_workspace<T: Storage + Send>(&self, ws: Workspace<T>) {
        let mut kept = self.workspaces.lock().unwrap_or_else(|e| e.into_inner());
        kept.insert(TypeId::of::<T>(), Box::new(ws));
    }

    fn tensors<'py>(&self, py: Python<'py>, ids: &[TensorId]) -> PyResult<Bound<'py, PyList>> {
        let graph = self.graph.bind(py);
        PyList::new(py, ids.iter().map(|&t| PyGraph::tensor(graph, t)))
    }

    fn run_in<'py, T: Storage + Element>(
        &self,
        py: Python<'py>,
        arrays: &[Bound<'py, PyUntypedArray>],
        mut hooks: PyHooks<'py>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let fail = |e: ProjectError| errors::project_error(py, None, &e);
        let dtype = numpy::dtype::<T>(py);
        let mut typed = Vec::with_capacity(arrays.len());
        for a in arrays {
            let c = np::REQUIRE.get(py)?.call1((a, &dtype, "CA"))?;
            typed.push(c.cast_into::<PyArrayDyn<T>>()?);
        }
        let reads: Vec<_> = typed.iter().map(|a| a.readonly()).collect();
        let leaves: Vec<&[T]> = reads
            .iter()
            .map(|r| r.as_slice())
            .collect::<Result<_, _>>()
            .map_err(|e| PyTypeError::new_err(e.to_string()))?;
        let mut grads: Vec<Vec<T>> = self
            .train
            .params()
            .iter()
            .map(|&p| vec![T::default(); len_of(arrays, self.train.leaves(), p)])
            .collect();
        let mut outs: Vec<&mut [T]> = grads.iter_mut().map(|g| g.as_mut_slice()).collect();
        let mut ws: Workspace<T> = self.take_workspace().map_err(fail)?;
        self.train
            .run(&mut ws, &leaves, &mut outs, &mut hooks)
            .map_err(|e| hooks.error.take().unwrap_or_else(|| fail(e)))?;
        let loss = ws.value(&self.train, self.train.loss()).map_err(fail)?;
        let loss = PyArray1::from_slice(py, loss);
        self.put_workspace(ws);
        let shapes: Vec<Vec<usize>> =
            self.train.params().iter().map(|&p| shape_of(arrays, self.train.leaves(), p)).collect();
        let mut out = Vec::with_capacity(grads.len());
        for (g, shape) in grads.into_iter().zip(shapes) {
            out.push(PyArray1::from_vec(py, g).reshape(shape)?.into_any());
        }
        PyTuple::new(py, [loss.into_any(), PyList::new(py, out)?.into_any()])
    }
}

/// The shape of the leaf `t`'s array.
fn shape_of(arrays: &[Bound<'_, PyUntypedArray>], leaves: &[TensorId], t: TensorId) -> Vec<usize> {
    leaves.iter().position(|&l| l == t).map_or_else(Vec::new, |k| arrays[k].shape().to_vec())
}

fn len_of(arrays: &[Bound<'_, PyUntypedArray>], leaves: &[TensorId], t: TensorId) -> usize {
    shape_of(arrays, leaves, t).iter().product()
}

/// Each step's result tensor and its shape (memory order), by step index.
fn step_results(graph: &Bound<'_, PyGraph>) -> Vec<(TensorId, Vec<usize>)> {
    let this = graph.borrow();
    let shape = |t: TensorId| {
        let sizes = this.g.sizes(t).map(|s| s.memory_order()).unwrap_or_default();
        sizes.iter().map(|&d| d as usize).collect()
    };
    this.g.steps().iter().map(|s| (s.out, shape(s.out))).collect()
}

/// Python's hooks, given the result tensor and numpy copies of the buffers.
struct PyHooks<'py> {
    graph: Bound<'py, PyGraph>,
    steps: Vec<(TensorId, Vec<usize>)>,
    forward: Hook<'py>,
    backward: Hook<'py>,
    /// Activations applied natively (no step has both one and a Python hook).
    native: Activations,
    /// The training's hook arrays.
    arrays: Arc<HookArrays>,
    /// A Python error raised by a hook, kept to be raised again as it was.
    error: Option<PyErr>,
}

impl<'py> PyHooks<'py> {
    /// A mapping hook for a step with a native activation is an error (which would apply
    /// first is a guess).
    fn check_overlap(&self) -> PyResult<()> {
        let this = self.graph.borrow();
        for (k, (t, _)) in self.steps.iter().enumerate() {
            let native = this.g.producer(*t).ok().flatten().and_then(|s| self.native.get(s));
            let mapped = |h: &Hook<'_>| matches!(h, Hook::Steps(v) if v[k].is_some());
            if native.is_some() && (mapped(&self.forward) || mapped(&self.backward)) {
                let name = errors::tensor_name(&this.g, *t);
                let msg = format!("`{name}` has both an activation and a hook: give one");
                return Err(PyValueError::new_err(msg));
            }
        }
        Ok(())
    }

    fn call<T: Element + Copy>(
        &mut self,
        f: &Bound<'py, PyAny>,
        step: StepId,
        read: &[T],
        write: &mut [T],
        both: bool,
    ) -> Result<(), ProjectError> {
        let py = f.py();
        let (t, shape) = self.steps[step.index()].clone();
        let tensor = Bound::new(py, PyGraph::tensor(&self.graph, t)).map_err(|e| self.keep(e))?;
        let (at, arrays) = (step.index(), self.arrays.clone());
        let mut run = || -> PyResult<()> {
            let b = hook_array(py, &arrays, (at, if both { 2 } else { 0 }), write, &shape)?;
            match both {
                true => f.call1((&tensor, hook_array(py, &arrays, (at, 1), read, &shape)?, &b))?,
                false => f.call1((&tensor, &b))?,
            };
            write.copy_from_slice(
                b.readonly().as_slice().map_err(|e| PyTypeError::new_err(e.to_string()))?,
            );
            Ok(())
        };
        run().map_err(|e| self.keep(e))
    }

    /// Keeps a hook's Python error to raise it again as it was.
    fn keep(&mut self, e: PyErr) -> ProjectError {
        self.error = Some(e);
        ProjectError::Data("a hook raised".into())
    }
}

/// The kept array of `key` (a new one when there is none of this type, shape and layout, or
/// it cannot be written), holding a copy of `data`.
fn hook_array<'py, T: Element + Copy>(
    py: Python<'py>,
    arrays: &HookArrays,
    key: (usize, u8),
    data: &[T],
    shape: &[usize],
) -> PyResult<Bound<'py, PyArrayDyn<T>>> {
    let mut kept = arrays.lock().unwrap_or_else(|e| e.into_inner());
    let reuse = kept.get(&key).and_then(|a| a.bind(py).cast::<PyArrayDyn<T>>().ok().cloned());
    let reuse = reuse.filter(|a| a.shape() == shape && a.is_c_contiguous());
    if let Some(a) = reuse {
        if let Ok(mut w) = a.try_readwrite() {
            if let Ok(slice) = w.as_slice_mut() {
                slice.copy_from_slice(data);
                drop(w);
                return Ok(a);
            }
        }
    }
    let a = PyArray1::from_slice(py, data).reshape(shape.to_vec())?;
    kept.insert(key, a.clone().into_any().unbind());
    Ok(a)
}

/// A hook argument: one function for every step, or the functions of some steps (a mapping
/// from tensors to functions, read once per run: a step without one calls no Python and
/// copies nothing).
enum Hook<'py> {
    None,
    Every(Bound<'py, PyAny>),
    Steps(Vec<Option<Bound<'py, PyAny>>>),
}

impl<'py> Hook<'py> {
    fn resolve(
        hook: Option<Bound<'py, PyAny>>,
        graph: &Bound<'py, PyGraph>,
        steps: &[(TensorId, Vec<usize>)],
    ) -> PyResult<Hook<'py>> {
        let Some(hook) = hook else { return Ok(Hook::None) };
        if hook.is_callable() {
            return Ok(Hook::Every(hook));
        }
        let Ok(map) = hook.cast::<PyMapping>() else {
            let kind = hook.get_type().name()?;
            let msg =
                format!("a hook is a function or a mapping of tensors to functions, not {kind}");
            return Err(PyTypeError::new_err(msg));
        };
        let mut by_step = vec![None; steps.len()];
        for item in map.items()?.iter() {
            let (key, f) = item.extract::<(Bound<'py, PyAny>, Bound<'py, PyAny>)>()?;
            let tensor = key.cast::<PyTensor>().map_err(|_| {
                PyTypeError::new_err("a hook mapping's keys are tensors of the graph")
            })?;
            let tensor = tensor.borrow();
            if !tensor.graph().bind(graph.py()).is(graph) {
                return Err(PyValueError::new_err(
                    "a hook mapping's key is a tensor of another graph",
                ));
            }
            for (slot, (t, _)) in by_step.iter_mut().zip(steps) {
                if *t == tensor.id() {
                    *slot = Some(f.clone());
                }
            }
        }
        Ok(Hook::Steps(by_step))
    }

    /// The function for `step`, if any.
    fn at(&self, step: StepId) -> Option<Bound<'py, PyAny>> {
        match self {
            Hook::None => None,
            Hook::Every(f) => Some(f.clone()),
            Hook::Steps(v) => v.get(step.index()).cloned().flatten(),
        }
    }
}

impl<'py, T: Storage + Element> Hooks<T> for PyHooks<'py> {
    fn forward(&mut self, step: StepId, result: &mut [T]) -> Result<(), ProjectError> {
        if self.native.get(step).is_some() {
            return self.native.forward(step, result);
        }
        let Some(f) = self.forward.at(step) else { return Ok(()) };
        self.call(&f, step, &[], result, false)
    }

    fn backward(&mut self, step: StepId, result: &[T], grad: &mut [T]) -> Result<(), ProjectError> {
        if self.native.get(step).is_some() {
            return self.native.backward(step, result, grad);
        }
        let Some(f) = self.backward.at(step) else { return Ok(()) };
        self.call(&f, step, result, grad, true)
    }
}
