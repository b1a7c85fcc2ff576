//! einsum along a planned contraction path: [`einsum_optimized`] (numpy's
//! `einsum(..., optimize=...)`) and the step runner behind it.

use super::einsum::einsum_planned;
use super::error::EinsumError;
use super::lower::{contract, Operand};
use super::path::{remove_positions, PathOptions, PathStep};
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
/// with these labels; the last step yields the output.
pub(super) fn run_steps<T: Scalar>(
    mut tensors: Vec<Tensor>,
    mut labels: Vec<Vec<usize>>,
    steps: &[PathStep],
    output: &[usize],
    opts: &RunOptions,
) -> Result<Tensor, EinsumError> {
    for step in steps {
        let ops: Vec<Operand<'_>> = step
            .positions
            .iter()
            .filter_map(|&p| Some(Operand { tensor: tensors.get(p)?, labels: labels.get(p)? }))
            .collect();
        let result = contract::<T>(&ops, &step.keep, opts)?;
        remove_positions(&mut tensors, &step.positions);
        remove_positions(&mut labels, &step.positions);
        tensors.push(result);
        labels.push(step.keep.clone());
    }
    match (tensors.pop(), labels.pop()) {
        (Some(t), Some(l)) if tensors.is_empty() && l == output => Ok(t),
        (Some(t), Some(l)) if tensors.is_empty() => {
            contract::<T>(&[Operand { tensor: &t, labels: &l }], output, opts)
        }
        _ => Err(EinsumError::Arity { terms: tensors.len() + 1, operands: 1 }),
    }
}
