//! `einrow.einsum`: numpy's einsum over numpy arrays read in place, written into a fresh
//! array or the caller's `out`.

use einrow::kernel::{RunOptions, Scalar};
use einrow::numpy::{EinsumError, EinsumPlan, StridedMut, StridedRef};
use einrow::tensor::Layout;
use numpy::{PyArrayDescr, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::PyTuple;
use smallvec::SmallVec;

use crate::arrays::{holds_objects, Memory, NotInPlace};
use crate::dtypes::{supported, Dt, ForType};
use crate::operands::split_operands;
use crate::{cache, errors, np, path, threads};

type Arrays<'py> = SmallVec<[Bound<'py, PyUntypedArray>; 4]>;

/// numpy's `einsum`: `einsum('ij,jk->ik', a, b)` or `einsum(a, [0, 1], b, [1, 2], [0, 2])`.
///
/// Values, shapes and errors are numpy's (`optimize=False` results): broadcasting of size-1
/// axes and of `...`, repeated labels, the implicit output, a view when one operand is only
/// permuted or diagonalised, a numpy scalar for a 0-d result.
///
/// - `operands`: arrays (or what `numpy.asarray` reads) of float32 or float64, any strides,
///   read in place; other types numpy would compute in float are converted, the rest are a
///   `TypeError`.
/// - `out`: an array of the result's shape, written in place (any strides); a wider type is
///   cast to, as numpy does.
/// - `optimize`: `False`/`None` (einrow's own order), `True`/`'greedy'`, `'optimal'`, `'dp'`,
///   `'auto'`, `['einsum_path', (0, 1), ...]` or `(strategy, memory_limit)`.
/// - `dtype`: float32 or float64, the type to compute in (operands cast to it safely).
///
/// Raises `ShapeError` (a `ValueError`; a subclass per code) for subscripts that do not fit
/// the operands, `TypeError` for arguments of the wrong type. The GIL is released while large
/// einsums run.
#[pyfunction]
#[pyo3(signature = (*operands, out = None, optimize = None, dtype = None))]
pub fn einsum<'py>(
    py: Python<'py>,
    operands: &Bound<'py, PyTuple>,
    out: Option<Bound<'py, PyAny>>,
    optimize: Option<&Bound<'py, PyAny>>,
    dtype: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let (spec, objs) = split_operands(operands)?;
    let path = path::path_options(optimize)?;
    let out = match out {
        Some(o) if !o.is_none() => Some(o.cast_into::<PyUntypedArray>().map_err(|_| {
            PyTypeError::new_err("keyword parameter out must be an array for einsum")
        })?),
        _ => None,
    };
    let mut arrays: Arrays<'py> = objs.iter().map(np::as_array).collect::<PyResult<_>>()?;
    if arrays.iter().any(holds_objects) {
        return Err(PyTypeError::new_err(format!(
            "einrow.einsum computes in {}; arrays of Python objects are not supported",
            supported()
        )));
    }
    let read: SmallVec<[Result<Memory, NotInPlace>; 4]> = arrays.iter().map(Memory::of).collect();
    let dt = compute_type(py, &arrays, &read, dtype)?;
    let mut mems: SmallVec<[Memory; 4]> = SmallVec::with_capacity(arrays.len());
    for (a, r) in arrays.iter_mut().zip(read) {
        let m = match r {
            Ok(m) if m.dt == dt => m,
            _ => {
                *a = np::readable_copy(a, dt)?;
                Memory::of(a)
                    .map_err(|_| PyTypeError::new_err("numpy returned an unreadable copy"))?
            }
        };
        mems.push(m);
    }
    let shapes: SmallVec<[&[usize]; 4]> = mems.iter().map(|m| m.shape.as_slice()).collect();
    let fail = |e: EinsumError| errors::einsum_error(py, &spec, &e);
    let planned = cache::plan(&spec, &shapes, path.as_ref()).map_err(fail)?;
    let (plan, work) = (&planned.plan, planned.work);
    let Some(out) = out else {
        if let ([only], [array]) = (&mems[..], &arrays[..]) {
            // numpy returns a view when one operand is only permuted or diagonalised.
            if let Some(strides) = plan.view_strides(&only.strides).map_err(fail)? {
                let shape = plan.output_shape();
                return Ok(np::view(array, dt, shape, &strides, only.writeable)?.into_any());
            }
        }
        let result = np::empty(py, dt, plan.output_shape())?;
        let target = Memory::of(&result).map_err(|_| PyTypeError::new_err("unreadable result"))?;
        run(py, plan, work, &mems, &target).map_err(fail)?;
        return if result.ndim() == 0 { np::scalar(result) } else { Ok(result.into_any()) };
    };
    check_out(py, &out, plan, dt)?;
    match Memory::of(&out) {
        Ok(target) if target.dt == dt && !mems.iter().any(|m| m.overlaps(&target)) => {
            run(py, plan, work, &mems, &target).map_err(fail)?;
        }
        // Another type (cast on writing, as numpy does), a layout the kernel cannot write,
        // or memory shared with an operand: computed apart, then copied in.
        _ => {
            let result = np::empty(py, dt, plan.output_shape())?;
            let target =
                Memory::of(&result).map_err(|_| PyTypeError::new_err("unreadable result"))?;
            run(py, plan, work, &mems, &target).map_err(fail)?;
            np::COPYTO.get(py)?.call1((&out, &result))?;
        }
    }
    Ok(out.into_any())
}

/// The type the einsum computes in: `dtype` when given (each operand must cast to it
/// safely), else numpy's result type of the operands, which must be float32 or float64.
fn compute_type<'py>(
    py: Python<'py>,
    arrays: &[Bound<'py, PyUntypedArray>],
    read: &[Result<Memory, NotInPlace>],
    dtype: Option<&Bound<'py, PyAny>>,
) -> PyResult<Dt> {
    if let Some(d) = dtype.filter(|d| !d.is_none()) {
        let descr = np::DTYPE.get(py)?.call1((d,))?;
        let descr = descr.cast::<PyArrayDescr>()?;
        let dt = dt_of(descr).ok_or_else(|| {
            PyTypeError::new_err(format!(
                "einrow.einsum computes in {}, not {}",
                supported(),
                descr.str().map(|s| s.to_string()).unwrap_or_default()
            ))
        })?;
        for a in arrays {
            let from = a.dtype();
            if !np::CAN_CAST.get(py)?.call1((&from, descr, "safe"))?.is_truthy()? {
                return Err(PyTypeError::new_err(format!(
                    "Cannot cast array data from {} to {} according to the rule 'safe'",
                    from.repr()?,
                    descr.repr()?
                )));
            }
        }
        return Ok(dt);
    }
    if read.is_empty() {
        // No operand: the plan reports the missing ones.
        return Ok(Dt::F64);
    }
    let mut widest: Option<Dt> = None;
    for r in read {
        match r {
            Ok(m) => widest = Some(widest.map_or(m.dt, |w| w.max(m.dt))),
            Err(_) => {
                widest = None;
                break;
            }
        }
    }
    if let Some(dt) = widest {
        return Ok(dt);
    }
    let result = np::RESULT_TYPE.get(py)?.call1(PyTuple::new(py, arrays)?)?;
    let descr = result.cast::<PyArrayDescr>()?;
    dt_of(descr).ok_or_else(|| {
        PyTypeError::new_err(format!(
            "einrow.einsum computes in {}; numpy would compute these operands in {}: convert \
             them first (for example `a.astype(numpy.float64)`)",
            supported(),
            descr.str().map(|s| s.to_string()).unwrap_or_default()
        ))
    })
}

/// The supported type of a numpy type descriptor (native byte order).
fn dt_of(descr: &Bound<'_, PyArrayDescr>) -> Option<Dt> {
    if descr.is_native_byteorder() == Some(false) {
        return None;
    }
    Dt::from_num(descr.num())
}

/// Checks `out` before anything is computed: writeable, of the result's shape, of a type the
/// result casts to safely.
fn check_out(
    py: Python<'_>,
    out: &Bound<'_, PyUntypedArray>,
    plan: &EinsumPlan,
    dt: Dt,
) -> PyResult<()> {
    if crate::arrays::array_flags(out) & numpy::npyffi::NPY_ARRAY_WRITEABLE == 0 {
        let msg = "the output array is read-only".to_string();
        return Err(errors::value_error(py, einrow::ErrorCode::Value, msg));
    }
    if out.shape() != plan.output_shape() {
        let e = EinsumError::WrongShape {
            operand: None,
            expected: plan.output_shape().to_vec(),
            got: out.shape().to_vec(),
        };
        return Err(errors::einsum_error(py, "", &e));
    }
    let to = out.dtype();
    if dt_of(&to) == Some(dt) {
        return Ok(());
    }
    let from = PyArrayDescr::new(py, dt.name())?;
    if np::CAN_CAST.get(py)?.call1((&from, &to, "safe"))?.is_truthy()? {
        return Ok(());
    }
    Err(PyTypeError::new_err(format!(
        "the result is {} and cannot be written into an output of {} according to the rule 'safe'",
        from.repr()?,
        to.repr()?
    )))
}

/// Runs `plan` on the operands into `out`, without the GIL when the work is large.
fn run(
    py: Python<'_>,
    plan: &EinsumPlan,
    work: u128,
    inputs: &[Memory],
    out: &Memory,
) -> Result<(), EinsumError> {
    let job = Job { plan, inputs, out, opts: threads::run_options() };
    threads::run_kernel(py, out.dt, work, job)
}

/// One run of a plan, generic over the element type.
struct Job<'a> {
    plan: &'a EinsumPlan,
    inputs: &'a [Memory],
    out: &'a Memory,
    opts: RunOptions,
}

impl ForType for Job<'_> {
    type Out = Result<(), EinsumError>;

    fn run<T: Scalar + einrow::project::Storage + numpy::Element>(self) -> Self::Out {
        let mut refs: SmallVec<[StridedRef<'_, T>; 4]> = SmallVec::with_capacity(self.inputs.len());
        for m in self.inputs {
            let layout = Layout::from_parts(&m.shape, &m.strides, m.offset)?;
            // SAFETY: the arrays are held by the caller for the call; every operand was read
            // as `T` (the plan's compute type); the output shares no byte with any operand
            // (checked by the caller), so the shared and the mutable slices never alias.
            refs.push(StridedRef::new(unsafe { m.slice::<T>() }, layout)?);
        }
        let layout = Layout::from_parts(&self.out.shape, &self.out.strides, self.out.offset)?;
        // SAFETY: as above; the output array is writeable (checked by the caller).
        let mut out = StridedMut::new(unsafe { self.out.slice_mut::<T>() }, layout)?;
        self.plan.run(&refs, &mut out, &self.opts)
    }
}
