//! einsum along a planned contraction path: [`einsum_optimized`] (numpy's
//! `einsum(..., optimize=...)`) and the step runner behind it.

use super::einsum::einsum_planned;
use super::error::EinsumError;
use super::lower::{contract, Operand};
use super::path::{LiveList, PathOptions, PathStep};
use super::step_view::step_view;
use crate::kernel::{RunOptions, Scalar};
use crate::tensor::Tensor;

/// Evaluates numpy einsum subscripts along the contraction path `path` chooses (numpy's
/// `einsum(..., optimize=...)`): each planned step is one kernel contraction, in order.
/// Results equal [`einsum`](super::einsum) up to float rounding; an invalid explicit path or a
/// memory limit no path meets is an error (see [`PathOptions`]).
///
/// ```
/// use einrow::numpy::{einsum_optimized, Optimize, PathOptions};
/// use einrow::tensor::Tensor;
/// let a = Tensor::from_vec(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0])?;
/// let path = PathOptions::new(Optimize::Explicit(vec![vec![1, 2], vec![0, 1]]));
/// let c = einsum_optimized("ij,jk,kl->il", &[&a, &a, &a], &path)?;
/// assert_eq!(c.to_f64_vec(), vec![37.0, 54.0, 81.0, 118.0]);
/// let auto = einsum_optimized("ij,jk,kl->il", &[&a, &a, &a], &PathOptions::default())?;
/// assert_eq!(auto.to_f64_vec(), c.to_f64_vec());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn einsum_optimized(
    spec: &str,
    operands: &[&Tensor],
    path: &PathOptions,
) -> Result<Tensor, EinsumError> {
    einsum_planned(spec, operands, &RunOptions::default(), Some(path))
}

/// [`einsum_optimized`] with explicit kernel options (threads, GEMM dispatch).
pub fn einsum_optimized_with(
    spec: &str,
    operands: &[&Tensor],
    path: &PathOptions,
    opts: &RunOptions,
) -> Result<Tensor, EinsumError> {
    einsum_planned(spec, operands, opts, Some(path))
}

/// Runs the planned `steps` (valid for the operands) on tensors of the compute type `T`
/// with these labels; the last step yields the output. A step of one operand that sums
/// nothing (it permutes axes or takes a diagonal) is a view of its operand, as numpy's is;
/// one that sums reads its operand where it is.
pub(super) fn run_steps<T: Scalar>(
    tensors: Vec<Tensor>,
    labels: Vec<Vec<usize>>,
    steps: &[PathStep],
    output: &[usize],
    opts: &RunOptions,
) -> Result<Tensor, EinsumError> {
    let mut live = LiveList::new(tensors.into_iter().zip(labels).collect(), steps.len());
    for step in steps {
        let taken: Vec<(Tensor, Vec<usize>)> =
            live.take(&step.positions).into_iter().flatten().collect();
        let result = step_result::<T>(&taken, &step.keep, opts)?;
        live.push((result, step.keep.clone()));
    }
    let left = live.len();
    match live.into_items().pop() {
        Some((t, l)) if left == 1 && l == output => Ok(t),
        Some(only) if left == 1 => step_result::<T>(&[only], output, opts),
        _ => Err(EinsumError::Arity { terms: left, operands: 1 }),
    }
}

/// The result of one step over `taken` with the labels `keep`: a view of a single operand
/// when nothing is summed, else a contraction.
fn step_result<T: Scalar>(
    taken: &[(Tensor, Vec<usize>)],
    keep: &[usize],
    opts: &RunOptions,
) -> Result<Tensor, EinsumError> {
    if let [(t, l)] = taken {
        if let Some(layout) = step_view(t.layout(), l, keep)? {
            return Ok(t.with_layout(layout)?);
        }
    }
    let ops: Vec<Operand<'_>> =
        taken.iter().map(|(t, l)| Operand { tensor: t, labels: l }).collect();
    contract::<T>(&ops, keep, opts)
}
