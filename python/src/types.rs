//! The types of an einsum call, as numpy decides them, and the type the kernel computes in.
//!
//! numpy computes in `dtype=` when given, else in the common type of the operands and `out`
//! (an int8 sum into an int64 `out` is an int64 sum, a float32 one into a float64 `out` a
//! float64 one), and refuses an `out` that is not safely cast to and from that type. The
//! kernel computes int64, bool, float32 and float64 in their own type; numpy's other integer
//! types in int64, the result cast back (wrapping sums of products agree modulo the narrower
//! width, so the values are numpy's); float16 (and ml_dtypes' bfloat16) in float32, the
//! result rounded back (numpy's half loops also multiply and add in float32, rounding at each
//! store: a long sum may differ in its last half ulp). complex64 and complex128 are computed
//! in themselves; a complex type of real operands in its parts' real type (the imaginary
//! parts are zero). Python objects of floating operands in float64 (what Python's floats
//! are), of bool ones in int64.

use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::arrays::{element_type, Memory, NotInPlace};
use crate::dtypes::{of_descr, supported, Dt};
use crate::keywords::Casting;
use crate::np;

/// What an einsum computes in and gives.
pub struct Types<'py> {
    /// The type the kernel computes in.
    pub compute: Dt,
    /// numpy's type of the computation when it is not `compute` (a narrower integer type,
    /// float16, a complex type, objects): the result is cast to it.
    pub cast_to: Option<Bound<'py, PyArrayDescr>>,
    /// The operands `casting` lets numpy convert to `dtype` with a loss (float64 to float16,
    /// floats to integers): converted by numpy first, so that the values are numpy's.
    pub narrowed: Vec<(usize, Bound<'py, PyArrayDescr>)>,
}

impl<'py> Types<'py> {
    fn of(compute: Dt, cast_to: Option<Bound<'py, PyArrayDescr>>) -> Types<'py> {
        Types { compute, cast_to, narrowed: Vec::new() }
    }
}

/// The types of an einsum on `arrays` (`read`: each one as read in place, or why not) into
/// `out`: `dtype` when given (each operand must cast to it by the `casting` rule), else
/// numpy's common type of the operands and `out` (each operand cast to it by the rule); `out`
/// must cast by the rule to and from it.
pub fn resolve<'py>(
    py: Python<'py>,
    arrays: &[Bound<'py, PyUntypedArray>],
    read: &[Result<Memory, NotInPlace>],
    dtype: Option<&Bound<'py, PyAny>>,
    out: Option<&Bound<'py, PyUntypedArray>>,
    casting: Casting,
) -> PyResult<Types<'py>> {
    let given = dtype.filter(|d| !d.is_none());
    let descr = match given {
        Some(d) => np::DTYPE.get(py)?.call1((d,))?.cast_into::<PyArrayDescr>()?,
        None => {
            if let Some(dt) = shared_compute_type(read, out) {
                return Ok(Types::of(dt, None));
            }
            let all: Vec<&Bound<'py, PyUntypedArray>> = arrays.iter().chain(out).collect();
            let result = np::RESULT_TYPE.get(py)?.call1(PyTuple::new(py, all)?)?;
            result.cast_into::<PyArrayDescr>()?
        }
    };
    let strict = matches!(casting, Casting::No | Casting::Equiv);
    let mut narrowed = Vec::new();
    for (i, a) in arrays.iter().enumerate() {
        let from = a.dtype();
        // The common type is a safe target of every operand; `dtype` need not be.
        if (given.is_some() || strict)
            && casting != Casting::Safe
            && !can_cast(py, &from, &descr, casting)?
        {
            return Err(operand_cast_error(i, &from, &descr, casting)?);
        }
        if given.is_some() && !strict && !can_cast(py, &from, &descr, Casting::Safe)? {
            if casting == Casting::Safe {
                return Err(operand_cast_error(i, &from, &descr, casting)?);
            }
            narrowed.push((i, descr.clone()));
        }
    }
    if let Some(out) = out {
        check_out_type(py, &descr, &out.dtype(), casting)?;
    }
    let operand_types: Vec<Option<Dt>> = (0..arrays.len())
        .map(|i| match narrowed.iter().any(|(k, _)| *k == i) {
            true => of_descr(&descr),
            false => element_type(&arrays[i]),
        })
        .collect();
    let mut types = computed_as(descr, &operand_types, out.is_some())?;
    types.narrowed = narrowed;
    Ok(types)
}

/// numpy's error for an operand the rule does not let it convert.
fn operand_cast_error(
    i: usize,
    from: &Bound<'_, PyArrayDescr>,
    to: &Bound<'_, PyArrayDescr>,
    casting: Casting,
) -> PyResult<PyErr> {
    Ok(PyTypeError::new_err(format!(
        "Iterator operand {i} dtype could not be cast from {} to {} according to the rule '{}'",
        from.repr()?,
        to.repr()?,
        casting.name()
    )))
}

/// The one compute type of every operand and of `out`, read in place: the common type
/// without asking numpy.
fn shared_compute_type(
    read: &[Result<Memory, NotInPlace>],
    out: Option<&Bound<'_, PyUntypedArray>>,
) -> Option<Dt> {
    let dt = match read.first() {
        Some(Ok(m)) => m.dt,
        // No operand: the plan reports the missing ones.
        None => return Some(Dt::F64),
        Some(Err(_)) => return None,
    };
    let same = read.iter().all(|r| matches!(r, Ok(m) if m.dt == dt));
    let out_same = out.is_none_or(|o| {
        element_type(o) == Some(dt) && o.dtype().is_native_byteorder() != Some(false)
    });
    (dt.is_compute() && same && out_same).then_some(dt)
}

/// numpy's `can_cast(from, to, casting)`.
fn can_cast<'py>(
    py: Python<'py>,
    from: &Bound<'py, PyArrayDescr>,
    to: &Bound<'py, PyArrayDescr>,
    casting: Casting,
) -> PyResult<bool> {
    np::CAN_CAST.get(py)?.call1((from, to, casting.name()))?.is_truthy()
}

/// numpy reads `out` in the computed type and writes it back: both casts must follow the
/// rule.
fn check_out_type<'py>(
    py: Python<'py>,
    computed: &Bound<'py, PyArrayDescr>,
    out: &Bound<'py, PyArrayDescr>,
    casting: Casting,
) -> PyResult<()> {
    let rule = casting.name();
    if !can_cast(py, computed, out, casting)? {
        return Err(PyTypeError::new_err(format!(
            "the result is {} and cannot be written into an output of {} according to the \
             rule '{rule}'",
            computed.repr()?,
            out.repr()?
        )));
    }
    if !can_cast(py, out, computed, casting)? {
        return Err(PyTypeError::new_err(format!(
            "an output of {} cannot hold the computation in {} (numpy computes into `out` in \
             the requested type) according to the rule '{rule}': pass an output of {} or no \
             `dtype`",
            out.repr()?,
            computed.repr()?,
            computed.repr()?
        )));
    }
    // numpy's iterator casts `out` to the computed type and back: complex to a real type
    // (bool aside) either way discards an imaginary part, and numpy warns, even when the
    // values it reads are the zeros it wrote.
    let real = |d: &Bound<'py, PyArrayDescr>| matches!(d.kind(), b'i' | b'u' | b'f');
    if (computed.kind() == b'c' && real(out)) || (out.kind() == b'c' && real(computed)) {
        np::complex_warning(py)?;
    }
    Ok(())
}

/// How a computation in `descr` on operands of `operand_types` is done.
fn computed_as<'py>(
    descr: Bound<'py, PyArrayDescr>,
    operand_types: &[Option<Dt>],
    with_out: bool,
) -> PyResult<Types<'py>> {
    let operand_types = || operand_types.iter().copied();
    // A complex type of real operands: the imaginary parts stay zero, computed in the real
    // type of the parts (half the work of a complex product, a quarter of its arithmetic).
    let real = operand_types().all(|t| t.is_some_and(|t| !t.is_complex()));
    if descr.kind() == b'c' && real {
        let parts = match descr.itemsize() {
            8 => Some(Dt::F32),
            16 => Some(Dt::F64),
            _ => None,
        };
        if let Some(compute) = parts {
            return Ok(Types::of(compute, Some(descr)));
        }
    }
    if descr.is_native_byteorder() != Some(false) {
        if let Some(dt) = of_descr(&descr).filter(|dt| dt.is_compute()) {
            return Ok(Types::of(dt, None));
        }
    }
    let compute = match (descr.kind(), of_descr(&descr)) {
        (b'i' | b'u', _) if descr.itemsize() <= 8 => Some(Dt::I64),
        (_, Some(dt)) => Some(dt.compute()),
        (b'O', _) => objects_as(operand_types()),
        _ => None,
    };
    if let Some(compute) = compute {
        return Ok(Types::of(compute, Some(descr)));
    }
    let (of, fix) = if with_out {
        ("the operands and `out`", "give an `out` of one of these types")
    } else {
        ("these operands", "convert them first (for example `a.astype(numpy.float64)`)")
    };
    Err(PyTypeError::new_err(format!(
        "einrow.einsum computes in {} (numpy's other integer types through int64, float16 \
         through float32, a complex result of real operands through its real type, Python \
         objects of floating or bool operands through float64 or int64); numpy would compute \
         {of} in {}: {fix}",
        supported(),
        descr.str().map(|s| s.to_string()).unwrap_or_default()
    )))
}

/// How numpy's computation in Python objects is done for operands of `types`: Python's
/// floats are float64, and bools multiply and add as integers 0 and 1 (no sum of them leaves
/// int64); integer operands would be Python's unbounded integers, which the kernel has not.
fn objects_as(mut types: impl Iterator<Item = Option<Dt>> + Clone) -> Option<Dt> {
    if types.clone().all(|t| t == Some(Dt::Bool)) {
        return Some(Dt::I64);
    }
    types.all(|t| t.is_some_and(|t| t == Dt::Bool || t.is_float())).then_some(Dt::F64)
}
