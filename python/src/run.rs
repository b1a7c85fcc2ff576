//! A compiled plan run on numpy arrays: the operands read in place (any strides) when the
//! kernel can read them, the result written into a fresh array or the caller's `out`, the GIL
//! released for large work. Every element type einrow stores runs (bool, int8 to int64,
//! uint8, float16, bfloat16, float32, float64), each computed as the crate computes it:
//! narrower integers in int64 and float16/bfloat16 in float32, the result written back in
//! the arrays' type.

use std::sync::Arc;

use einrow::project::{Executable, IndexPlan, ProjectError, Storage, View, ViewMut};
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use smallvec::SmallVec;

use crate::arrays::{array_flags, element_type, holds_objects, self_overlap, Memory, NotInPlace};
use crate::dtypes::{all_supported, Dt, ForType};
use crate::{errors, np, threads};

/// A compiled plan and the work it does per run (points of its loop nests), which decides
/// whether the GIL is released.
#[derive(Clone)]
pub struct Compiled {
    /// The executable (shared by the steps of a graph with the same plan).
    pub exe: Arc<Executable>,
    /// Points of the loop nests.
    pub work: u128,
    /// The plan compiled (what the executable pickles as).
    pub plan: Arc<IndexPlan>,
}

impl Compiled {
    /// Compiles `plan`.
    pub fn compile(plan: &IndexPlan) -> Result<Compiled, ProjectError> {
        let exe = Arc::new(Executable::compile(plan)?);
        Ok(Compiled { exe, work: work_of(plan), plan: Arc::new(plan.clone()) })
    }

    /// Runs on `operands` into `out` (a fresh array when `None`), which it overwrites and
    /// returns. Errors: operands of several element types or of one einrow does not run in
    /// (`DTypeError`), a count or shape other than the plan's (`ArityError`, `ElemsError`),
    /// a read-only `out` or one whose elements share memory (`BadValueError`).
    pub fn run<'py>(
        &self,
        py: Python<'py>,
        mut arrays: SmallVec<[Bound<'py, PyUntypedArray>; 4]>,
        out: Option<Bound<'py, PyUntypedArray>>,
    ) -> PyResult<Bound<'py, PyUntypedArray>> {
        let dt = common_type(py, &arrays, out.as_ref())?;
        let mut mems: SmallVec<[Memory; 4]> = SmallVec::new();
        for a in arrays.iter_mut() {
            let m = match Memory::of(a) {
                Ok(m) => m,
                // A foreign byte order, misaligned data: numpy copies it into a readable array.
                Err(_) => {
                    *a = np::readable_copy(a, dt)?;
                    Memory::of(a).map_err(|_| PyTypeError::new_err("unreadable copy"))?
                }
            };
            mems.push(m);
        }
        let target = |arr: &Bound<'py, PyUntypedArray>| -> PyResult<Option<Memory>> {
            match Memory::of(arr) {
                Ok(m) if !mems.iter().any(|i| i.overlaps(&m)) => Ok(Some(m)),
                Ok(_) | Err(NotInPlace::Layout) => Ok(None),
                Err(NotInPlace::DType) => Err(PyTypeError::new_err("unreadable output")),
            }
        };
        let fail = |e: ProjectError| errors::project_error(py, None, &e);
        let shape: Vec<usize> = self.exe.result_dims().iter().map(|&d| d as usize).collect();
        let Some(out) = out else {
            let result = np::empty(py, dt, &shape)?;
            let m = target(&result)?.ok_or_else(|| PyTypeError::new_err("unreadable result"))?;
            self.run_on(py, &mems, &m).map_err(fail)?;
            return Ok(result);
        };
        if array_flags(&out) & numpy::npyffi::NPY_ARRAY_WRITEABLE == 0 {
            let msg = "the output array is read-only".to_string();
            return Err(errors::value_error(py, einrow::ErrorCode::Value, msg));
        }
        // Refused before anything runs: the copy below would write it as well.
        if let Some(o) = self_overlap(&out) {
            return Err(errors::overlap_error(py, &o, true));
        }
        match target(&out)? {
            Some(m) => self.run_on(py, &mems, &m).map_err(fail)?,
            // Memory shared with an operand, or a layout the kernel cannot write: computed
            // apart, then copied in.
            None => {
                if out.shape() != shape.as_slice() {
                    let msg = format!(
                        "the output has shape {:?} but the plan's result {:?}",
                        out.shape(),
                        shape
                    );
                    return Err(errors::value_error(py, einrow::ErrorCode::Elems, msg));
                }
                let result = np::empty(py, dt, &shape)?;
                let m =
                    target(&result)?.ok_or_else(|| PyTypeError::new_err("unreadable result"))?;
                self.run_on(py, &mems, &m).map_err(fail)?;
                np::COPYTO.get(py)?.call1((&out, &result))?;
            }
        }
        Ok(out)
    }

    fn run_on(&self, py: Python<'_>, inputs: &[Memory], out: &Memory) -> Result<(), ProjectError> {
        let job = Job { exe: &self.exe, inputs, out };
        threads::run_kernel(py, self.work, || out.dt.dispatch(job))
    }
}

/// The points of a plan's loop nests.
fn work_of(plan: &IndexPlan) -> u128 {
    plan.parts.iter().fold(0u128, |sum, p| {
        let points = p.loops.iter().fold(1u128, |n, l| n.saturating_mul(l.size as u128));
        sum.saturating_add(points)
    })
}

/// The one element type of the operands and `out` (the crate's plans run on buffers of one
/// type, as [`einrow::project::AnyView`] checks).
pub fn common_type(
    py: Python<'_>,
    arrays: &[Bound<'_, PyUntypedArray>],
    out: Option<&Bound<'_, PyUntypedArray>>,
) -> PyResult<Dt> {
    let all = || arrays.iter().chain(out);
    let mut found: Option<Dt> = None;
    for a in all() {
        match (element_type(a), found) {
            (None, _) => {
                let what =
                    if holds_objects(a) { "Python objects".into() } else { a.dtype().to_string() };
                let msg = format!(
                    "a compiled plan runs on arrays of {}; got an array of {what}: convert it \
                     first (for example `a.astype(numpy.float32)`)",
                    all_supported()
                );
                return Err(errors::dtype_error(py, msg));
            }
            (Some(dt), Some(f)) if dt != f => {
                let types: Vec<String> = all().map(|a| a.dtype().to_string()).collect();
                let msg = format!(
                    "a compiled plan runs on arrays of one element type; got {}: convert them \
                     to one first",
                    types.join(", ")
                );
                return Err(errors::dtype_error(py, msg));
            }
            (Some(dt), _) => found = Some(dt),
        }
    }
    Ok(found.unwrap_or(Dt::F64))
}

/// One run of an executable, generic over the element type.
struct Job<'a> {
    exe: &'a Executable,
    inputs: &'a [Memory],
    out: &'a Memory,
}

impl ForType for Job<'_> {
    type Out = Result<(), ProjectError>;

    fn run<T: Storage>(self) -> Self::Out {
        let sizes = |m: &Memory| m.shape.iter().map(|&d| d as u64).collect::<SmallVec<[u64; 6]>>();
        let mut views: SmallVec<[View<'_, T>; 4]> = SmallVec::with_capacity(self.inputs.len());
        for m in self.inputs {
            // SAFETY: the arrays are held by the caller for the call and are of `T` (one
            // element type, checked by the caller); the output shares no byte with any
            // operand (checked by the caller).
            let data = unsafe { m.slice::<T>() };
            views.push(View::strided(data, &sizes(m), &m.strides, m.offset)?);
        }
        let o = self.out;
        // SAFETY: as above; the output array is writeable (checked by the caller).
        let data = unsafe { o.slice_mut::<T>() };
        let mut out = ViewMut::strided(data, &sizes(o), &o.strides, o.offset)?;
        // The thread count set from Python (`einrow.set_num_threads`) holds for compiled
        // plans too.
        self.exe.run_views_with(&views, &mut out, &crate::threads::run_options())
    }
}
