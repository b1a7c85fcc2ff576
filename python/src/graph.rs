//! `einrow.Graph`: a framework's tensor program for shape inference. Declare inputs and
//! parameters (shapes as tuples, rows or shape strings), add every operation, solve, read each
//! tensor's shape back as a tuple, and take the indexing plan of any step.

use einrow::ids::TensorId;
use einrow::infer::{Graph, InferError, OpKind, TensorSizes};
use einrow::project::{derive_plan, Compute};
use einrow::spec::ast::RowKind;
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList, PyTuple, PyType};
use serde_json::{json, Value};

use crate::compiled_graph::{self, PyCompiledGraph};
use crate::declare::{declared, type_name, Declared};
use crate::errors;
use crate::graph_log::{self, arg, record, Log};
use crate::handles::{handle_object, handle_of, PyRowVar};
use crate::plan::{parse_compute, PyPlan};
use crate::scheme::PyScheme;
pub use crate::tensor::PyTensor;

/// A tensor program whose shapes einrow infers.
///
/// ```python
/// g = einrow.Graph()
/// x = g.input("x", batch=(32,), output=(784,))
/// w = g.parameter("w", input=(...,), output=(128,))
/// h = g.compose(w, x)
/// g.solve()
/// assert g.shape(w) == (128, 784)   # memory order: batch, output, input
/// ```
#[pyclass(module = "einrow", name = "Graph")]
pub struct PyGraph {
    pub(crate) g: Graph,
    /// The calls that built it (what pickling replays).
    pub(crate) log: Log,
}

impl PyGraph {
    pub(crate) fn infer_err(&self, py: Python<'_>, e: &InferError) -> PyErr {
        errors::infer_error(py, Some(&self.g), e, None)
    }

    /// The tensor id of `t`, which must belong to this graph.
    pub(crate) fn id_of(slf: &Bound<'_, Self>, t: &Bound<'_, PyAny>) -> PyResult<TensorId> {
        let t = t.cast::<PyTensor>().map_err(|_| {
            PyTypeError::new_err(format!(
                "expected an einrow.Tensor of this graph, not {}",
                type_name(t)
            ))
        })?;
        let t = t.get();
        if !t.graph().bind(slf.py()).is(slf) {
            let msg = "the tensor belongs to another graph".to_string();
            return Err(errors::value_error(slf.py(), einrow::ErrorCode::Name, msg));
        }
        Ok(t.id())
    }

    pub(crate) fn tensor(slf: &Bound<'_, Self>, id: TensorId) -> PyTensor {
        PyTensor::new(slf.clone().unbind(), id)
    }

    fn declare(
        slf: &Bound<'_, Self>,
        name: &str,
        param: bool,
        shape: Declared,
    ) -> PyResult<PyTensor> {
        let py = slf.py();
        let mut this = slf.borrow_mut();
        let result = match &shape {
            Declared::Text(text) => this.g.declare(name, Some(text), param),
            Declared::Typed(b) if param => this.g.parameter(name, b),
            Declared::Typed(b) => this.g.input(name, b),
        };
        let id = result.map_err(|e| this.infer_err(py, &e))?;
        drop(this);
        Ok(Self::tensor(slf, id))
    }

    /// Adds a step: `op` over `args`, with a spec for the ops that take one.
    pub(crate) fn step(
        slf: &Bound<'_, Self>,
        op: OpKind,
        args: &[Bound<'_, PyAny>],
        spec: Option<&str>,
        name: Option<&str>,
    ) -> PyResult<PyTensor> {
        let py = slf.py();
        let ids: Vec<TensorId> =
            args.iter().map(|a| Self::id_of(slf, a)).collect::<PyResult<_>>()?;
        let mut this = slf.borrow_mut();
        let result = match name {
            Some(n) => this.g.add_named_step(n, op, &ids, spec),
            None => this.g.add_step(op, &ids, spec),
        };
        let id = result.map_err(|e| this.infer_err(py, &e))?;
        drop(this);
        Ok(Self::tensor(slf, id))
    }
}

/// A tensor's sizes by row, as a dict of tuples.
pub fn sizes_dict<'py>(py: Python<'py>, sizes: &TensorSizes) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("batch", PyTuple::new(py, &sizes.batch)?)?;
    d.set_item("input", PyTuple::new(py, &sizes.input)?)?;
    d.set_item("output", PyTuple::new(py, &sizes.output)?)?;
    Ok(d)
}

/// The operation of an einsum spec over `n` operands.
fn einsum_op(n: usize) -> OpKind {
    match n {
        1 => OpKind::Permute,
        3 => OpKind::Einsum3,
        _ => OpKind::Einsum,
    }
}

/// A row's kind by name.
fn row_kind(py: Python<'_>, row: &str) -> PyResult<RowKind> {
    RowKind::ALL.into_iter().find(|k| k.name() == row).ok_or_else(|| {
        let msg = format!("unknown row {row:?}; the rows are \"batch\", \"input\", \"output\"");
        errors::value_error(py, einrow::ErrorCode::Value, msg)
    })
}

#[pymethods]
impl PyGraph {
    /// An empty graph.
    #[new]
    fn new() -> PyGraph {
        PyGraph { g: Graph::new(), log: Log::default() }
    }

    /// Declares an input (data given to the program). `shape` is a tuple of sizes (a plain
    /// array: its output row) or a shape string (`"32|784"`, `"...|784"`); or give the rows
    /// `batch`, `input`, `output` as tuples of sizes, `...` (axes inference sizes) and
    /// `RowVar`s. Nothing given: nothing is known.
    #[pyo3(signature = (name, shape = None, *, batch = None, input = None, output = None))]
    fn input(
        slf: &Bound<'_, Self>,
        name: &str,
        shape: Option<&Bound<'_, PyAny>>,
        batch: Option<&Bound<'_, PyAny>>,
        input: Option<&Bound<'_, PyAny>>,
        output: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let d = declared(slf, shape, [batch, input, output])?;
        let t = Self::declare(slf, name, false, d)?;
        let rows = [("batch", batch), ("input", input), ("output", output)];
        let kwargs = rows.map(|(k, v)| arg(slf, v).map(|v| (k, v))).into_iter();
        record(slf, "input", vec![name.into(), arg(slf, shape)?], kwargs.collect::<PyResult<_>>()?);
        Ok(t)
    }

    /// Declares a parameter: as `input`, but its unknown sizes are fixed only by the
    /// operations it takes part in, never guessed.
    #[pyo3(signature = (name, shape = None, *, batch = None, input = None, output = None))]
    fn parameter(
        slf: &Bound<'_, Self>,
        name: &str,
        shape: Option<&Bound<'_, PyAny>>,
        batch: Option<&Bound<'_, PyAny>>,
        input: Option<&Bound<'_, PyAny>>,
        output: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyTensor> {
        let d = declared(slf, shape, [batch, input, output])?;
        let t = Self::declare(slf, name, true, d)?;
        let rows = [("batch", batch), ("input", input), ("output", output)];
        let kwargs = rows.map(|(k, v)| arg(slf, v).map(|v| (k, v))).into_iter();
        record(
            slf,
            "parameter",
            vec![name.into(), arg(slf, shape)?],
            kwargs.collect::<PyResult<_>>()?,
        );
        Ok(t)
    }

    /// A row variable to share between declarations (`batch=(g.row_var("batch"), 8)`).
    fn row_var(slf: &Bound<'_, Self>, name: &str) -> PyRowVar {
        let handle = {
            let mut this = slf.borrow_mut();
            let h = this.g.row_var(name);
            this.log.handle(h);
            h
        };
        record(slf, "row_var", vec![name.into()], vec![]);
        PyRowVar::new(slf.clone().unbind(), handle, name.to_string())
    }

    /// Fixes the number of elements of a row variable (the product of its axes).
    fn set_row_size(slf: &Bound<'_, Self>, row: &Bound<'_, PyRowVar>, size: u64) -> PyResult<()> {
        let h = handle_of(slf, row.as_any())?;
        {
            let mut this = slf.borrow_mut();
            this.g.set_dim(h, size).map_err(|e| this.infer_err(slf.py(), &e))?;
        }
        record(slf, "set_row_size", vec![arg(slf, Some(row.as_any()))?, size.into()], vec![]);
        Ok(())
    }

    /// Elementwise over the operands, with broadcasting.
    #[pyo3(signature = (*args, name = None))]
    fn pointwise(
        slf: &Bound<'_, Self>,
        args: &Bound<'_, PyTuple>,
        name: Option<&str>,
    ) -> PyResult<PyTensor> {
        let args: Vec<_> = args.iter().collect();
        Self::recorded_step(slf, "pointwise", OpKind::Pointwise, &args, None, name)
    }

    /// Matrix-multiply style: `a`'s input row contracts with `b`'s output row.
    #[pyo3(signature = (a, b, *, name = None))]
    fn compose(
        slf: &Bound<'_, Self>,
        a: Bound<'_, PyAny>,
        b: Bound<'_, PyAny>,
        name: Option<&str>,
    ) -> PyResult<PyTensor> {
        Self::recorded_step(slf, "compose", OpKind::Compose, &[a, b], None, name)
    }

    /// Swaps the input and output rows.
    #[pyo3(signature = (a, *, name = None))]
    fn transpose(
        slf: &Bound<'_, Self>,
        a: Bound<'_, PyAny>,
        name: Option<&str>,
    ) -> PyResult<PyTensor> {
        Self::recorded_step(slf, "transpose", OpKind::Transpose, &[a], None, name)
    }

    /// A one-operand spec (`"b|i->o => o|b->i"`, `"ij=>i"`).
    #[pyo3(signature = (spec, a, *, name = None))]
    fn permute(
        slf: &Bound<'_, Self>,
        spec: &str,
        a: Bound<'_, PyAny>,
        name: Option<&str>,
    ) -> PyResult<PyTensor> {
        Self::recorded_step(slf, "permute", OpKind::Permute, &[a], Some(spec), name)
    }

    /// An einsum spec in OCANNL's syntax (`"ij;jk=>ik"`, `"...|i->o; ...|o => ...|i"`) over
    /// one, two or three operands.
    #[pyo3(signature = (spec, *args, name = None))]
    fn einsum(
        slf: &Bound<'_, Self>,
        spec: &str,
        args: &Bound<'_, PyTuple>,
        name: Option<&str>,
    ) -> PyResult<PyTensor> {
        let args: Vec<_> = args.iter().collect();
        let op = einsum_op(args.len());
        Self::recorded_step(slf, "einsum", op, &args, Some(spec), name)
    }

    /// A concatenation spec (`"a; b => a^b"`) over any number of operands.
    #[pyo3(signature = (spec, *args, name = None))]
    fn concat(
        slf: &Bound<'_, Self>,
        spec: &str,
        args: &Bound<'_, PyTuple>,
        name: Option<&str>,
    ) -> PyResult<PyTensor> {
        let args: Vec<_> = args.iter().collect();
        Self::recorded_step(slf, "concat", OpKind::Concat, &args, Some(spec), name)
    }

    /// numpy einsum subscripts (`"ij,jk->ik"`) over operands whose output rows are arrays.
    #[pyo3(signature = (subscripts, *args, name = None))]
    fn numpy(
        slf: &Bound<'_, Self>,
        subscripts: &str,
        args: &Bound<'_, PyTuple>,
        name: Option<&str>,
    ) -> PyResult<PyTensor> {
        let args: Vec<_> = args.iter().collect();
        Self::recorded_step(slf, "numpy", OpKind::Numpy, &args, Some(subscripts), name)
    }

    /// Drops the leftmost batch axis.
    #[pyo3(signature = (a, *, name = None))]
    fn batch_slice(
        slf: &Bound<'_, Self>,
        a: Bound<'_, PyAny>,
        name: Option<&str>,
    ) -> PyResult<PyTensor> {
        Self::recorded_step(slf, "batch_slice", OpKind::BatchSlice, &[a], None, name)
    }

    /// Solves every shape; an error names the tensors and places involved.
    fn solve(slf: &Bound<'_, Self>) -> PyResult<()> {
        {
            let mut this = slf.borrow_mut();
            this.g.solve().map_err(|e| this.infer_err(slf.py(), &e))?;
        }
        record(slf, "solve", vec![], vec![]);
        Ok(())
    }

    /// A tensor's solved sizes in memory order (batch, output, input), as a tuple.
    fn shape<'py>(slf: &Bound<'py, Self>, t: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyTuple>> {
        let id = Self::id_of(slf, t)?;
        let this = slf.borrow();
        let sizes = this.g.sizes(id).map_err(|e| this.infer_err(slf.py(), &e))?;
        PyTuple::new(slf.py(), sizes.memory_order())
    }

    /// A tensor's solved sizes by row: `{"batch": (...), "input": (...), "output": (...)}`.
    fn sizes<'py>(slf: &Bound<'py, Self>, t: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyDict>> {
        let py = slf.py();
        let id = Self::id_of(slf, t)?;
        let this = slf.borrow();
        let sizes = this.g.sizes(id).map_err(|e| this.infer_err(py, &e))?;
        sizes_dict(py, &sizes)
    }

    /// A tensor's shape as a shape string (`"32|784"`, `"2|4->3"`).
    fn shape_string(slf: &Bound<'_, Self>, t: &Bound<'_, PyAny>) -> PyResult<String> {
        let id = Self::id_of(slf, t)?;
        let this = slf.borrow();
        this.g.shape_string(id).map_err(|e| this.infer_err(slf.py(), &e))
    }

    /// Every tensor, in the order declared or computed.
    fn tensors<'py>(slf: &Bound<'py, Self>) -> PyResult<Bound<'py, PyList>> {
        let ids: Vec<TensorId> = slf.borrow().g.tensor_ids().collect();
        let ts: Vec<PyTensor> = ids.into_iter().map(|id| Self::tensor(slf, id)).collect();
        PyList::new(slf.py(), ts)
    }

    /// The warnings of the solution (legal, but often not what was meant), as text.
    fn warnings(&self) -> Vec<String> {
        self.g.warnings().iter().map(|w| w.to_string()).collect()
    }

    /// The indexing plan of the step that computed `t`: what it computes at each point is
    /// `accum` (`"+"`, `"*"`, `"max"`, `"min"`, `"="`) over `combine` of the operands (`"*"`,
    /// `"+"`, `"-"`, `"/"`, `"max"`, `"min"`; default: the operation's).
    #[pyo3(signature = (t, *, accum = "+", combine = None))]
    fn plan(
        slf: &Bound<'_, Self>,
        t: &Bound<'_, PyAny>,
        accum: &str,
        combine: Option<&str>,
    ) -> PyResult<PyPlan> {
        let py = slf.py();
        let id = Self::id_of(slf, t)?;
        let this = slf.borrow();
        let Some(step) = this.g.producer(id).map_err(|e| this.infer_err(py, &e))? else {
            let msg =
                format!("`{}` is a leaf: no step computed it", errors::tensor_name(&this.g, id));
            return Err(errors::value_error(py, einrow::ErrorCode::Value, msg));
        };
        let s = &this.g.steps()[step.index()];
        let default = Compute::default_for(s.op, s.args.len());
        let compute = parse_compute(py, accum, combine, default)?;
        let plan = derive_plan(&this.g, step, compute, 0)
            .map_err(|e| errors::project_error(py, Some(&this.g), &e))?;
        Ok(PyPlan::new(plan))
    }

    /// The row variable of a tensor's row as declared (`...` in `"...,8|32"`), or of a
    /// result's row before solving: `row` is `"batch"`, `"input"` or `"output"`. A
    /// `LabelError` when that row has none.
    fn row_of(slf: &Bound<'_, Self>, t: &Bound<'_, PyAny>, row: &str) -> PyResult<PyRowVar> {
        let py = slf.py();
        let id = Self::id_of(slf, t)?;
        let kind = row_kind(py, row)?;
        let (h, name) = {
            let mut this = slf.borrow_mut();
            let h = this.g.row_of(id, kind).map_err(|e| this.infer_err(py, &e))?;
            let name = this.g.handle_name(h).map_err(|e| this.infer_err(py, &e))?.to_string();
            this.log.handle(h);
            (h, name)
        };
        record(slf, "row_of", vec![arg(slf, Some(t))?, row.into()], vec![]);
        Ok(PyRowVar::new(slf.clone().unbind(), h, name))
    }

    /// An einsum spec step (as `einsum`) that also returns a handle for each of `names`: a
    /// `Dim` for a label, a `RowVar` for a row variable (`...` is named after its row:
    /// `"batch"`, `"input"`, `"output"`). Returns `(tensor, [handles])`. A name the spec
    /// does not have is a `LabelError` (nothing is added).
    #[pyo3(signature = (spec, *args, names, name = None))]
    fn capture<'py>(
        slf: &Bound<'py, Self>,
        spec: &str,
        args: &Bound<'py, PyTuple>,
        names: Vec<String>,
        name: Option<&str>,
    ) -> PyResult<(PyTensor, Vec<Bound<'py, PyAny>>)> {
        let py = slf.py();
        let ids: Vec<TensorId> =
            args.iter().map(|a| Self::id_of(slf, &a)).collect::<PyResult<_>>()?;
        let op = einsum_op(ids.len());
        let names: Vec<&str> = names.iter().map(String::as_str).collect();
        let captured = {
            let mut this = slf.borrow_mut();
            let c = this
                .g
                .add_step_capturing(op, &ids, spec, &names)
                .map_err(|e| this.infer_err(py, &e))?;
            if let Some(n) = name {
                this.g.set_name(c.tensor, n).map_err(|e| this.infer_err(py, &e))?;
            }
            for &h in &c.handles {
                this.log.handle(h);
            }
            c
        };
        let mut values = vec![Value::from(spec)];
        for a in args.iter() {
            values.push(arg(slf, Some(&a))?);
        }
        let kwargs = vec![("names", json!(names)), ("name", json!(name))];
        record(slf, "capture", values, kwargs);
        let handles =
            captured.handles.iter().map(|&h| handle_object(slf, h)).collect::<PyResult<_>>()?;
        Ok((Self::tensor(slf, captured.tensor), handles))
    }

    /// Fixes a handle's size: a label's size, or a row's number of elements (the product
    /// of its axes). A contradiction is an error naming the setting and the steps.
    fn set_dim(slf: &Bound<'_, Self>, handle: &Bound<'_, PyAny>, size: i128) -> PyResult<()> {
        let py = slf.py();
        let h = handle_of(slf, handle)?;
        let size = u64::try_from(size).map_err(|_| {
            let msg = format!("set_dim to {size}: sizes are non-negative");
            errors::value_error(py, einrow::ErrorCode::Value, msg)
        })?;
        {
            let mut this = slf.borrow_mut();
            this.g.set_dim(h, size).map_err(|e| this.infer_err(py, &e))?;
        }
        record(slf, "set_dim", vec![arg(slf, Some(handle))?, size.into()], vec![]);
        Ok(())
    }

    /// Requires two handles to be equal: two labels the same size, two row variables the
    /// same axes, a label and a row (one side known) the label's size the row's elements.
    fn set_equal(
        slf: &Bound<'_, Self>,
        a: &Bound<'_, PyAny>,
        b: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let py = slf.py();
        let (ha, hb) = (handle_of(slf, a)?, handle_of(slf, b)?);
        {
            let mut this = slf.borrow_mut();
            this.g.set_equal(ha, hb).map_err(|e| this.infer_err(py, &e))?;
        }
        record(slf, "set_equal", vec![arg(slf, Some(a))?, arg(slf, Some(b))?], vec![]);
        Ok(())
    }

    /// Solves the graph once as a `Scheme` with the row variables `vars` kept symbolic
    /// (typically the batch row the inputs share); the graph itself is left unsolved.
    /// Instantiate the scheme for concrete sizes without solving again.
    #[pyo3(signature = (*vars))]
    fn solve_scheme(slf: &Bound<'_, Self>, vars: &Bound<'_, PyTuple>) -> PyResult<PyScheme> {
        PyScheme::solve(slf, vars)
    }

    /// Derives and compiles the plan of every step of the solved graph into a
    /// `CompiledGraph`. `compute` maps a result tensor to what its step computes, an
    /// `(accum, combine)` pair (`("+", "*")`, `("max", None)`; see `plan`); other steps
    /// compute their operation's default.
    #[pyo3(signature = (*, compute = None))]
    fn compile(
        slf: &Bound<'_, Self>,
        compute: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<PyCompiledGraph> {
        compiled_graph::compile_graph(slf, compute)
    }

    /// Compiles the training step of `loss` with respect to `params` (leaves): forward, then
    /// backward into the parameters' gradients, intermediates placed by liveness. `compute`
    /// as for `compile`. Raises `UnsupportedError` when a step on the way from a parameter
    /// to the loss has no gradient (a maximum, a product accumulation).
    #[pyo3(signature = (loss, params, *, compute = None))]
    fn training(
        slf: &Bound<'_, Self>,
        loss: &Bound<'_, PyAny>,
        params: &Bound<'_, PyAny>,
        compute: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<crate::training::PyTraining> {
        crate::training::compile_training(slf, loss, params, compute)
    }

    /// The graph as JSON: the calls that built it, in order (`from_json` replays them).
    fn to_json(&self) -> String {
        graph_log::to_json(self)
    }

    /// A graph rebuilt from `to_json`'s text by replaying its calls.
    #[classmethod]
    fn from_json<'py>(cls: &Bound<'py, PyType>, text: &str) -> PyResult<Bound<'py, PyGraph>> {
        let graph = Bound::new(cls.py(), PyGraph::new())?;
        graph_log::replay(&graph, text)?;
        Ok(graph)
    }

    fn __reduce__<'py>(slf: &Bound<'py, Self>) -> PyResult<(Bound<'py, PyAny>, (String,))> {
        let from_json = slf.get_type().getattr("from_json")?;
        Ok((from_json, (graph_log::to_json(&slf.borrow()),)))
    }

    /// Tensor `i` (what a pickled tensor is made from again).
    fn _tensor_at(slf: &Bound<'_, Self>, i: usize) -> PyResult<PyTensor> {
        graph_log::tensor_at(slf, i)
    }

    /// The `k`-th handle the graph's calls made (what a pickled handle is made from again).
    fn _handle_at<'py>(slf: &Bound<'py, Self>, k: usize) -> PyResult<Bound<'py, PyAny>> {
        graph_log::handle_at(slf, k)
    }

    fn __repr__(&self) -> String {
        format!("<einrow.Graph: {} tensors, {} steps>", self.g.tensor_count(), self.g.steps().len())
    }
}
