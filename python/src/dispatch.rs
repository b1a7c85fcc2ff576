//! numpy's `__array_function__` protocol (NEP 18) for `einsum` and `einsum_path`: when an
//! argument's type overrides `__array_function__` (a dask, cupy or sparse array, any duck
//! array), the call is numpy's, which hands it to that type, as `numpy.einsum` would. numpy
//! arrays and plain Python values are never looked at twice.

use numpy::npyffi::{self, NpyTypes};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyBool, PyBytes, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};

/// `numpy.ndarray.__array_function__`, the default implementation.
static DEFAULT: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Whether `obj`'s type overrides numpy's `__array_function__`.
fn overrides(obj: &Bound<'_, PyAny>) -> PyResult<bool> {
    let py = obj.py();
    let ty = obj.get_type();
    // SAFETY: numpy's type object, alive while numpy is loaded.
    let ndarray = unsafe { npyffi::get_type_object(py, NpyTypes::PyArray_Type) };
    let plain = obj.is_none()
        || obj.is_exact_instance_of::<PyString>()
        || obj.is_exact_instance_of::<PyBytes>()
        || obj.is_exact_instance_of::<PyList>()
        || obj.is_exact_instance_of::<PyTuple>()
        || obj.is_exact_instance_of::<PyInt>()
        || obj.is_exact_instance_of::<PyFloat>()
        || obj.is_exact_instance_of::<PyBool>();
    if plain || ty.as_ptr().cast() == ndarray {
        return Ok(false);
    }
    let Ok(method) = ty.getattr(intern!(py, "__array_function__")) else { return Ok(false) };
    let default = DEFAULT.get_or_try_init(py, || {
        Ok::<_, PyErr>(
            py.import("numpy")?.getattr("ndarray")?.getattr("__array_function__")?.unbind(),
        )
    })?;
    Ok(!method.is(default.bind(py)))
}

/// numpy's `name` called on the arguments when one of them (an operand, or a keyword's value)
/// overrides `__array_function__`; `None` when einrow computes the call itself.
pub fn dispatched<'py>(
    py: Python<'py>,
    name: &str,
    operands: &Bound<'py, PyTuple>,
    kwargs: &[(&str, Option<&Bound<'py, PyAny>>)],
) -> PyResult<Option<Bound<'py, PyAny>>> {
    let mut any = false;
    for a in operands.iter() {
        if overrides(&a)? {
            any = true;
            break;
        }
    }
    if !any {
        for (_, v) in kwargs {
            if let Some(v) = v {
                if overrides(v)? {
                    any = true;
                    break;
                }
            }
        }
    }
    if !any {
        return Ok(None);
    }
    let given = PyDict::new(py);
    for (k, v) in kwargs {
        if let Some(v) = v {
            given.set_item(k, v)?;
        }
    }
    Ok(Some(py.import("numpy")?.getattr(name)?.call(operands, Some(&given))?))
}
