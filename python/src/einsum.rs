//! `einrow.einsum`: numpy's einsum over numpy arrays read in place, written into a fresh
//! array or the caller's `out`.

use einrow::kernel::{RunOptions, Scalar};
use einrow::numpy::{EinsumError, EinsumPlan, StridedMut, StridedRef};
use einrow::tensor::Layout;
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyTuple};
use smallvec::SmallVec;

use crate::arrays::{element_type, holds_objects, self_overlap, Memory, NotInPlace};
use crate::dtypes::{supported, ForCompute};
use crate::operands::split_operands;
use crate::types::{self, Types};
use crate::{cache, errors, np, path, threads};

type Arrays<'py> = SmallVec<[Bound<'py, PyUntypedArray>; 4]>;

/// numpy's `einsum`: `einsum('ij,jk->ik', a, b)` or `einsum(a, [0, 1], b, [1, 2], [0, 2])`.
///
/// Values, shapes and errors are numpy's (`optimize=False` results): broadcasting of size-1
/// axes and of `...`, repeated labels, the implicit output, a view when one operand is only
/// permuted or diagonalised, a numpy scalar for a 0-d result.
///
/// - `operands`: arrays (or what `numpy.asarray` reads), any strides. float32, float64,
///   int64 and bool arrays are read in place; numpy's other integer types are computed in
///   int64 and the result cast back (the same values: numpy's integer arithmetic wraps);
///   float16 is computed in float32 and the result rounded back; operands of another common
///   type are converted as numpy promotes them; complex and object arrays are a `TypeError`.
/// - `out`: an array of the result's shape, written in place (any strides); a wider type is
///   cast to, as numpy does.
/// - `optimize`: `False`/`None` (einrow's own order), `True`/`'greedy'`, `'optimal'`, `'dp'`,
///   `'auto'`, `['einsum_path', (0, 1), ...]` or `(strategy, memory_limit)`.
/// - `dtype`: the type to compute in (operands cast to it safely), as numpy's.
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
    let types = types::resolve(py, &arrays, &read, dtype)?;
    let dt = types.compute;
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
        if let ([only], [array], None) = (&mems[..], &arrays[..], &types.cast_to) {
            // numpy returns a view when one operand is only permuted or diagonalised.
            if let Some(strides) = plan.view_strides(&only.strides).map_err(fail)? {
                let shape = plan.output_shape();
                return Ok(np::view(array, dt, shape, &strides, only.writeable)?.into_any());
            }
        }
        let mut result = np::empty(py, dt, plan.output_shape())?;
        let target = Memory::of(&result).map_err(|_| PyTypeError::new_err("unreadable result"))?;
        run(py, plan, work, &mems, &target).map_err(fail)?;
        if let Some(to) = &types.cast_to {
            result = result.call_method1("astype", (to,))?.cast_into::<PyUntypedArray>()?;
        }
        return if result.ndim() == 0 { np::scalar(result) } else { Ok(result.into_any()) };
    };
    check_out(py, &out, plan, &types)?;
    match Memory::of(&out) {
        Ok(target)
            if target.dt == dt
                && types.cast_to.is_none()
                && !mems.iter().any(|m| m.overlaps(&target)) =>
        {
            run(py, plan, work, &mems, &target).map_err(fail)?;
        }
        // Another type (cast on writing, as numpy does), a layout the kernel cannot write,
        // or memory shared with an operand: computed apart, then copied in (the cast was
        // checked to be safe from numpy's result type).
        _ => {
            let result = np::empty(py, dt, plan.output_shape())?;
            let target =
                Memory::of(&result).map_err(|_| PyTypeError::new_err("unreadable result"))?;
            run(py, plan, work, &mems, &target).map_err(fail)?;
            // numpy computes into a wider `out` in the wider type (an int8 sum does not wrap
            // at 8 bits there, a float16 product is not rounded to float16): the compute
            // type's values are copied in, never numpy's narrow result type's.
            let unsafe_cast = [("casting", "unsafe")].into_py_dict(py)?;
            np::COPYTO.get(py)?.call((&out, &result), Some(&unsafe_cast))?;
        }
    }
    Ok(out.into_any())
}

/// Checks `out` before anything is computed: writeable, of the result's shape, no two
/// elements sharing memory, of a type the result casts to safely.
fn check_out<'py>(
    py: Python<'py>,
    out: &Bound<'py, PyUntypedArray>,
    plan: &EinsumPlan,
    types: &Types<'py>,
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
    // Refused before anything runs: the copy of a result computed apart would write it too.
    if let Some(o) = self_overlap(out) {
        return Err(errors::overlap_error(py, &o, false));
    }
    let to = out.dtype();
    if types.cast_to.is_none() && element_type(out) == Some(types.compute) {
        return Ok(());
    }
    let from = types.result(py)?;
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
    threads::run_kernel(py, work, || out.dt.dispatch_compute(job))
}

/// One run of a plan, generic over the element type.
struct Job<'a> {
    plan: &'a EinsumPlan,
    inputs: &'a [Memory],
    out: &'a Memory,
    opts: RunOptions,
}

impl ForCompute for Job<'_> {
    type Out = Result<(), EinsumError>;

    fn run<T: Scalar + einrow::project::Storage>(self) -> Self::Out {
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
