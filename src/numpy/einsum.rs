//! The public entry points of einsum on values: [`einsum`] (numpy semantics, `optimize=False`
//! results) and [`einsum_sublist`] (numpy's sublist format).

use super::error::EinsumError;
use super::lower::{contract, Operand};
use super::path::{greedy, planned_steps, PathOptions, PathStep};
use super::recent;
use super::shapes::Analysis;
use super::sublist::Sublist;
use crate::kernel::{RunOptions, Scalar};
use crate::tensor::{result_type, Complex128, Complex64, DType, Layout, Tensor, TensorError};
use smallvec::SmallVec;

/// Evaluates numpy einsum subscripts on `operands`, e.g.
/// `einsum("ij,jk->ik", &[&a, &b])`.
///
/// Results equal `numpy.einsum(spec, *operands)` (default `optimize=False`) up to float
/// rounding: the same broadcasting, diagonal and implicit-output rules and the same errors,
/// mapped to crate codes. Like numpy, a single operand that is only permuted or diagonalised
/// gives a view of the same buffer. Three or more operands are contracted pairwise in a greedy
/// order.
///
/// Element types: the result's is numpy's `result_type` of the operands'
/// ([`result_type`](crate::tensor::result_type): float32 × int16 is float32, int8 × uint8 is
/// int16, int64 × float32 is float64). Values are computed in the result type's
/// [compute type](DType::compute_dtype), as numpy accumulates: f64 for float64; f32 for
/// float32, float16 and bfloat16; wrapping int64 for the integer types (so sums wrap exactly
/// as in the narrow type: uint8 200·2 + 200·1 is 600 mod 256 = 88); OR of ANDs for bool.
/// (numpy rounds float16 sums to float16 between some outer loop steps; einrow rounds once.)
///
/// ```
/// use einrow::tensor::{DType, Tensor};
/// let a = Tensor::from_vec(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0]).unwrap();
/// let b = Tensor::from_vec(&[2], vec![1.0f64, 1.0]).unwrap();
/// let c = einrow::einsum("ij,j->i", &[&a, &b]).unwrap();
/// assert_eq!(c.to_f64_vec(), vec![3.0, 7.0]);
///
/// let x = Tensor::from_vec(&[2], vec![200u8, 200])?;
/// let y = Tensor::from_vec(&[2], vec![2u8, 1])?;
/// let dot = einrow::einsum("i,i->", &[&x, &y])?;
/// assert_eq!((dot.dtype(), dot.to_vec::<u8>()), (DType::U8, vec![88])); // 600 mod 256
/// let z = Tensor::from_vec(&[2], vec![0.5f32, 0.25])?;
/// assert_eq!(einrow::einsum("i,i->i", &[&z, &y])?.dtype(), DType::F32);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn einsum(spec: &str, operands: &[&Tensor]) -> Result<Tensor, EinsumError> {
    einsum_with(spec, operands, &RunOptions::default())
}

/// [`einsum`] with explicit kernel options (threads, GEMM dispatch).
pub fn einsum_with(
    spec: &str,
    operands: &[&Tensor],
    opts: &RunOptions,
) -> Result<Tensor, EinsumError> {
    einsum_planned(spec, operands, opts, None)
}

/// [`einsum_with`] along the path `path` plans (`None`: the default greedy order).
pub(crate) fn einsum_planned(
    spec: &str,
    operands: &[&Tensor],
    opts: &RunOptions,
    path: Option<&PathOptions>,
) -> Result<Tensor, EinsumError> {
    let shapes: SmallVec<[&[usize]; 4]> = operands.iter().map(|t| t.shape()).collect();
    let an = recent::analysis(spec, &shapes)?;
    let an = &*an;
    let steps = path.map(|p| planned_steps(an, p)).transpose()?;
    if let [only] = operands {
        if let Some(view) = as_view(an, only)? {
            return Ok(view);
        }
    }
    let dtype = result_type(operands.iter().map(|t| t.dtype())).unwrap_or(DType::F64);
    if operands.iter().any(|t| t.numel() == 0) {
        // Every product has an empty factor: each result element is a sum over nothing. No
        // intermediate is built (a pre-summed operand could be far larger than the input).
        return Ok(Tensor::full(dtype, &an.output_shape(), 0.0)?);
    }
    let compute_dtype = dtype.compute_dtype();
    if dtype != compute_dtype || operands.iter().any(|t| t.dtype() != compute_dtype) {
        // Operands or a result of another type: converted piece by piece, never whole.
        return super::converting::einsum_tensors(
            spec,
            operands,
            dtype,
            &an.output_shape(),
            path,
            opts,
        );
    }
    let steps = steps.as_deref();
    let result = match compute_dtype {
        DType::F64 => compute::<f64>(an, operands, opts, steps)?,
        DType::F32 => compute::<f32>(an, operands, opts, steps)?,
        DType::I64 => compute::<i64>(an, operands, opts, steps)?,
        DType::Bool => compute::<bool>(an, operands, opts, steps)?,
        DType::C64 => compute::<Complex64>(an, operands, opts, steps)?,
        DType::C128 => compute::<Complex128>(an, operands, opts, steps)?,
        other => {
            let got = other.name();
            return Err(TensorError::DType { expected: "a compute type", got }.into());
        }
    };
    Ok(result.astype(dtype))
}

/// Evaluates an einsum in the sublist format: `operands[k]` carries the labels of
/// `sublist.inputs()[k]` (numpy: `einsum(op0, sub0, op1, sub1, ..., [out])`).
pub fn einsum_sublist(operands: &[&Tensor], sublist: &Sublist) -> Result<Tensor, EinsumError> {
    let spec = sublist.to_subscripts()?;
    einsum_planned(&spec, operands, &RunOptions::default(), None)
}

/// [`einsum_sublist`] along a planned path, with kernel options.
pub fn einsum_sublist_with(
    operands: &[&Tensor],
    sublist: &Sublist,
    path: &PathOptions,
    opts: &RunOptions,
) -> Result<Tensor, EinsumError> {
    let spec = sublist.to_subscripts()?;
    einsum_planned(&spec, operands, opts, Some(path))
}

/// The result as a view of the single operand when nothing is summed: each output axis
/// walks the operand axes of its label together (a diagonal when there are several).
fn as_view(an: &Analysis, t: &Tensor) -> Result<Option<Tensor>, EinsumError> {
    let Some(strides) = view_strides(an, t.strides())? else { return Ok(None) };
    let layout = Layout::from_parts(&an.output_shape(), &strides, t.layout().offset())?;
    Ok(Some(t.with_layout(layout)?))
}

/// The strides of the result as a view of the single operand of these `strides`, when
/// nothing is summed (`None` otherwise).
pub(super) fn view_strides(
    an: &Analysis,
    strides: &[isize],
) -> Result<Option<Vec<isize>>, EinsumError> {
    let labels = &an.operands[0];
    if labels.iter().any(|l| !an.output.contains(l)) {
        return Ok(None);
    }
    let mut out = Vec::with_capacity(an.output.len());
    for &l in &an.output {
        let mut s: isize = 0;
        for (&ol, &os) in labels.iter().zip(strides) {
            if ol == l {
                s = s
                    .checked_add(os)
                    .ok_or(crate::tensor::TensorError::Overflow { what: "a diagonal stride" })?;
            }
        }
        out.push(s);
    }
    Ok(Some(out))
}

/// Converts the operands to the compute type `T` (no copy when they already are) and
/// contracts them: along the planned `steps` when given, else directly for one or two
/// operands and along the greedy path for more.
fn compute<T: Scalar>(
    an: &Analysis,
    operands: &[&Tensor],
    opts: &RunOptions,
    steps: Option<&[PathStep]>,
) -> Result<Tensor, EinsumError> {
    let mut tensors: Vec<Tensor> = operands.iter().map(|t| t.astype(T::DTYPE)).collect();
    if steps.is_none() && tensors.len() <= 2 && !presum_needed(an) {
        let ops: SmallVec<[Operand<'_>; 2]> = tensors
            .iter()
            .zip(&an.operands)
            .map(|(t, l)| Operand { tensor: t, labels: l })
            .collect();
        return contract::<T>(&ops, &an.output, opts);
    }
    let mut labels: Vec<Vec<usize>> = an.operands.clone();
    if tensors.len() >= 2 {
        presum::<T>(an, &mut tensors, &mut labels, opts)?;
    }
    if let Some(steps) = steps {
        return super::optimized::run_steps::<T>(tensors, labels, steps, &an.output, opts);
    }
    if tensors.len() <= 2 {
        let ops: Vec<Operand<'_>> =
            tensors.iter().zip(&labels).map(|(t, l)| Operand { tensor: t, labels: l }).collect();
        return contract::<T>(&ops, &an.output, opts);
    }
    let steps: Vec<PathStep> = greedy(&labels, &an.output, &an.sizes)
        .into_iter()
        .map(|s| PathStep { positions: vec![s.pair.0, s.pair.1], keep: s.keep })
        .collect();
    super::optimized::run_steps::<T>(tensors, labels, &steps, &an.output, opts)
}

/// Whether [`presum`] would change any operand: a label repeated within one, or one that no
/// other operand and not the output has. The places holding each label are counted once
/// ([`label_holders`]), so the time is linear in the operands' labels.
fn presum_needed(an: &Analysis) -> bool {
    if an.operands.len() < 2 {
        return false;
    }
    let holders = label_holders(an, &an.operands);
    an.operands.iter().any(|ls| presum_labels(&holders, ls).is_some())
}

/// Sums away, operand by operand, the labels no other operand and not the output has, and
/// takes diagonals (repeated labels) — cheap single-operand steps that shrink the pairwise
/// contractions (as opt_einsum does).
fn presum<T: Scalar>(
    an: &Analysis,
    tensors: &mut [Tensor],
    labels: &mut [Vec<usize>],
    opts: &RunOptions,
) -> Result<(), EinsumError> {
    let holders = label_holders(an, labels);
    for k in 0..tensors.len() {
        let Some(keep) = presum_labels(&holders, &labels[k]) else { continue };
        let r = contract::<T>(&[Operand { tensor: &tensors[k], labels: &labels[k] }], &keep, opts)?;
        tensors[k] = r;
        labels[k] = keep;
    }
    Ok(())
}

/// Per label of `an`, how many places need it: each operand of `labels` that has it once,
/// and the output once more.
pub(super) fn label_holders(an: &Analysis, labels: &[Vec<usize>]) -> Vec<usize> {
    let mut holders = vec![0usize; an.sizes.len()];
    let mut last_seen = vec![usize::MAX; an.sizes.len()];
    for (k, ls) in labels.iter().enumerate() {
        for &l in ls {
            if let (Some(h), Some(seen)) = (holders.get_mut(l), last_seen.get_mut(l)) {
                if *seen != k {
                    (*h, *seen) = (*h + 1, k);
                }
            }
        }
    }
    for &l in &an.output {
        if let Some(h) = holders.get_mut(l) {
            *h += 1;
        }
    }
    holders
}

/// The labels an operand with labels `ls` keeps when [`presum`] sums it alone: each label
/// the output or another operand has (`holders` counts them with this operand, see
/// [`label_holders`]), once; `None` when that is all of its labels already.
pub(super) fn presum_labels(holders: &[usize], ls: &[usize]) -> Option<Vec<usize>> {
    let elsewhere = |l: usize| holders.get(l).is_some_and(|&h| h >= 2);
    let mut keep: Vec<usize> = Vec::new();
    for &l in ls {
        if elsewhere(l) && !keep.contains(&l) {
            keep.push(l);
        }
    }
    (keep.len() != ls.len()).then_some(keep)
}
