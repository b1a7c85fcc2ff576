//! Dimension handles: `einrow.RowVar` (a row variable: any number of axes several tensors
//! share, such as the batch) and `einrow.Dim` (a label captured from a spec step: one axis).
//! Both belong to one graph; `Graph.set_dim`, `Graph.set_equal` constrain them, their
//! `size` and `dims` read them once solved, and an `Instance` reads them for its sizes.

use einrow::infer::{Graph, Handle};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::declare::type_name;
use crate::errors;
use crate::graph::PyGraph;

/// A row variable of a graph: axes several tensors share (a batch row). Made by
/// `Graph.row_var`, `Graph.row_of`, or captured from a spec (`Graph.capture`).
#[pyclass(module = "einrow", name = "RowVar", frozen)]
pub struct PyRowVar {
    graph: Py<PyGraph>,
    handle: Handle,
    name: String,
}

/// A label captured from a spec step (`Graph.capture`): one axis whose size can be set,
/// made equal to another, and read once solved.
#[pyclass(module = "einrow", name = "Dim", frozen)]
pub struct PyDim {
    graph: Py<PyGraph>,
    handle: Handle,
    name: String,
}

impl PyRowVar {
    /// A row variable of `graph`.
    pub fn new(graph: Py<PyGraph>, handle: Handle, name: String) -> PyRowVar {
        PyRowVar { graph, handle, name }
    }

    /// The crate's handle.
    pub fn handle(&self) -> Handle {
        self.handle
    }

    /// The name given.
    pub fn name_str(&self) -> &str {
        &self.name
    }
}

impl PyDim {
    /// A captured label of `graph`.
    pub fn new(graph: Py<PyGraph>, handle: Handle, name: String) -> PyDim {
        PyDim { graph, handle, name }
    }
}

/// The handle of `obj` (a `RowVar` or a `Dim`), which must belong to `graph`.
pub fn handle_of(graph: &Bound<'_, PyGraph>, obj: &Bound<'_, PyAny>) -> PyResult<Handle> {
    let (owner, handle) = if let Ok(v) = obj.cast::<PyRowVar>() {
        (v.get().graph.clone_ref(obj.py()), v.get().handle)
    } else if let Ok(d) = obj.cast::<PyDim>() {
        (d.get().graph.clone_ref(obj.py()), d.get().handle)
    } else {
        return Err(PyTypeError::new_err(format!(
            "expected an einrow.RowVar or einrow.Dim, not {}",
            type_name(obj)
        )));
    };
    if !owner.bind(obj.py()).is(graph) {
        let msg = "the handle belongs to another graph".to_string();
        return Err(errors::value_error(obj.py(), einrow::ErrorCode::Label, msg));
    }
    Ok(handle)
}

/// The size of a handle (a label's size, the product of a row's axes) in `g`.
fn size_in(py: Python<'_>, graph: &Py<PyGraph>, h: Handle) -> PyResult<u64> {
    let g = graph.borrow(py);
    g.g.handle_size(h).map_err(|e| errors::infer_error(py, Some(&g.g), &e, None))
}

/// The axes of a handle in `g`.
fn dims_in<'py>(py: Python<'py>, graph: &Py<PyGraph>, h: Handle) -> PyResult<Bound<'py, PyTuple>> {
    let g = graph.borrow(py);
    let dims = g.g.handle_dims(h).map_err(|e| errors::infer_error(py, Some(&g.g), &e, None))?;
    PyTuple::new(py, dims)
}

/// The Python object of a handle of `graph`: a `RowVar` or a `Dim` by its kind.
pub fn handle_object<'py>(graph: &Bound<'py, PyGraph>, h: Handle) -> PyResult<Bound<'py, PyAny>> {
    let py = graph.py();
    let (kind, name) = {
        let g: &Graph = &graph.borrow().g;
        let err = |e| errors::infer_error(py, Some(g), &e, None);
        (g.handle_kind(h).map_err(err)?, g.handle_name(h).map_err(err)?.to_string())
    };
    let owner = graph.clone().unbind();
    Ok(match kind {
        einrow::infer::HandleKind::Dim => Bound::new(py, PyDim::new(owner, h, name))?.into_any(),
        _ => Bound::new(py, PyRowVar::new(owner, h, name))?.into_any(),
    })
}

/// How a handle of `graph` pickles: the graph's `_handle_at` and its position among the
/// handles the graph's calls made.
fn reduce_handle<'py>(
    py: Python<'py>,
    graph: &Py<PyGraph>,
    h: Handle,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
    let g = graph.bind(py);
    let at = g.borrow().log.handles.iter().position(|&k| k == h);
    let Some(k) = at else {
        let msg = "a handle its graph's calls did not make cannot be pickled".to_string();
        return Err(errors::value_error(py, einrow::ErrorCode::Unsupported, msg));
    };
    let parts = (g, "_handle_at", (k,));
    Ok((crate::origin::remake_fn(py)?, parts.into_pyobject(py)?))
}

#[pymethods]
impl PyRowVar {
    /// The name given (or `tensor.row` for `Graph.row_of`).
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The solved sizes of the row's axes (after `Graph.solve`).
    #[getter]
    fn dims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        dims_in(py, &self.graph, self.handle)
    }

    /// The solved number of elements of the row (the product of its axes; 1 for no axis).
    #[getter]
    fn size(&self, py: Python<'_>) -> PyResult<u64> {
        size_in(py, &self.graph, self.handle)
    }

    fn __repr__(&self) -> String {
        format!("<einrow.RowVar {:?}>", self.name)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PyRowVar>() {
            Ok(o) => {
                o.get().handle == self.handle && o.get().graph.bind(py).is(self.graph.bind(py))
            }
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.graph, self.handle)
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        reduce_handle(py, &self.graph, self.handle)
    }
}

#[pymethods]
impl PyDim {
    /// The label's name in its spec.
    #[getter]
    fn name(&self) -> &str {
        &self.name
    }

    /// The solved size of the label (after `Graph.solve`).
    #[getter]
    fn size(&self, py: Python<'_>) -> PyResult<u64> {
        size_in(py, &self.graph, self.handle)
    }

    /// The solved size as a one-element tuple (as `RowVar.dims`).
    #[getter]
    fn dims<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        dims_in(py, &self.graph, self.handle)
    }

    fn __repr__(&self) -> String {
        format!("<einrow.Dim {:?}>", self.name)
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PyDim>() {
            Ok(o) => {
                o.get().handle == self.handle && o.get().graph.bind(py).is(self.graph.bind(py))
            }
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        hash_of(&self.graph, self.handle)
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        reduce_handle(py, &self.graph, self.handle)
    }
}

fn hash_of(graph: &Py<PyGraph>, h: Handle) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut s = std::collections::hash_map::DefaultHasher::new();
    (graph.as_ptr() as usize, h).hash(&mut s);
    s.finish()
}
