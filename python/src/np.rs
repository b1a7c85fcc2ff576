//! What the bindings ask of numpy: fresh arrays, views of an array's memory, and the few
//! Python-level functions (looked up once) used where an operand must be converted.

use std::os::raw::c_int;
use std::ptr;

use numpy::npyffi::{self, npy_intp, NPY_ARRAY_WRITEABLE, PY_ARRAY_API};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::PyTuple;

use crate::dtypes::Dt;

/// A numpy function, imported on first use.
pub struct NumpyFn {
    name: &'static str,
    cell: PyOnceLock<Py<PyAny>>,
}

impl NumpyFn {
    const fn new(name: &'static str) -> NumpyFn {
        NumpyFn { name, cell: PyOnceLock::new() }
    }

    /// The function.
    pub fn get<'py>(&self, py: Python<'py>) -> PyResult<&Bound<'py, PyAny>> {
        self.cell
            .get_or_try_init(py, || Ok(py.import("numpy")?.getattr(self.name)?.unbind()))
            .map(|f| f.bind(py))
    }
}

/// `numpy.asarray`.
pub static ASARRAY: NumpyFn = NumpyFn::new("asarray");
/// `numpy.require`.
pub static REQUIRE: NumpyFn = NumpyFn::new("require");
/// `numpy.result_type`.
pub static RESULT_TYPE: NumpyFn = NumpyFn::new("result_type");
/// `numpy.can_cast`.
pub static CAN_CAST: NumpyFn = NumpyFn::new("can_cast");
/// `numpy.copyto`.
pub static COPYTO: NumpyFn = NumpyFn::new("copyto");
/// `numpy.dtype`.
pub static DTYPE: NumpyFn = NumpyFn::new("dtype");

/// `numpy.from_dlpack`.
pub static FROM_DLPACK: NumpyFn = NumpyFn::new("from_dlpack");

/// numpy's `ComplexWarning` (`numpy.exceptions.ComplexWarning`; `numpy.ComplexWarning`
/// before numpy 1.25), imported on first use.
static COMPLEX_WARNING: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

/// Warns as numpy does when a cast discards imaginary parts: "Casting complex values to real
/// discards the imaginary part" (an error when warnings are errors).
pub fn complex_warning(py: Python<'_>) -> PyResult<()> {
    let class = COMPLEX_WARNING.get_or_try_init(py, || -> PyResult<Py<PyAny>> {
        let class = match py.import("numpy.exceptions") {
            Ok(m) => m.getattr("ComplexWarning")?,
            Err(_) => py.import("numpy")?.getattr("ComplexWarning")?,
        };
        Ok(class.unbind())
    })?;
    let msg = c"Casting complex values to real discards the imaginary part";
    PyErr::warn(py, class.bind(py), msg, 1)
}

/// `obj` as a numpy array, its memory read in place where it offers it: itself when it is
/// one; `numpy.from_dlpack(obj)` for an object that offers DLPack but no `__array__` (a
/// torch or jax tensor on the CPU seen through DLPack alone); else `numpy.asarray(obj)`
/// (`__array__`, the buffer protocol, numpy's array interface, or a conversion of nested
/// sequences and scalars).
pub fn as_array<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Bound<'py, PyUntypedArray>> {
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        return Ok(a.clone());
    }
    let py = obj.py();
    let dlpack_only = obj.hasattr(intern!(py, "__dlpack__"))?
        && !obj.hasattr(intern!(py, "__array__"))?
        && !obj.hasattr(intern!(py, "__array_interface__"))?;
    let converted = match dlpack_only {
        true => FROM_DLPACK.get(py)?.call1((obj,))?,
        false => ASARRAY.get(py)?.call1((obj,))?,
    };
    converted.cast_into::<PyUntypedArray>().map_err(|e| PyTypeError::new_err(e.to_string()))
}

/// A copy of `array` the kernel reads in place: C-contiguous, aligned, native byte order,
/// of element type `dt` (numpy converts the values).
pub fn readable_copy<'py>(
    array: &Bound<'py, PyUntypedArray>,
    dt: Dt,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let py = array.py();
    // C-contiguous and aligned, in the native byte order of `dt`'s name.
    let copy = REQUIRE.get(py)?.call1((array, dt.name(), "CA"))?;
    copy.cast_into::<PyUntypedArray>().map_err(|e| PyTypeError::new_err(e.to_string()))
}

/// `array` converted to `descr` by numpy (`astype`, any conversion: the caller checked the
/// casting rule).
pub fn cast<'py>(
    array: &Bound<'py, PyUntypedArray>,
    descr: &Bound<'py, numpy::PyArrayDescr>,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let converted = array.call_method1("astype", (descr,))?;
    converted.cast_into::<PyUntypedArray>().map_err(|e| PyTypeError::new_err(e.to_string()))
}

/// A fresh C-contiguous array of `shape` whose elements are not initialised (every element
/// is written before the array is returned to Python).
pub fn empty<'py>(
    py: Python<'py>,
    dt: Dt,
    shape: &[usize],
) -> PyResult<Bound<'py, PyUntypedArray>> {
    empty_strided(py, dt, shape, None)
}

/// [`empty`] laid out with `strides` in bytes (`None`: C order), which must be those of a
/// permutation of a contiguous array of `shape` (numpy allocates the elements and keeps
/// them).
pub fn empty_strided<'py>(
    py: Python<'py>,
    dt: Dt,
    shape: &[usize],
    strides: Option<&[isize]>,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    // A new reference, stolen by the constructor.
    let descr = match dt.npy() {
        // SAFETY: numpy's descriptor of one of its own type numbers.
        Some(n) => unsafe { PY_ARRAY_API.PyArray_DescrFromType(py, n as c_int) },
        // A type numpy does not number (bfloat16): the descriptor its name gives, which the
        // package defining it (ml_dtypes) registered when the operands were made.
        None => DTYPE.get(py)?.call1((dt.name(),))?.into_ptr().cast(),
    };
    if descr.is_null() {
        return Err(PyErr::fetch(py));
    }
    let mut bytes: Vec<npy_intp> =
        strides.unwrap_or_default().iter().map(|&s| s as npy_intp).collect();
    let strides = match bytes.len() {
        n if n == shape.len() && n > 0 => bytes.as_mut_ptr(),
        _ => ptr::null_mut(),
    };
    // SAFETY: no data given: numpy allocates the array (its element count times the item
    // size), which the strides of a permuted contiguous layout address exactly.
    unsafe { new_array(py, descr, shape, strides, ptr::null_mut(), 0) }
}

/// A view of `base`'s memory in `base`'s own type (byte order included): `shape` with
/// `strides` in bytes from `base`'s first element, writeable when `base` is.
pub fn view<'py>(
    base: &Bound<'py, PyUntypedArray>,
    shape: &[usize],
    strides: &[isize],
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let py = base.py();
    let mut bytes: Vec<npy_intp> = strides.iter().map(|&s| s as npy_intp).collect();
    let writeable = crate::arrays::array_flags(base) & NPY_ARRAY_WRITEABLE;
    // SAFETY: the view stays within `base`'s elements (the strides are those of an einsum
    // that only permutes or takes diagonals of `base`); the descriptor's new reference is
    // stolen by the constructor, and the view holds a reference to `base` (SetBaseObject
    // steals the one made here).
    unsafe {
        let data = (*base.as_array_ptr()).fields.data;
        let descr = base.dtype().into_ptr().cast();
        let arr = new_array(py, descr, shape, bytes.as_mut_ptr(), data.cast(), writeable)?;
        let owner = base.clone().into_ptr();
        if PY_ARRAY_API.PyArray_SetBaseObject(py, arr.as_array_ptr(), owner) < 0 {
            return Err(PyErr::fetch(py));
        }
        Ok(arr)
    }
}

/// numpy's array constructor: a null result is numpy's Python error.
///
/// # Safety
/// `descr` is a new reference to a descriptor (stolen); `strides` is null (C order) or has
/// `shape.len()` entries; `data` is null (numpy allocates) or addresses memory that every
/// element of `shape` and `strides` lies in, kept alive by the caller.
unsafe fn new_array<'py>(
    py: Python<'py>,
    descr: *mut npyffi::PyArray_Descr,
    shape: &[usize],
    strides: *mut npy_intp,
    data: *mut std::ffi::c_void,
    flags: c_int,
) -> PyResult<Bound<'py, PyUntypedArray>> {
    let mut dims: Vec<npy_intp> = shape.iter().map(|&d| d as npy_intp).collect();
    let obj = PY_ARRAY_API.PyArray_NewFromDescr(
        py,
        npyffi::get_type_object(py, npyffi::NpyTypes::PyArray_Type),
        descr,
        dims.len() as c_int,
        dims.as_mut_ptr(),
        strides,
        data,
        flags,
        ptr::null_mut(),
    );
    Ok(Bound::from_owned_ptr_or_err(py, obj)?.cast_into_unchecked())
}

/// The numpy scalar of a 0-d array (numpy's einsum returns one for a 0-d result).
pub fn scalar<'py>(array: Bound<'py, PyUntypedArray>) -> PyResult<Bound<'py, PyAny>> {
    let py = array.py();
    array.into_any().get_item(PyTuple::empty(py))
}
