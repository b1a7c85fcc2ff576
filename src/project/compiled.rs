//! [`Executable`]: an [`IndexPlan`] lowered once onto kernel nests, then run as often as
//! wanted on a caller's buffers, in any storage type ([`Storage`]).
//!
//! Lowering follows the table in `kernel/nest.rs`: each result and operand axis index becomes
//! strides and an offset over the buffer's layout (row-major, memory order batch, output,
//! input), a padded axis a guard whose failing points read the accumulation's neutral
//! element. A concatenation lowers to one nest per component. The nests of contiguous buffers
//! are built at compile time; a call on strided views re-derives only their strides and
//! offsets, in place, in scratch space the executable keeps.

use std::sync::Mutex;

use smallvec::SmallVec;

use super::error::ProjectError;
use super::plan::{Index, IndexPlan, PlanPart};
use super::storage::Storage;
use super::view::{Strided, View, ViewMut};
use crate::kernel::{
    Access, Accum, AxisIndex, Combine, Init, KernelError, Nest, Prepared, RunOptions,
};
use crate::tensor::Layout;

/// Plan sizes as memory sizes (checked).
fn usize_dims(dims: &[u64]) -> Result<Vec<usize>, ProjectError> {
    dims.iter()
        .map(|d| usize::try_from(*d).map_err(|_| ProjectError::TooLarge(format!("size {d}"))))
        .collect()
}

/// A plan's axis index as the kernel's.
fn axis_index(i: &Index) -> AxisIndex {
    match i {
        Index::Iter(l) => AxisIndex::Iter(*l),
        Index::Fixed(n) => AxisIndex::Fixed(i64::try_from(*n).unwrap_or(i64::MAX)),
        Index::Affine { terms, offset, padded } => AxisIndex::Affine {
            terms: terms.iter().map(|(c, l)| (*c as isize, *l)).collect(),
            offset: *offset as isize,
            padded: *padded,
        },
    }
}

/// Checks that a part reads operands of the plan (`count` of them), each once, by increasing
/// number (as [`PlanPart::operands`] lists them).
fn check_reads(part: &PlanPart, count: usize) -> Result<(), ProjectError> {
    let mut next = 0;
    for k in part.reads() {
        if k < next || k >= count {
            let msg = format!(
                "a part reads operand {k} out of order or out of the plan's {count} operands"
            );
            return Err(ProjectError::Misaligned(msg));
        }
        next = k + 1;
    }
    Ok(())
}

/// One nest of an executable, with what it needs to be re-aimed at other layouts.
#[derive(Clone, Debug)]
struct Part {
    /// The nest over contiguous buffers, prepared for them.
    nest: Prepared,
    /// The index of each result axis.
    result: Vec<AxisIndex>,
    /// For each input of the nest: the operand it reads and the index of each of its axes.
    inputs: Vec<(usize, Vec<AxisIndex>)>,
}

/// Scratch space of the calls that need some: nests re-aimed at strided views, buffers of
/// the compute type for storage types computed in another.
#[derive(Debug, Default)]
pub(super) struct Scratch {
    pub nests: Vec<Nest>,
    pub f32s: Vec<Vec<f32>>,
    pub f64s: Vec<Vec<f64>>,
    pub i64s: Vec<Vec<i64>>,
}

/// A compiled plan: [`Executable::run`] on contiguous slices, [`Executable::run_views`] on
/// strided views, in any storage type ([`Storage`]; each computed in its
/// [compute type](crate::tensor::DType::compute_dtype), as everywhere in einrow). Once
/// compiled, a call on contiguous slices of a compute type (f32, f64, i64, bool) allocates
/// nothing; other calls reuse scratch space kept by the executable (one call at a time uses
/// it; a concurrent call makes its own). Two kernel paths still allocate per call: a view
/// strided along a nest's innermost loop is gathered in blocks (buffers of 256 elements), and
/// a contraction large enough for the `gemm` crate (4096 multiply-adds by default) lists its
/// outer loops. Small nests run on the kernel's lean path ([`crate::kernel::Prepared`]).
///
/// ```
/// use einrow::project::{plan_einsum, Concrete, Executable};
///
/// let plan = plan_einsum("ij;jk=>ik", &[&Concrete::output(&[2, 3]), &Concrete::output(&[3, 2])])?;
/// let exe = Executable::compile(&plan)?;
/// let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// let b = [1.0f32, 0.0, 0.0, 1.0, 1.0, 1.0];
/// let mut c = [0.0f32; 4];
/// exe.run(&[&a, &b], &mut c)?;
/// assert_eq!(c, [4.0, 5.0, 10.0, 11.0]);
///
/// // The same plan in bf16; a buffer of the wrong length is an `elems` error.
/// let (a16, b16) = (a.map(half::bf16::from_f32), b.map(half::bf16::from_f32));
/// let mut c16 = [half::bf16::ZERO; 4];
/// exe.run(&[&a16, &b16], &mut c16)?;
/// assert_eq!(c16.map(f32::from), [4.0, 5.0, 10.0, 11.0]);
/// let err = exe.run(&[&a[..5], &b], &mut c).unwrap_err();
/// assert_eq!(einrow::Coded::code(&err), einrow::ErrorCode::Elems);
/// # Ok::<(), einrow::project::ProjectError>(())
/// ```
#[derive(Debug)]
pub struct Executable {
    result_dims: Vec<u64>,
    operand_dims: Vec<Vec<u64>>,
    result_len: usize,
    operand_lens: Vec<usize>,
    parts: Vec<Part>,
    /// The accumulation's neutral element (0 for a plain store): what the result holds where
    /// no point writes, and what padded reads yield.
    fill: f64,
    /// Whether the whole result is set to `fill` before the nests run (a plan that does not
    /// write every element exactly once).
    fill_first: bool,
    /// Whether the plan adds into what its result holds ([`Executable::compile_accumulating`]).
    accumulate: bool,
    opts: RunOptions,
    scratch: Mutex<Scratch>,
}

impl Clone for Executable {
    fn clone(&self) -> Executable {
        Executable {
            result_dims: self.result_dims.clone(),
            operand_dims: self.operand_dims.clone(),
            result_len: self.result_len,
            operand_lens: self.operand_lens.clone(),
            parts: self.parts.clone(),
            fill: self.fill,
            fill_first: self.fill_first,
            accumulate: self.accumulate,
            opts: self.opts,
            scratch: Mutex::new(Scratch::default()),
        }
    }
}

impl IndexPlan {
    /// Compiles the plan ([`Executable::compile`]).
    pub fn compile(&self) -> Result<Executable, ProjectError> {
        Executable::compile(self)
    }
}

impl Executable {
    /// Lowers a plan onto kernel nests over contiguous buffers.
    pub fn compile(plan: &IndexPlan) -> Result<Executable, ProjectError> {
        Executable::lower(plan, false)
    }

    /// Lowers a plan that adds into its result instead of overwriting it: nothing is filled
    /// first, and every point accumulates (`+=` over what the buffer holds). What gradient
    /// plans of a tensor read by several steps run with: each adds its share.
    ///
    /// ```
    /// use einrow::project::{plan_einsum, Concrete, Executable};
    /// let plan = plan_einsum("i;i=>i", &[&Concrete::output(&[2]), &Concrete::output(&[2])])?;
    /// let adds = Executable::compile_accumulating(&plan)?;
    /// let mut acc = [10.0f64, 20.0];
    /// adds.run(&[&[1.0, 2.0], &[3.0, 4.0]], &mut acc)?;
    /// assert_eq!(acc, [13.0, 28.0]);
    /// # Ok::<(), einrow::project::ProjectError>(())
    /// ```
    pub fn compile_accumulating(plan: &IndexPlan) -> Result<Executable, ProjectError> {
        if plan.accum != Accum::Add {
            let accum = super::plan::accum_text(plan.accum);
            let message = format!("a plan accumulates into its result with `+=`, not `{accum}`");
            return Err(KernelError::Unsupported { message }.into());
        }
        Executable::lower(plan, true)
    }

    fn lower(plan: &IndexPlan, accumulate: bool) -> Result<Executable, ProjectError> {
        let result = usize_dims(&plan.result_dims)?;
        let out_layout = Layout::contiguous(&result).map_err(KernelError::from)?;
        let layouts: Vec<Layout> = plan
            .operand_dims
            .iter()
            .map(|d| Layout::contiguous(&usize_dims(d)?).map_err(|e| KernelError::from(e).into()))
            .collect::<Result<_, ProjectError>>()?;
        let fill = plan.accum.neutral().unwrap_or(0.0);
        // Recomputed, not read from `plan.bijective`: a plan's fields are public.
        let fill_first = !accumulate && !plan.writes_each_once();
        let init = if fill_first || accumulate { Init::No } else { Init::Touched };
        let mut parts = Vec::with_capacity(plan.parts.len());
        for part in &plan.parts {
            check_reads(part, layouts.len())?;
            let extents = usize_dims(&part.loops.iter().map(|l| l.size).collect::<Vec<_>>())?;
            let loops = extents.len();
            let result: Vec<AxisIndex> = part.result.iter().map(axis_index).collect();
            let output = Access::project(&out_layout, &result, loops)?;
            let mut inputs = Vec::new();
            let mut accesses = Vec::new();
            for read in &part.operands {
                let i = read.operand;
                let axes: Vec<AxisIndex> = read.index.iter().map(axis_index).collect();
                let mut access = Access::project(&layouts[i], &axes, loops)?;
                // A padded read yields the accumulation's neutral element (OCANNL's
                // `padding_elem`): 0 for `+`, 1 for `*`, -inf for max.
                access.fill = fill;
                accesses.push(access);
                inputs.push((i, axes));
            }
            let combine = if accesses.len() == 1 { Combine::First } else { plan.combine };
            let nest = Nest { extents, output, inputs: accesses, accum: plan.accum, combine, init };
            let lens: SmallVec<[usize; 4]> =
                inputs.iter().map(|(i, _)| layouts[*i].numel()).collect();
            let nest = nest.prepare(&lens, out_layout.numel())?;
            parts.push(Part { nest, result, inputs });
        }
        let operand_lens = layouts.iter().map(Layout::numel).collect();
        Ok(Executable {
            result_dims: plan.result_dims.clone(),
            operand_dims: plan.operand_dims.clone(),
            result_len: out_layout.numel(),
            operand_lens,
            parts,
            fill,
            fill_first,
            accumulate,
            opts: RunOptions::default(),
            scratch: Mutex::new(Scratch::default()),
        })
    }

    /// The same executable with other kernel options (threads, GEMM dispatch).
    pub fn with_options(mut self, opts: RunOptions) -> Executable {
        self.opts = opts;
        self
    }

    /// The result's sizes, in memory order.
    pub fn result_dims(&self) -> &[u64] {
        &self.result_dims
    }

    /// Each operand's sizes, in memory order.
    pub fn operand_dims(&self) -> &[Vec<u64>] {
        &self.operand_dims
    }

    /// Runs the plan on contiguous operand slices (memory order) into `output`, which it
    /// overwrites. Errors (coded): an operand count other than the plan's (`arity`), a slice
    /// of the wrong length (`elems`).
    pub fn run<T: Storage>(&self, inputs: &[&[T]], output: &mut [T]) -> Result<(), ProjectError> {
        self.run_with(inputs, output, &self.opts)
    }

    /// [`run`](Executable::run) with kernel options for this call only (threads, GEMM
    /// dispatch) instead of the executable's own.
    ///
    /// ```
    /// use einrow::kernel::RunOptions;
    /// use einrow::project::{plan_einsum, Concrete, Executable};
    ///
    /// let plan = plan_einsum("ij;j=>i", &[&Concrete::output(&[2, 2]), &Concrete::output(&[2])])?;
    /// let exe = Executable::compile(&plan)?;
    /// let one_thread = RunOptions { threads: 1, ..RunOptions::default() };
    /// let mut out = [0.0f64; 2];
    /// exe.run_with(&[&[1.0, 2.0, 3.0, 4.0], &[1.0, 1.0]], &mut out, &one_thread)?;
    /// assert_eq!(out, [3.0, 7.0]);
    /// # Ok::<(), einrow::project::ProjectError>(())
    /// ```
    pub fn run_with<T: Storage>(
        &self,
        inputs: &[&[T]],
        output: &mut [T],
        opts: &RunOptions,
    ) -> Result<(), ProjectError> {
        self.check_lens(inputs, output.len())?;
        T::run_contiguous(self, inputs, output, opts)
    }

    /// Runs the plan on strided views of the operands into a strided view of the result
    /// (which it overwrites), without copying f32 or f64 data. Errors (coded): an operand
    /// count other than the plan's (`arity`), a view of other sizes than the plan's
    /// (`elems`).
    ///
    /// ```
    /// use einrow::project::{plan_einsum, Concrete, Executable, View, ViewMut};
    ///
    /// let plan = plan_einsum("ij;j=>i", &[&Concrete::output(&[2, 3]), &Concrete::output(&[3])])?;
    /// let exe = Executable::compile(&plan)?;
    /// // A 2x3 matrix read from the transpose of a 3x2 buffer, a vector read every other element.
    /// let m = [1.0f64, 4.0, 2.0, 5.0, 3.0, 6.0];
    /// let v = [1.0f64, -1.0, 1.0, -1.0, 1.0];
    /// let mut out = [0.0f64; 4];
    /// exe.run_views(
    ///     &[View::strided(&m, &[2, 3], &[1, 2], 0)?, View::strided(&v, &[3], &[2], 0)?],
    ///     &mut ViewMut::strided(&mut out, &[2], &[2], 1)?,
    /// )?;
    /// assert_eq!(out, [0.0, 6.0, 0.0, 15.0]);
    /// # Ok::<(), einrow::project::ProjectError>(())
    /// ```
    pub fn run_views<T: Storage>(
        &self,
        inputs: &[View<'_, T>],
        output: &mut ViewMut<'_, T>,
    ) -> Result<(), ProjectError> {
        self.run_views_with(inputs, output, &self.opts)
    }

    /// [`run_views`](Executable::run_views) with kernel options for this call only.
    pub fn run_views_with<T: Storage>(
        &self,
        inputs: &[View<'_, T>],
        output: &mut ViewMut<'_, T>,
        opts: &RunOptions,
    ) -> Result<(), ProjectError> {
        self.check_arity(inputs.len())?;
        for (i, (v, want)) in inputs.iter().zip(&self.operand_dims).enumerate() {
            if !v.layout.has_sizes(want) {
                return Err(wrong_sizes(&format!("operand {i}"), &v.sizes(), want));
            }
        }
        if !output.layout.has_sizes(&self.result_dims) {
            return Err(wrong_sizes("the result", &output.sizes(), &self.result_dims));
        }
        T::run_views(self, inputs, output, opts)
    }

    fn check_arity(&self, n: usize) -> Result<(), ProjectError> {
        if n == self.operand_dims.len() {
            return Ok(());
        }
        Err(KernelError::Arity { expected: self.operand_dims.len(), got: n }.into())
    }

    fn check_lens<T>(&self, inputs: &[&[T]], out: usize) -> Result<(), ProjectError> {
        self.check_arity(inputs.len())?;
        let lens = inputs.iter().map(|i| i.len()).chain([out]);
        let want = self.operand_lens.iter().copied().chain([self.result_len]);
        for (k, (got, want)) in lens.zip(want).enumerate() {
            if got != want {
                let what = match k {
                    _ if k == inputs.len() => "the result".to_string(),
                    _ => format!("operand {k}"),
                };
                let dims = self.operand_dims.get(k).unwrap_or(&self.result_dims);
                return Err(ProjectError::Data(format!(
                    "{what} has {got} elements; the plan's sizes {dims:?} hold {want}"
                )));
            }
        }
        Ok(())
    }

    /// Runs the compiled nests on contiguous buffers of a compute type.
    pub(super) fn run_direct<T: crate::kernel::Scalar>(
        &self,
        inputs: &[&[T]],
        output: &mut [T],
        opts: &RunOptions,
    ) -> Result<(), ProjectError> {
        if self.fill_first {
            output.fill(T::from_fill(self.fill));
        }
        for part in &self.parts {
            let bufs: SmallVec<[&[T]; 4]> = part.inputs.iter().map(|(i, _)| inputs[*i]).collect();
            part.nest.run(&bufs, output, opts)?;
        }
        Ok(())
    }

    /// Runs the nests re-aimed at strided views of a compute type, in `scratch`.
    pub(super) fn run_strided<T: crate::kernel::Scalar>(
        &self,
        scratch: &mut Scratch,
        inputs: &[(&[T], &Strided)],
        output: (&mut [T], &Strided),
        opts: &RunOptions,
    ) -> Result<(), ProjectError> {
        let (out, out_layout) = output;
        if self.fill_first {
            let fill = T::from_fill(self.fill);
            out_layout.for_each_address(|a| out[a] = fill);
        }
        scratch.nests.resize_with(self.parts.len(), empty_nest);
        for (part, nest) in self.parts.iter().zip(&mut scratch.nests) {
            copy_nest(nest, part.nest.nest());
            aim(&mut nest.output, out_layout, &part.result)?;
            for (access, (i, axes)) in nest.inputs.iter_mut().zip(&part.inputs) {
                aim(access, inputs[*i].1, axes)?;
            }
            let bufs: SmallVec<[&[T]; 4]> = part.inputs.iter().map(|(i, _)| inputs[*i].0).collect();
            nest.run_lean_or_general(&bufs, out, opts)?;
        }
        Ok(())
    }

    /// The scratch space, or a fresh one while another call holds it.
    pub(super) fn with_scratch<R>(&self, f: impl FnOnce(&mut Scratch) -> R) -> R {
        match self.scratch.try_lock() {
            Ok(mut s) => f(&mut s),
            Err(_) => f(&mut Scratch::default()),
        }
    }

    /// The value the result starts from where the plan fills it: the accumulation's neutral
    /// element (±∞ for a maximum or minimum).
    pub(super) fn fill_value(&self) -> f64 {
        self.fill
    }

    /// Whether the executable adds into what its result holds.
    pub fn accumulates(&self) -> bool {
        self.accumulate
    }

    /// The number of elements of each operand and of the result.
    pub(super) fn lens(&self) -> (&[usize], usize) {
        (&self.operand_lens, self.result_len)
    }
}

/// A nest with no loops and no inputs, to be overwritten by [`copy_nest`].
fn empty_nest() -> Nest {
    Nest {
        extents: Vec::new(),
        output: Access::new(0, Vec::new()),
        inputs: Vec::new(),
        accum: Accum::Add,
        combine: Combine::First,
        init: Init::No,
    }
}

/// Copies `src` into `dst`, reusing `dst`'s buffers.
fn copy_nest(dst: &mut Nest, src: &Nest) {
    dst.extents.clone_from(&src.extents);
    copy_access(&mut dst.output, &src.output);
    dst.inputs.truncate(src.inputs.len());
    for (d, s) in dst.inputs.iter_mut().zip(&src.inputs) {
        copy_access(d, s);
    }
    for s in &src.inputs[dst.inputs.len()..] {
        dst.inputs.push(s.clone());
    }
    dst.accum = src.accum;
    dst.combine = src.combine;
    dst.init = src.init;
}

fn copy_access(dst: &mut Access, src: &Access) {
    dst.offset = src.offset;
    dst.strides.clone_from(&src.strides);
    dst.guards.clone_from(&src.guards);
    dst.fill = src.fill;
}

/// Sets an access's strides and offset for an operand laid out as `layout` whose axes are
/// indexed by `index` (as `Access::project` does; guards depend on the sizes only, which the
/// view was checked to share with the plan).
fn aim(access: &mut Access, layout: &Strided, index: &[AxisIndex]) -> Result<(), KernelError> {
    let ovf = |what| KernelError::Overflow { what };
    access.strides.iter_mut().for_each(|s| *s = 0);
    let mut offset = isize::try_from(layout.offset).map_err(|_| ovf("an offset"))?;
    for (ix, &sigma) in index.iter().zip(&layout.strides) {
        let mut add = |d: usize, s: isize| -> Result<(), KernelError> {
            let slot = access.strides.get_mut(d).ok_or(ovf("a loop"))?;
            *slot = slot.checked_add(s).ok_or(ovf("a stride"))?;
            Ok(())
        };
        match ix {
            AxisIndex::Iter(d) => add(*d, sigma)?,
            AxisIndex::Fixed(n) => {
                let n = isize::try_from(*n).map_err(|_| ovf("a fixed index"))?;
                let delta = n.checked_mul(sigma).ok_or(ovf("an offset"))?;
                offset = offset.checked_add(delta).ok_or(ovf("an offset"))?;
            }
            AxisIndex::Affine { terms, offset: c, .. } => {
                for &(k, d) in terms {
                    add(d, k.checked_mul(sigma).ok_or(ovf("a stride"))?)?;
                }
                let delta = c.checked_mul(sigma).ok_or(ovf("an offset"))?;
                offset = offset.checked_add(delta).ok_or(ovf("an offset"))?;
            }
        }
    }
    access.offset = offset;
    Ok(())
}

fn wrong_sizes(what: &str, got: &[u64], want: &[u64]) -> ProjectError {
    ProjectError::Data(format!("{what} is a view of sizes {got:?}; the plan's are {want:?}"))
}
