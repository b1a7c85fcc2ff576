//! numpy's two calling forms of einsum: `einsum('ij,jk->ik', a, b)` and the sublist form
//! `einsum(a, [0, 1], b, [1, 2], [0, 2])`, read into subscripts and operand objects.

use std::ops::Deref;

use einrow::numpy::{Sublist, Subscript};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedStr;
use pyo3::types::{PyBytes, PyString, PyTuple};

use crate::errors;
use crate::np;

/// The subscripts of a call: the caller's string (not copied), or the text of a sublist.
pub enum Subscripts {
    /// Given as a string.
    Given(PyBackedStr),
    /// Converted from bytes or sublists.
    Built(String),
}

impl Deref for Subscripts {
    type Target = str;
    fn deref(&self) -> &str {
        match self {
            Subscripts::Given(s) => s,
            Subscripts::Built(s) => s,
        }
    }
}

/// The subscripts (a string, bytes, or sublists) and the operand objects of an einsum call's
/// positional arguments.
pub fn split_operands<'py>(
    args: &Bound<'py, PyTuple>,
) -> PyResult<(Subscripts, Vec<Bound<'py, PyAny>>)> {
    let py = args.py();
    let Ok(first) = args.get_item(0) else {
        let msg = "einsum needs the subscripts string and at least one operand".to_string();
        return Err(errors::value_error(py, einrow::ErrorCode::Arity, msg));
    };
    if let Ok(s) = first.cast::<PyString>() {
        let spec = Subscripts::Given(s.clone().try_into()?);
        return Ok((spec, args.iter().skip(1).collect()));
    }
    // numpy reads bytes subscripts as its C code reads them, one character per byte.
    if let Ok(b) = first.cast::<PyBytes>() {
        let text = b.as_bytes().iter().map(|&c| char::from(c)).collect();
        return Ok((Subscripts::Built(text), args.iter().skip(1).collect()));
    }
    // Sublist form: operand, list, operand, list, ..., and an optional output list.
    let n = args.len();
    let mut sublist = Sublist::new();
    let mut objs = Vec::with_capacity(n / 2);
    for k in 0..n / 2 {
        objs.push(args.get_item(2 * k)?);
        sublist = sublist.input(subscript_list(&args.get_item(2 * k + 1)?)?);
    }
    if n % 2 == 1 {
        sublist = sublist.output(subscript_list(&args.get_item(n - 1)?)?);
    }
    let text = sublist.to_subscripts().map_err(|e| {
        let e = einrow::numpy::EinsumError::from(e);
        errors::einsum_error(py, "", &e)
    })?;
    Ok((Subscripts::Built(text), objs))
}

/// One sublist: integers and `Ellipsis`.
fn subscript_list(obj: &Bound<'_, PyAny>) -> PyResult<Vec<Subscript>> {
    let py = obj.py();
    let bad = || PyTypeError::new_err("each subscript must be either an integer or an ellipsis");
    if obj.cast::<PyString>().is_ok() {
        return Err(bad());
    }
    let mut out = Vec::new();
    for item in obj.try_iter().map_err(|_| bad())? {
        let item = item?;
        if item.is(py.Ellipsis()) {
            out.push(Subscript::Ellipsis);
        } else {
            out.push(Subscript::Label(item.extract::<i64>().map_err(|_| bad())?));
        }
    }
    Ok(out)
}

/// The shape of an operand: an array's, or that of `numpy.asarray(obj)`.
pub fn shape_of(obj: &Bound<'_, PyAny>) -> PyResult<Vec<usize>> {
    if let Ok(a) = obj.cast::<PyUntypedArray>() {
        return Ok(a.shape().to_vec());
    }
    Ok(np::as_array(obj)?.shape().to_vec())
}
