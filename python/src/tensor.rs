//! `einrow.Tensor`: a tensor of a `Graph`, by its graph and id. It pickles as its graph and
//! its position (the graph rebuilt by replaying its calls).

use einrow::ids::TensorId;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors;
use crate::graph::PyGraph;

/// A tensor of a [`PyGraph`].
#[pyclass(module = "einrow", name = "Tensor", frozen)]
pub struct PyTensor {
    graph: Py<PyGraph>,
    id: TensorId,
}

impl PyTensor {
    /// Tensor `id` of `graph`.
    pub fn new(graph: Py<PyGraph>, id: TensorId) -> PyTensor {
        PyTensor { graph, id }
    }

    /// Its graph.
    pub fn graph(&self) -> &Py<PyGraph> {
        &self.graph
    }

    /// The tensor's id.
    pub fn id(&self) -> TensorId {
        self.id
    }
}

#[pymethods]
impl PyTensor {
    /// The tensor's name.
    #[getter]
    fn name(&self, py: Python<'_>) -> String {
        errors::tensor_name(&self.graph.borrow(py).g, self.id)
    }

    /// Its position among the graph's tensors.
    #[getter]
    fn index(&self) -> usize {
        self.id.index()
    }

    /// The solved sizes in memory order (after `Graph.solve`).
    #[getter]
    fn shape<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyTuple>> {
        let g = self.graph.borrow(py);
        let sizes = g.g.sizes(self.id).map_err(|e| g.infer_err(py, &e))?;
        PyTuple::new(py, sizes.memory_order())
    }

    fn __repr__(&self, py: Python<'_>) -> String {
        format!("<einrow.Tensor {:?}>", self.name(py))
    }

    fn __eq__(&self, py: Python<'_>, other: &Bound<'_, PyAny>) -> bool {
        match other.cast::<PyTensor>() {
            Ok(o) => o.get().id == self.id && o.get().graph.bind(py).is(self.graph.bind(py)),
            Err(_) => false,
        }
    }

    fn __hash__(&self) -> u64 {
        (self.graph.as_ptr() as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ self.id.index() as u64
    }

    fn __reduce__<'py>(
        &self,
        py: Python<'py>,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let parts = (self.graph.bind(py), "_tensor_at", (self.id.index(),));
        Ok((crate::origin::remake_fn(py)?, parts.into_pyobject(py)?))
    }
}
