//! The types of an einsum call, as numpy decides them: the type the kernel computes in, and
//! numpy's result type when that is another. int64, bool, float32 and float64 operands are
//! computed in their own type; numpy's other integer types in int64, the result cast back
//! (wrapping sums of products agree modulo the narrower width, so the values are numpy's);
//! float16 (and ml_dtypes' bfloat16) in float32, the result rounded back (numpy's half loops
//! also multiply and add in float32, rounding at each store: a long sum may differ in its
//! last half ulp).

use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::arrays::{Memory, NotInPlace};
use crate::dtypes::{of_descr, supported, Dt};
use crate::np;

/// What an einsum computes in and gives.
pub struct Types<'py> {
    /// The type the kernel computes in.
    pub compute: Dt,
    /// numpy's result type when it is not `compute` (a narrower integer type, or float16):
    /// the result is cast to it.
    pub cast_to: Option<Bound<'py, PyArrayDescr>>,
}

impl<'py> Types<'py> {
    /// numpy's result type of the call.
    pub fn result(&self, py: Python<'py>) -> PyResult<Bound<'py, PyArrayDescr>> {
        match &self.cast_to {
            Some(d) => Ok(d.clone()),
            None => PyArrayDescr::new(py, self.compute.name()),
        }
    }
}

/// The types of an einsum on `arrays` (`read`: each one as read in place, or why not):
/// `dtype` when given (each operand must cast to it safely), else numpy's result type.
pub fn resolve<'py>(
    py: Python<'py>,
    arrays: &[Bound<'py, PyUntypedArray>],
    read: &[Result<Memory, NotInPlace>],
    dtype: Option<&Bound<'py, PyAny>>,
) -> PyResult<Types<'py>> {
    if let Some(d) = dtype.filter(|d| !d.is_none()) {
        let descr = np::DTYPE.get(py)?.call1((d,))?.cast_into::<PyArrayDescr>()?;
        for a in arrays {
            let from = a.dtype();
            if !np::CAN_CAST.get(py)?.call1((&from, &descr, "safe"))?.is_truthy()? {
                return Err(PyTypeError::new_err(format!(
                    "Cannot cast array data from {} to {} according to the rule 'safe'",
                    from.repr()?,
                    descr.repr()?
                )));
            }
        }
        return computed_as(descr);
    }
    let first = match read.first() {
        Some(Ok(m)) => Some(m.dt),
        // No operand: the plan reports the missing ones.
        None => return Ok(Types { compute: Dt::F64, cast_to: None }),
        Some(Err(_)) => None,
    };
    let same = |dt: Dt| read.iter().all(|r| matches!(r, Ok(m) if m.dt == dt));
    if let Some(dt) = first.filter(|&dt| dt.is_compute() && same(dt)) {
        return Ok(Types { compute: dt, cast_to: None });
    }
    let result = np::RESULT_TYPE.get(py)?.call1(PyTuple::new(py, arrays)?)?;
    computed_as(result.cast_into::<PyArrayDescr>()?)
}

/// How a result of type `descr` is computed.
fn computed_as(descr: Bound<'_, PyArrayDescr>) -> PyResult<Types<'_>> {
    if descr.is_native_byteorder() != Some(false) {
        if let Some(dt) = of_descr(&descr).filter(|dt| dt.is_compute()) {
            return Ok(Types { compute: dt, cast_to: None });
        }
    }
    if matches!(descr.kind(), b'i' | b'u') && descr.itemsize() <= 8 {
        return Ok(Types { compute: Dt::I64, cast_to: Some(descr) });
    }
    if matches!(of_descr(&descr), Some(Dt::F16 | Dt::BF16)) {
        return Ok(Types { compute: Dt::F32, cast_to: Some(descr) });
    }
    Err(PyTypeError::new_err(format!(
        "einrow.einsum computes in {} (numpy's other integer types through int64, float16 \
         through float32); numpy \
         would compute these operands in {}: convert them first (for example \
         `a.astype(numpy.float64)`)",
        supported(),
        descr.str().map(|s| s.to_string()).unwrap_or_default()
    )))
}
