//! `einrow.einsum`: numpy's einsum over numpy arrays read in place, written into a fresh
//! array or the caller's `out`.

use einrow::kernel::{RunOptions, Scalar};
use einrow::numpy::{EinsumError, EinsumPlan, PathOptions, StridedMut, StridedRef};
use einrow::tensor::Layout;
use numpy::{PyUntypedArray, PyUntypedArrayMethods};
use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use pyo3::types::{IntoPyDict, PyTuple};
use smallvec::SmallVec;

use crate::arrays::{holds_objects, self_overlap, Memory, NotInPlace};
use crate::cache::Planned;
use crate::converting::Converting;
use crate::dtypes::{of_descr, supported, Dt, ForCompute};
use crate::keywords::{Casting, Order};
use crate::operands::split_operands;
use crate::types::{self, Types};
use crate::{cache, dispatch, errors, keywords, np, order, path, threads};

/// The operands of one call.
pub type Arrays<'py> = SmallVec<[Bound<'py, PyUntypedArray>; 4]>;

/// numpy's `einsum`: `einsum('ij,jk->ik', a, b)` or `einsum(a, [0, 1], b, [1, 2], [0, 2])`.
///
/// Values, shapes and errors are numpy's (`optimize=False` results): broadcasting of size-1
/// axes and of `...`, repeated labels, the implicit output, a view when one operand is only
/// permuted or diagonalised, a numpy scalar for a 0-d result.
///
/// - `operands`: arrays (or what `numpy.asarray` reads, or objects offering DLPack: torch and
///   jax tensors on the CPU are read in place), any strides. float32, float64,
///   int64 and bool arrays are read in place; numpy's other integer types are computed in
///   int64 and the result cast back (the same values: numpy's integer arithmetic wraps);
///   float16 is computed in float32 and the result rounded back; operands of another common
///   type are converted as numpy promotes them; complex and object operands to compute are a
///   `TypeError`. One operand only permuted or diagonalised (no `out`) gives a view of it in
///   its own type, whatever that type (complex and objects included) and `dtype`, as numpy's.
/// - `out`: an array of the result's shape, written in place (any strides). As numpy, the
///   einsum is computed in the common type of the operands and `out` (bool operands into an
///   int64 `out` are summed as integers, float32 ones into a float64 `out` in float64); an
///   `out` that type does not cast to safely, or whose elements share memory, is refused.
/// - `optimize`: `False`/`None` (einrow's own order), `True`/`'greedy'`, `'optimal'`, `'dp'`,
///   `'auto'`, `['einsum_path', (0, 1), ...]` or `(strategy, memory_limit)` (a limit below
///   one element: one step over every operand, as numpy). Another name is accepted where
///   numpy plans nothing (one or two operands, no label summed), else `UnknownStrategyError`
///   (a `KeyError`, numpy's class).
/// - `dtype`: the type to compute in (operands cast to it by the `casting` rule, `out` cast
///   to and from it by the rule), as numpy's.
/// - `order`: the layout of a fresh result: `'C'`, `'F'`, `'A'` or `'K'` (default: as close
///   to the operands' as numpy's iterator lays it out).
/// - `casting`: `'no'`, `'equiv'`, `'safe'` (default), `'same_kind'` or `'unsafe'`, as numpy
///   (a narrowing conversion is numpy's own, made before the einsum).
///
/// The subscripts may be `str` or `bytes`. An argument whose type overrides numpy's
/// `__array_function__` (a duck array) hands the call to `numpy.einsum`, which dispatches it.
///
/// Raises `ShapeError` (a `ValueError`; a subclass per code) for subscripts that do not fit
/// the operands or an `out` that cannot be written, `TypeError` for arguments of the wrong
/// type. The GIL is released while large einsums run.
#[pyfunction]
#[pyo3(signature = (*operands, out = None, optimize = None, dtype = None, order = None, casting = None))]
#[allow(clippy::too_many_arguments)]
pub fn einsum<'py>(
    py: Python<'py>,
    operands: &Bound<'py, PyTuple>,
    out: Option<Bound<'py, PyAny>>,
    optimize: Option<&Bound<'py, PyAny>>,
    dtype: Option<&Bound<'py, PyAny>>,
    order: Option<&Bound<'py, PyAny>>,
    casting: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let given = [("out", out.as_ref()), ("optimize", optimize), ("dtype", dtype)];
    let given = [given[0], given[1], given[2], ("order", order), ("casting", casting)];
    if let Some(r) = dispatch::dispatched(py, "einsum", operands, &given)? {
        return Ok(r);
    }
    let (spec, objs) = split_operands(operands)?;
    let kw = Keywords {
        dtype: dtype.filter(|d| !d.is_none()).cloned(),
        order: keywords::order(py, order)?,
        casting: keywords::casting(py, casting)?,
    };
    let path = path::path_options(optimize)?;
    let out = out_array(out)?;
    let arrays: Arrays<'py> = objs.iter().map(np::as_array).collect::<PyResult<_>>()?;
    let (path, planned) = {
        let shapes: SmallVec<[&[usize]; 4]> = arrays.iter().map(|a| a.shape()).collect();
        let path = path.resolve(py, &spec, &shapes)?;
        let planned = cache::plan(&spec, &shapes, path.as_ref())
            .map_err(|e| errors::einsum_error(py, &spec, &e))?;
        (path, planned)
    };
    evaluate(py, &spec, path.as_ref(), &planned, arrays, out, &kw)
}

/// einsum's keywords other than `out` and `optimize`, read.
pub struct Keywords<'py> {
    /// The type to compute in (`None`: numpy's common type).
    pub dtype: Option<Bound<'py, PyAny>>,
    /// The layout of a fresh result.
    pub order: Order,
    /// The conversions allowed.
    pub casting: Casting,
}

impl Default for Keywords<'_> {
    fn default() -> Self {
        Keywords { dtype: None, order: Order::K, casting: Casting::Safe }
    }
}

/// einsum's `out`: `None`, or an array (numpy's `TypeError` for anything else).
pub fn out_array(out: Option<Bound<'_, PyAny>>) -> PyResult<Option<Bound<'_, PyUntypedArray>>> {
    match out {
        Some(o) if !o.is_none() => Ok(Some(o.cast_into::<PyUntypedArray>().map_err(|_| {
            PyTypeError::new_err("keyword parameter out must be an array for einsum")
        })?)),
        _ => Ok(None),
    }
}

/// Runs a planned einsum (`planned` for `spec` along `path` on the shapes of `arrays`) into a
/// fresh result or `out`, as [`einsum`] does.
pub fn evaluate<'py>(
    py: Python<'py>,
    spec: &str,
    path: Option<&PathOptions>,
    planned: &Planned,
    mut arrays: Arrays<'py>,
    out: Option<Bound<'py, PyUntypedArray>>,
    kw: &Keywords<'py>,
) -> PyResult<Bound<'py, PyAny>> {
    let fail = |e: EinsumError| errors::einsum_error(py, spec, &e);
    let plan = &planned.plan;
    let dtype = kw.dtype.as_ref();
    if out.is_none() {
        if let Some(view) = single_view(plan, &arrays, dtype).map_err(|e| e.into_py(fail))? {
            return Ok(view);
        }
    }
    if let Some(out) = &out {
        check_out(py, out, plan)?;
    }
    let layout = match out {
        None => order::memory_order(kw.order, plan.analysis(), &arrays),
        Some(_) => None,
    };
    let mut read: SmallVec<[Result<Memory, NotInPlace>; 4]> =
        arrays.iter().map(Memory::of).collect();
    let types = types::resolve(py, &arrays, &read, dtype, out.as_ref(), kw.casting)?;
    for (i, descr) in &types.narrowed {
        arrays[*i] = np::cast(&arrays[*i], descr)?;
        read[*i] = Memory::of(&arrays[*i]);
    }
    // Python objects numpy's `casting` did not convert to `dtype` first.
    if arrays.iter().any(holds_objects) {
        return Err(PyTypeError::new_err(format!(
            "einrow.einsum computes in {}; arrays of Python objects are not supported (give \
             `dtype` and `casting='unsafe'` to convert them)",
            supported()
        )));
    }
    // Operands or a result of another type than the computation's: converted piece by piece.
    let other = |r: &Result<Memory, NotInPlace>| matches!(r, Ok(m) if m.dt != types.compute);
    let converts = types.cast_to.is_some() || read.iter().any(other);
    let mems = readable(&mut arrays, read, types.compute, converts)?;
    let converting = Converting { spec, path, work: planned.work, inputs: &mems };
    let job =
        Run { plan, work: planned.work, inputs: &mems, converting: converts.then_some(converting) };
    match out {
        None => job.fresh_result(py, &types, layout.as_deref()).map_err(|e| e.into_py(fail)),
        Some(out) => job.write_out(py, &types, &out).map_err(|e| e.into_py(fail)),
    }
}

/// An error of the engine (rendered against the subscripts) or of Python.
enum Failed {
    Einsum(EinsumError),
    Py(PyErr),
}

impl Failed {
    fn into_py(self, einsum: impl FnOnce(EinsumError) -> PyErr) -> PyErr {
        match self {
            Failed::Einsum(e) => einsum(e),
            Failed::Py(e) => e,
        }
    }
}

impl From<EinsumError> for Failed {
    fn from(e: EinsumError) -> Failed {
        Failed::Einsum(e)
    }
}

impl From<PyErr> for Failed {
    fn from(e: PyErr) -> Failed {
        Failed::Py(e)
    }
}

/// numpy's view of a lone operand that is only permuted or diagonalised: its memory in its
/// own type (any type, any byte order, any strides), writeable when it is; a numpy scalar when
/// 0-d. numpy makes it whatever `dtype` asks once `dtype` names a type; with `out` there is no
/// view (the caller's concern).
fn single_view<'py>(
    plan: &EinsumPlan,
    arrays: &[Bound<'py, PyUntypedArray>],
    dtype: Option<&Bound<'py, PyAny>>,
) -> Result<Option<Bound<'py, PyAny>>, Failed> {
    let [only] = arrays else { return Ok(None) };
    // Strides in bytes: a view's strides are sums of the operand's, in any unit.
    let Some(strides) = plan.view_strides(only.strides())? else { return Ok(None) };
    if let Some(d) = dtype.filter(|d| !d.is_none()) {
        np::DTYPE.get(only.py())?.call1((d,))?;
    }
    let view = np::view(only, plan.output_shape(), &strides)?;
    Ok(Some(if view.ndim() == 0 { np::scalar(view)? } else { view.into_any() }))
}

/// The operands as the kernel reads them: each read in place when it is readable and of `dt`
/// (or of any storage type, when the einsum `converts` piece by piece), else a copy in `dt`
/// (a foreign byte order, misaligned data), which replaces it in `arrays`, keeping it alive.
fn readable<'py>(
    arrays: &mut Arrays<'py>,
    read: SmallVec<[Result<Memory, NotInPlace>; 4]>,
    dt: Dt,
    converts: bool,
) -> PyResult<SmallVec<[Memory; 4]>> {
    let mut mems = SmallVec::with_capacity(arrays.len());
    for (a, r) in arrays.iter_mut().zip(read) {
        let m = match r {
            Ok(m) if m.dt == dt || converts => m,
            _ => {
                *a = np::readable_copy(a, dt)?;
                Memory::of(a)
                    .map_err(|_| PyTypeError::new_err("numpy returned an unreadable copy"))?
            }
        };
        mems.push(m);
    }
    Ok(mems)
}

/// A planned einsum on operands read in the compute type, or each in its own type when it
/// converts piece by piece.
struct Run<'a> {
    plan: &'a EinsumPlan,
    work: u128,
    inputs: &'a [Memory],
    converting: Option<Converting<'a>>,
}

impl Run<'_> {
    /// The result in a fresh array of numpy's result type (a scalar when 0-d), its axes laid
    /// out in `layout` (fastest first; `None`: C order).
    fn fresh_result<'py>(
        &self,
        py: Python<'py>,
        types: &Types<'py>,
        layout: Option<&[usize]>,
    ) -> Result<Bound<'py, PyAny>, Failed> {
        // numpy's result type, written directly when the einsum converts and einrow stores it.
        let stored =
            types.cast_to.as_ref().and_then(|d| of_descr(d).filter(|_| self.converting.is_some()));
        let dt = stored.unwrap_or(types.compute);
        let mut result = self.apart(py, dt, types.compute, layout)?;
        if let (Some(to), None) = (&types.cast_to, stored) {
            // `astype` keeps the layout (its order is `K`).
            let cast = result.call_method1("astype", (to,))?;
            result = cast.cast_into::<PyUntypedArray>().map_err(PyErr::from)?;
        }
        Ok(if result.ndim() == 0 { np::scalar(result)? } else { result.into_any() })
    }

    /// The result written into `out` (checked by [`check_out`] and [`types::resolve`]).
    fn write_out<'py>(
        &self,
        py: Python<'py>,
        types: &Types<'py>,
        out: &Bound<'py, PyUntypedArray>,
    ) -> Result<Bound<'py, PyAny>, Failed> {
        match Memory::of(out) {
            Ok(target)
                if (self.converting.is_some()
                    || (target.dt == types.compute && types.cast_to.is_none()))
                    && !self.inputs.iter().any(|m| m.overlaps(&target)) =>
            {
                self.run_into(py, &target, types.compute)?;
            }
            // Computed in another type than `out`'s own (a narrower integer type computed in
            // int64, float16 in float32, a complex or object type in a real one), a layout
            // the kernel cannot write, or memory shared with an operand: computed apart, then
            // copied in. `out` is of numpy's computed type, so the cast is the one numpy's
            // result would take.
            _ => {
                let result = self.apart(py, types.compute, types.compute, None)?;
                let unsafe_cast = [("casting", "unsafe")].into_py_dict(py)?;
                np::COPYTO.get(py)?.call((out, &result), Some(&unsafe_cast))?;
            }
        }
        Ok(out.clone().into_any())
    }

    /// The result computed in `compute` into a fresh array of `dt` (the compute type unless
    /// the einsum converts), laid out in `layout` (fastest first; `None`: C order).
    fn apart<'py>(
        &self,
        py: Python<'py>,
        dt: Dt,
        compute: Dt,
        layout: Option<&[usize]>,
    ) -> Result<Bound<'py, PyUntypedArray>, Failed> {
        let shape = self.plan.output_shape();
        let strides = layout.map(|l| order::strides_for(shape, l, dt.itemsize()));
        let result = np::empty_strided(py, dt, shape, strides.as_deref())?;
        let target = Memory::of(&result).map_err(|_| PyTypeError::new_err("unreadable result"))?;
        self.run_into(py, &target, compute)?;
        Ok(result)
    }

    /// Computes in `compute` into `target` (of the compute type unless the einsum converts).
    fn run_into(&self, py: Python<'_>, target: &Memory, compute: Dt) -> Result<(), EinsumError> {
        match &self.converting {
            Some(c) => c.run(py, target, compute),
            None => run(py, self.plan, self.work, self.inputs, target),
        }
    }
}

/// Checks `out` before anything is computed: writeable, of the result's shape, no two
/// elements sharing memory (its type is checked with the computation's, [`types::resolve`]).
fn check_out<'py>(
    py: Python<'py>,
    out: &Bound<'py, PyUntypedArray>,
    plan: &EinsumPlan,
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
    match self_overlap(out) {
        Some(o) => Err(errors::overlap_error(py, &o, false)),
        None => Ok(()),
    }
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
