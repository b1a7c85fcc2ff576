//! How the objects a graph derives (`Scheme`, `Instance`, `CompiledGraph`, `Training`)
//! pickle and deep-copy: as the call that made them (a method of the graph, the scheme or the
//! instance, with its arguments), made again on the unpickled source. The graph pickles as
//! the calls that built it, so the object is derived from the same graph again; a graph
//! changed after the object was made would derive another one, and is refused.

use pyo3::prelude::*;
use pyo3::types::{PyDict, PyTuple};

use crate::errors;
use crate::graph::PyGraph;

/// The call that made an object.
pub struct Origin {
    /// The object the method was called on (the graph, the scheme or the instance).
    source: Py<PyAny>,
    /// The method's name.
    method: &'static str,
    /// Its positional arguments.
    args: Py<PyTuple>,
    /// Its `compute` keyword, when given.
    compute: Option<Py<PyAny>>,
    /// The graph everything derives from.
    graph: Py<PyGraph>,
    /// The graph's recorded calls when the object was made.
    calls: usize,
}

impl Origin {
    /// `source.method(*args, compute=compute)`, of `graph` as it is now.
    pub fn new<'py>(
        source: &Bound<'py, PyAny>,
        method: &'static str,
        args: Bound<'py, PyTuple>,
        compute: Option<&Bound<'py, PyAny>>,
        graph: &Bound<'py, PyGraph>,
    ) -> PyResult<Origin> {
        Ok(Origin {
            source: source.clone().unbind(),
            method,
            args: args.unbind(),
            compute: compute.filter(|c| !c.is_none()).map(|c| c.clone().unbind()),
            graph: graph.clone().unbind(),
            calls: graph.borrow().log.calls.len(),
        })
    }

    /// `__reduce__`'s answer for an object of kind `what`: [`remake`] and the call's parts
    /// (all in the arguments, so that `copy.deepcopy` copies the source along).
    pub fn reduce<'py>(
        &self,
        py: Python<'py>,
        what: &str,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        if self.graph.bind(py).borrow().log.calls.len() != self.calls {
            let msg = format!(
                "the graph was changed after this {what} was made: pickle or copy the graph \
                 and make the {what} again from it"
            );
            return Err(errors::value_error(py, einrow::ErrorCode::Unsupported, msg));
        }
        let parts = (
            self.source.bind(py),
            self.method,
            self.args.bind(py),
            self.compute.as_ref().map(|c| c.bind(py)),
        );
        Ok((remake_fn(py)?, parts.into_pyobject(py)?))
    }
}

/// `einrow._einrow._remake`, looked up once.
pub fn remake_fn(py: Python<'_>) -> PyResult<Bound<'_, PyAny>> {
    py.import("einrow._einrow")?.getattr("_remake")
}

/// Makes an object again: `source.method(*args)`, with `compute=compute` when given (what
/// pickled schemes, instances, compiled graphs, training steps, tensors and handles are
/// made from).
#[pyfunction]
#[pyo3(signature = (source, method, args, compute = None))]
pub fn _remake<'py>(
    source: &Bound<'py, PyAny>,
    method: &str,
    args: &Bound<'py, PyTuple>,
    compute: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let kwargs = PyDict::new(source.py());
    if let Some(c) = compute {
        kwargs.set_item("compute", c)?;
    }
    source.getattr(method)?.call(args, Some(&kwargs))
}
