//! Einsum over operands of another element type than the one it computes in (int8 in int64,
//! float16 in float32), converted piece by piece as numpy's buffered iterator does: no
//! operand, and no result, is ever converted whole.
//!
//! The labels are cut into chunks, halving the longest label of the largest piece until every
//! piece holds at most [`CONVERT_BLOCK`] elements: each converted operand's piece (its axes of
//! stride 0, a broadcast, count once) and the result's. The result's chunks are taken one at
//! a time; within each, the summed labels' chunks are contracted in turn and added up in the
//! compute type, then the chunk is written to the result in its own type. Operands already of
//! the compute type are read where they are.

use std::collections::HashMap;

use super::any_strided::{compact, compact_len, AnyStridedMut, AnyStridedRef, Pick};
use super::error::EinsumError;
use super::path::PathOptions;
use super::shapes::{analyze, Analysis};
use super::views::{EinsumPlan, StridedMut, StridedRef};
use crate::kernel::RunOptions;
use crate::spec::parse_numpy;
use crate::tensor::{Complex128, Complex64, DType, Layout, Tensor, TensorError};

/// Most elements of an operand or a result converted at a time (32 MiB of int64).
pub const CONVERT_BLOCK: usize = 1 << 22;

/// Most distinct chunk shapes planned in one call (each is planned once).
const MAX_PLANS: usize = 64;

/// numpy's einsum of `spec` on `inputs` (each of its own element type) into `out` (of its
/// own), computed in `compute` (one of the compute types: f64, f32, i64, bool) along `path`,
/// converting at most [`CONVERT_BLOCK`] elements of an operand or of the result at a time.
/// Every element of `out` is written (a sum over nothing is 0).
///
/// ```
/// use einrow::kernel::RunOptions;
/// use einrow::numpy::{einsum_converting, AnyStridedMut, AnyStridedRef, StridedMut, StridedRef};
/// use einrow::tensor::DType;
///
/// let (a, b) = ([100i8, 100, 100], [3u8, 3, 3]);
/// let mut out = [0i16];
/// einsum_converting(
///     "i,i->",
///     None,
///     &[StridedRef::contiguous(&a, &[3])?.into(), StridedRef::contiguous(&b, &[3])?.into()],
///     &mut StridedMut::contiguous(&mut out, &[])?.into(),
///     DType::I64,
///     &RunOptions::default(),
/// )?;
/// assert_eq!(out, [900]);
/// # Ok::<(), einrow::numpy::EinsumError>(())
/// ```
pub fn einsum_converting(
    spec: &str,
    path: Option<&PathOptions>,
    inputs: &[AnyStridedRef<'_>],
    out: &mut AnyStridedMut<'_>,
    compute: DType,
    opts: &RunOptions,
) -> Result<(), EinsumError> {
    let job = Job { spec, path, inputs, opts, block: CONVERT_BLOCK };
    job.dispatch(out, compute)
}

/// [`einsum_converting`] with pieces of at most `block` elements (tests cut small operands
/// into many pieces).
#[cfg(test)]
pub(super) fn einsum_converting_in_blocks(
    spec: &str,
    inputs: &[AnyStridedRef<'_>],
    out: &mut AnyStridedMut<'_>,
    compute: DType,
    block: usize,
) -> Result<(), EinsumError> {
    let opts = RunOptions { threads: 1, ..RunOptions::default() };
    Job { spec, path: None, inputs, opts: &opts, block }.dispatch(out, compute)
}

impl Job<'_, '_> {
    fn dispatch(&self, out: &mut AnyStridedMut<'_>, compute: DType) -> Result<(), EinsumError> {
        let job = self;
        match compute {
            DType::F64 => job.run::<f64>(out),
            DType::F32 => job.run::<f32>(out),
            DType::I64 => job.run::<i64>(out),
            DType::Bool => job.run::<bool>(out),
            DType::C64 => job.run::<Complex64>(out),
            DType::C128 => job.run::<Complex128>(out),
            other => {
                Err(TensorError::DType { expected: "a compute type", got: other.name() }.into())
            }
        }
    }
}

struct Job<'j, 'a> {
    spec: &'j str,
    path: Option<&'j PathOptions>,
    inputs: &'j [AnyStridedRef<'a>],
    opts: &'j RunOptions,
    /// Most elements of a piece ([`CONVERT_BLOCK`]; smaller in tests).
    block: usize,
}

/// Where the labels are cut: each label's chunk length, and the order its chunks are
/// visited in (the result's labels outermost).
struct Cuts {
    sizes: Vec<usize>,
    chunk: Vec<usize>,
    /// The result's labels, then the summed ones.
    order: Vec<usize>,
    /// How many of `order` are the result's.
    outer: usize,
}

impl Job<'_, '_> {
    fn run<T: Pick>(&self, out: &mut AnyStridedMut<'_>) -> Result<(), EinsumError> {
        let shapes: Vec<&[usize]> = self.inputs.iter().map(|i| i.layout().shape()).collect();
        let an = analyze(&parse_numpy(self.spec)?, &shapes)?;
        if out.layout().shape() != an.output_shape().as_slice() {
            let (expected, got) = (an.output_shape(), out.layout().shape().to_vec());
            return Err(EinsumError::WrongShape { operand: None, expected, got });
        }
        let cuts = self.cuts::<T>(&an);
        let mut plans: HashMap<Vec<Vec<usize>>, EinsumPlan> = HashMap::new();
        let mut at = vec![0usize; an.sizes.len()];
        let mut acc: Vec<T> = Vec::new();
        loop {
            acc.clear();
            let mut first = true;
            // The summed labels' chunks, for this chunk of the result.
            loop {
                self.contract_chunk(&an, &cuts, &at, &mut plans, &mut acc, first)?;
                first = false;
                if !cuts.advance(&mut at, cuts.outer..cuts.order.len()) {
                    break;
                }
            }
            let sub = out_chunk(out.layout(), &an, &cuts, &at)?;
            out.write_from(&sub, &acc);
            if !cuts.advance(&mut at, 0..cuts.outer) {
                return Ok(());
            }
        }
    }

    /// The chunk lengths: every label whole, then the longest label of the largest piece
    /// halved until every piece fits in [`CONVERT_BLOCK`].
    fn cuts<T: Pick>(&self, an: &Analysis) -> Cuts {
        // Each piece: the labels of its axes that move (a broadcast axis is read once).
        let mut pieces: Vec<Vec<usize>> = Vec::new();
        for (input, labels) in self.inputs.iter().zip(&an.operands) {
            if T::pick(input).is_some() {
                continue;
            }
            let l = input.layout();
            let mut moving: Vec<usize> = Vec::new();
            for ((&label, &size), &stride) in labels.iter().zip(l.shape()).zip(l.strides()) {
                if size > 1 && stride != 0 && !moving.contains(&label) {
                    moving.push(label);
                }
            }
            pieces.push(moving);
        }
        pieces.push(an.output.clone());
        let mut chunk = an.sizes.clone();
        let numel =
            |p: &[usize], c: &[usize]| p.iter().fold(1usize, |n, &l| n.saturating_mul(c[l]));
        // Each halving shortens one label: at most 64 per label.
        for _ in 0..an.sizes.len().saturating_mul(64) {
            let Some(big) = pieces
                .iter()
                .filter(|p| numel(p, &chunk) > self.block)
                .max_by_key(|p| numel(p, &chunk))
            else {
                break;
            };
            let Some(&longest) = big.iter().max_by_key(|&&l| chunk[l]) else { break };
            if chunk[longest] <= 1 {
                break;
            }
            chunk[longest] = chunk[longest].div_ceil(2);
        }
        let summed = (0..an.sizes.len()).filter(|l| !an.output.contains(l));
        let order: Vec<usize> = an.output.iter().copied().chain(summed).collect();
        Cuts { sizes: an.sizes.clone(), chunk, order, outer: an.output.len() }
    }

    /// Contracts the operands' pieces at `at` into `acc` (set when `first`, else added to).
    fn contract_chunk<T: Pick>(
        &self,
        an: &Analysis,
        cuts: &Cuts,
        at: &[usize],
        plans: &mut HashMap<Vec<Vec<usize>>, EinsumPlan>,
        acc: &mut Vec<T>,
        first: bool,
    ) -> Result<(), EinsumError> {
        let mut subs: Vec<Layout> = Vec::with_capacity(self.inputs.len());
        for (input, labels) in self.inputs.iter().zip(&an.operands) {
            subs.push(restrict(input.layout(), labels, cuts, at)?);
        }
        let mut copies: Vec<Vec<T>> = Vec::new();
        for (input, sub) in self.inputs.iter().zip(&subs) {
            if T::pick(input).is_none() {
                let mut v = Vec::new();
                v.try_reserve_exact(compact_len(sub)).map_err(|_| too_large::<T>(sub))?;
                input.read_into(sub, &mut v);
                copies.push(v);
            }
        }
        let mut refs: Vec<StridedRef<'_, T>> = Vec::with_capacity(self.inputs.len());
        let mut copied = copies.iter();
        for (input, sub) in self.inputs.iter().zip(&subs) {
            refs.push(match T::pick(input) {
                Some(r) => StridedRef::new(r.data, sub.clone())?,
                None => StridedRef::new(copied.next().map_or(&[][..], |v| v), compact(sub))?,
            });
        }
        let shapes: Vec<Vec<usize>> = subs.iter().map(|s| s.shape().to_vec()).collect();
        if !plans.contains_key(&shapes) {
            if plans.len() >= MAX_PLANS {
                plans.clear();
            }
            let slices: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
            plans.insert(shapes.clone(), EinsumPlan::new(self.spec, &slices, self.path)?);
        }
        let plan = &plans[&shapes];
        let n: usize = plan.output_shape().iter().product();
        let mut result = Vec::new();
        let bytes_each = std::mem::size_of::<T>();
        result
            .try_reserve_exact(n)
            .map_err(|_| TensorError::Allocation { elements: n, bytes_each })?;
        result.resize(n, T::ZERO);
        plan.run(&refs, &mut StridedMut::contiguous(&mut result, plan.output_shape())?, self.opts)?;
        if first {
            *acc = result;
        } else {
            acc.iter_mut().zip(&result).for_each(|(a, &r)| *a = a.plus(r));
        }
        Ok(())
    }
}

impl Cuts {
    /// Steps `at` to the next chunk of the labels `order[range]` (the last fastest); false
    /// after the last, with those labels back at 0.
    fn advance(&self, at: &mut [usize], range: std::ops::Range<usize>) -> bool {
        for &l in self.order[range].iter().rev() {
            at[l] += self.chunk[l];
            if at[l] < self.sizes[l] {
                return true;
            }
            at[l] = 0;
        }
        false
    }

    /// The chunk of label `l` starting at `at[l]`: its start and length.
    fn span(&self, l: usize, at: &[usize]) -> (usize, usize) {
        (at[l], self.chunk[l].min(self.sizes[l] - at[l].min(self.sizes[l])))
    }
}

/// An operand's layout cut to the labels' chunks at `at` (an axis of size 1 broadcast to a
/// longer label stays whole).
fn restrict(
    l: &Layout,
    labels: &[usize],
    cuts: &Cuts,
    at: &[usize],
) -> Result<Layout, EinsumError> {
    let mut shape = l.shape().to_vec();
    let mut offset = l.offset() as isize;
    for ((&label, size), &stride) in labels.iter().zip(shape.iter_mut()).zip(l.strides()) {
        if *size == 1 && cuts.sizes[label] != 1 {
            continue;
        }
        let (start, len) = cuts.span(label, at);
        offset += start as isize * stride;
        *size = len;
    }
    Ok(Layout::from_parts(&shape, l.strides(), offset as usize)?)
}

/// The result's layout cut to its labels' chunks at `at`.
fn out_chunk(l: &Layout, an: &Analysis, cuts: &Cuts, at: &[usize]) -> Result<Layout, EinsumError> {
    restrict(l, &an.output, cuts, at)
}

fn too_large<T>(sub: &Layout) -> EinsumError {
    let (elements, bytes_each) = (compact_len(sub), std::mem::size_of::<T>());
    TensorError::Allocation { elements, bytes_each }.into()
}

/// [`einsum_converting`] on tensors into a fresh tensor of `dtype` and `shape` (the einsum's
/// result type and shape), computed in `dtype`'s compute type.
pub(super) fn einsum_tensors(
    spec: &str,
    operands: &[&Tensor],
    dtype: DType,
    shape: &[usize],
    path: Option<&PathOptions>,
    opts: &RunOptions,
) -> Result<Tensor, EinsumError> {
    let inputs: Vec<AnyStridedRef<'_>> =
        operands.iter().map(|t| AnyStridedRef::of_tensor(t)).collect::<Result<_, _>>()?;
    let n = crate::tensor::numel(shape)?;
    let run = |out: &mut AnyStridedMut<'_>| {
        einsum_converting(spec, path, &inputs, out, dtype.compute_dtype(), opts)
    };
    macro_rules! into {
        ($($v:ident => $t:ty),*) => {
            match dtype {
                $(DType::$v => {
                    let mut data: Vec<$t> = Vec::new();
                    let bytes_each = std::mem::size_of::<$t>();
                    data.try_reserve_exact(n)
                        .map_err(|_| TensorError::Allocation { elements: n, bytes_each })?;
                    data.resize(n, <$t>::default());
                    run(&mut StridedMut::contiguous(&mut data, shape)?.into())?;
                    Ok(Tensor::from_vec(shape, data)?)
                })*
            }
        };
    }
    into!(F64 => f64, F32 => f32, I64 => i64, I32 => i32, I16 => i16, I8 => i8, U8 => u8,
          Bool => bool, F16 => half::f16, BF16 => half::bf16, C64 => Complex64,
          C128 => Complex128)
}
