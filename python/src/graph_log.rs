//! A graph's history: every call that changed a `Graph` (declarations, steps, constraints,
//! solves, handles made), recorded as JSON when it succeeds. Replaying the calls on a fresh
//! graph rebuilds it: what pickling, `copy.deepcopy` and `Graph.to_json`/`from_json` do.
//! Tensors and handles in the arguments are recorded by position (`{"tensor": 3}`,
//! `{"handle": 0}`), `...` as `{"ellipsis": true}`, tuples and lists as JSON lists.

use einrow::infer::{Handle, OpKind};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use serde_json::{json, Map, Value};

use crate::errors;
use crate::graph::{PyGraph, PyTensor};
use crate::handles::{handle_object, PyDim, PyRowVar};

/// The calls a graph records (and the only ones a replay makes).
const RECORDED: &[&str] = &[
    "input",
    "parameter",
    "row_var",
    "set_row_size",
    "pointwise",
    "compose",
    "transpose",
    "permute",
    "einsum",
    "concat",
    "numpy",
    "batch_slice",
    "solve",
    "row_of",
    "capture",
    "set_dim",
    "set_equal",
];

/// The version of the JSON form.
const FORMAT: u64 = 1;

/// A graph's recorded calls and the handles its calls made, in order.
#[derive(Default)]
pub struct Log {
    /// Each call: `{"call": name, "args": [...], "kwargs": {...}}`.
    pub calls: Vec<Value>,
    /// The handles the calls made, each once, in the order made.
    pub handles: Vec<Handle>,
}

impl Log {
    /// Registers a handle a call made or returned.
    pub fn handle(&mut self, h: Handle) {
        if !self.handles.contains(&h) {
            self.handles.push(h);
        }
    }
}

impl PyGraph {
    /// A step added by `call`: the step, then the call recorded (`spec` first when given).
    pub(crate) fn recorded_step(
        slf: &Bound<'_, Self>,
        call: &'static str,
        op: OpKind,
        args: &[Bound<'_, PyAny>],
        spec: Option<&str>,
        name: Option<&str>,
    ) -> PyResult<PyTensor> {
        let t = Self::step(slf, op, args, spec, name)?;
        let mut values: Vec<Value> = spec.map(Value::from).into_iter().collect();
        for a in args {
            values.push(arg(slf, Some(a))?);
        }
        record(slf, call, values, vec![("name", name.map(Value::from).unwrap_or(Value::Null))]);
        Ok(t)
    }
}

/// An argument of a call as JSON.
pub fn arg(graph: &Bound<'_, PyGraph>, obj: Option<&Bound<'_, PyAny>>) -> PyResult<Value> {
    let Some(obj) = obj else { return Ok(Value::Null) };
    let py = graph.py();
    if obj.is_none() {
        return Ok(Value::Null);
    }
    if obj.is(py.Ellipsis()) {
        return Ok(json!({ "ellipsis": true }));
    }
    if let Ok(b) = obj.cast::<PyBool>() {
        return Ok(Value::Bool(b.is_true()));
    }
    if obj.cast::<PyInt>().is_ok() {
        if let Ok(n) = obj.extract::<i64>() {
            return Ok(json!(n));
        }
        return Ok(json!(obj.extract::<u64>()?));
    }
    if let Ok(f) = obj.cast::<PyFloat>() {
        return Ok(json!(f.value()));
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Value::String(s.to_cow()?.into_owned()));
    }
    if obj.cast::<PyTensor>().is_ok() {
        return Ok(json!({ "tensor": PyGraph::id_of(graph, obj)?.index() }));
    }
    if obj.cast::<PyRowVar>().is_ok() || obj.cast::<PyDim>().is_ok() {
        let h = crate::handles::handle_of(graph, obj)?;
        let at = graph.borrow().log.handles.iter().position(|&k| k == h);
        return Ok(json!({ "handle": at.unwrap_or(usize::MAX) }));
    }
    if obj.cast::<PyTuple>().is_ok() || obj.cast::<PyList>().is_ok() {
        let items = obj.try_iter()?.map(|x| arg(graph, Some(&x?))).collect::<PyResult<_>>()?;
        return Ok(Value::Array(items));
    }
    Err(PyTypeError::new_err(format!(
        "a graph records sizes, names, tensors, handles and tuples of them, not {}",
        crate::declare::type_name(obj)
    )))
}

/// Records a call that succeeded.
pub fn record(
    graph: &Bound<'_, PyGraph>,
    call: &'static str,
    args: Vec<Value>,
    kwargs: Vec<(&str, Value)>,
) {
    let kwargs: Map<String, Value> =
        kwargs.into_iter().filter(|(_, v)| !v.is_null()).map(|(k, v)| (k.to_string(), v)).collect();
    graph.borrow_mut().log.calls.push(json!({ "call": call, "args": args, "kwargs": kwargs }));
}

/// The graph's calls as JSON text.
pub fn to_json(graph: &PyGraph) -> String {
    json!({ "einrow_graph": FORMAT, "calls": graph.log.calls }).to_string()
}

/// Replays the calls of `text` (from [`to_json`]) on the empty `graph`.
pub fn replay(graph: &Bound<'_, PyGraph>, text: &str) -> PyResult<()> {
    let py = graph.py();
    let bad = |what: String| {
        let msg = format!("not a Graph's JSON: {what}");
        errors::value_error(py, einrow::ErrorCode::Syntax, msg)
    };
    let v: Value = serde_json::from_str(text).map_err(|e| bad(e.to_string()))?;
    if v.get("einrow_graph").and_then(Value::as_u64) != Some(FORMAT) {
        return Err(bad(format!("no \"einrow_graph\": {FORMAT}")));
    }
    let calls = v.get("calls").and_then(Value::as_array).ok_or_else(|| bad("no calls".into()))?;
    for (i, c) in calls.iter().enumerate() {
        let name = c.get("call").and_then(Value::as_str).unwrap_or_default();
        let Some(&name) = RECORDED.iter().find(|&&n| n == name) else {
            return Err(bad(format!("call {i} is not a recorded call: {name:?}")));
        };
        let args =
            c.get("args").and_then(Value::as_array).ok_or_else(|| bad(format!("call {i}")))?;
        let args: Vec<Bound<'_, PyAny>> =
            args.iter().map(|a| object(graph, a)).collect::<PyResult<_>>()?;
        let kwargs = PyDict::new(py);
        if let Some(map) = c.get("kwargs").and_then(Value::as_object) {
            for (k, a) in map {
                kwargs.set_item(k, object(graph, a)?)?;
            }
        }
        graph.getattr(name)?.call(PyTuple::new(py, args)?, Some(&kwargs))?;
    }
    Ok(())
}

/// An argument recorded as JSON, as the Python object the call took.
fn object<'py>(graph: &Bound<'py, PyGraph>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    let py = graph.py();
    Ok(match v {
        Value::Null => py.None().into_bound(py),
        Value::Bool(b) => PyBool::new(py, *b).to_owned().into_any(),
        Value::Number(n) => match (n.as_i64(), n.as_u64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(u)) => u.into_pyobject(py)?.into_any(),
            _ => n.as_f64().unwrap_or(f64::NAN).into_pyobject(py)?.into_any(),
        },
        Value::String(s) => PyString::new(py, s).into_any(),
        Value::Array(items) => {
            let objs: Vec<Bound<'py, PyAny>> =
                items.iter().map(|x| object(graph, x)).collect::<PyResult<_>>()?;
            PyTuple::new(py, objs)?.into_any()
        }
        Value::Object(m) => {
            if m.contains_key("ellipsis") {
                py.Ellipsis().into_bound(py)
            } else if let Some(i) = m.get("tensor").and_then(Value::as_u64) {
                Bound::new(py, tensor_at(graph, i as usize)?)?.into_any()
            } else if let Some(k) = m.get("handle").and_then(Value::as_u64) {
                handle_at(graph, k as usize)?
            } else {
                let msg = format!("not a Graph's JSON: an argument {v}");
                return Err(errors::value_error(py, einrow::ErrorCode::Syntax, msg));
            }
        }
    })
}

/// Tensor `i` of the graph.
pub fn tensor_at(graph: &Bound<'_, PyGraph>, i: usize) -> PyResult<PyTensor> {
    let id = graph.borrow().g.tensor_ids().nth(i);
    match id {
        Some(id) => Ok(PyGraph::tensor(graph, id)),
        None => {
            let msg = format!("the graph has no tensor {i}");
            Err(errors::value_error(graph.py(), einrow::ErrorCode::Name, msg))
        }
    }
}

/// The `k`-th handle the graph's calls made (a `RowVar` or a `Dim`).
pub fn handle_at<'py>(graph: &Bound<'py, PyGraph>, k: usize) -> PyResult<Bound<'py, PyAny>> {
    let h = graph.borrow().log.handles.get(k).copied();
    match h {
        Some(h) => handle_object(graph, h),
        None => {
            let msg = format!("the graph has no handle {k}");
            Err(errors::value_error(graph.py(), einrow::ErrorCode::Name, msg))
        }
    }
}
