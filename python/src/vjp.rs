//! `einrow.einsum_vjp`: the gradients of numpy's einsum with respect to its operands, from
//! the gradient of its result (the crate's `einsum_vjp`, on copies of the arrays).

use einrow::project::{einsum_vjp as vjp, Storage};
use einrow::tensor::Tensor;
use numpy::{PyArray1, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};

use crate::dtypes::{of_descr, Dt, ForType};
use crate::operands::split_operands;
use crate::{errors, np};

/// The gradient of `sum(cotangent * einsum(subscripts, *operands))` with respect to each
/// operand, as numpy arrays of the operands' shapes and types: numpy's semantics (an
/// operand's size-1 axis broadcast against a longer one gets the sum over that axis, a
/// repeated label its diagonal). Float arrays only (float16, float32, float64).
///
/// Raises `ShapeError` for subscripts that do not fit, `ElemsError` for a cotangent of
/// another shape than the result's, `TypeError` for integer or bool arrays.
#[pyfunction]
#[pyo3(signature = (*operands, cotangent))]
pub fn einsum_vjp<'py>(
    py: Python<'py>,
    operands: &Bound<'py, PyTuple>,
    cotangent: &Bound<'py, PyAny>,
) -> PyResult<Bound<'py, PyList>> {
    let (spec, objs) = split_operands(operands)?;
    let arrays: Vec<Bound<'py, PyUntypedArray>> =
        objs.iter().map(np::as_array).collect::<PyResult<_>>()?;
    let tensors: Vec<Tensor> = arrays.iter().map(to_tensor).collect::<PyResult<_>>()?;
    let ct = to_tensor(&np::as_array(cotangent)?)?;
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let grads = vjp(&spec, &refs, &ct).map_err(|e| errors::project_error(py, None, &e))?;
    let out: Vec<Bound<'py, PyAny>> =
        grads.iter().map(|g| to_array(py, g)).collect::<PyResult<_>>()?;
    PyList::new(py, out)
}

/// A copy of a numpy array as a tensor of its element type.
fn to_tensor(a: &Bound<'_, PyUntypedArray>) -> PyResult<Tensor> {
    let refuse = || {
        PyTypeError::new_err(format!(
            "einsum_vjp differentiates real float arrays, not {}",
            a.dtype()
        ))
    };
    let dt = of_descr(&a.dtype()).filter(|d| !d.is_complex()).ok_or_else(refuse)?;
    dt.dispatch(Copy { a, dt })
}

struct Copy<'a, 'py> {
    a: &'a Bound<'py, PyUntypedArray>,
    dt: Dt,
}

impl ForType for Copy<'_, '_> {
    type Out = PyResult<Tensor>;

    fn run<T: Storage>(self) -> Self::Out {
        let c = np::readable_copy(self.a, self.dt)?;
        let shape = c.shape().to_vec();
        // SAFETY: `c` is a C-contiguous aligned array of `T` (numpy made it so), held here.
        let m =
            crate::arrays::Memory::of(&c).map_err(|_| PyTypeError::new_err("unreadable copy"))?;
        let data = unsafe { m.slice::<T>() }.to_vec();
        Tensor::from_vec(&shape, data).map_err(|e| PyTypeError::new_err(e.to_string()))
    }
}

/// A tensor as a fresh numpy array of its type.
fn to_array<'py>(py: Python<'py>, t: &Tensor) -> PyResult<Bound<'py, PyAny>> {
    let shape = t.shape().to_vec();
    macro_rules! typed {
        ($($t:ty),*) => {$(
            if let Some((data, _)) = t.contiguous().typed::<$t>() {
                return Ok(PyArray1::from_slice(py, data).reshape(shape)?.into_any());
            }
        )*};
    }
    typed!(f64, f32);
    if let Some((data, _)) = t.contiguous().typed::<half::f16>() {
        let wide: Vec<f32> = data.iter().map(|x| x.to_f32()).collect();
        let a: Bound<'py, PyArrayDyn<f32>> = PyArray1::from_vec(py, wide).reshape(shape)?;
        return a.call_method1("astype", (Dt::F16.name(),));
    }
    Err(PyTypeError::new_err(format!(
        "einsum_vjp's gradients are float arrays, not {}",
        t.dtype().name()
    )))
}
