//! The memory layout of a fresh einsum result, as numpy's `order=` gives it: `C`, `F`, `A`
//! (`F` when numpy's view of every operand is Fortran-contiguous), and `K`, numpy's default, which follows
//! the operands: numpy's iterator runs over the output's labels then the summed ones (in
//! label order), sorts its axes from the smallest stride to the largest where the operands
//! agree (C order winning ties and conflicts), and lays the result out in that order.

use einrow::numpy::Analysis;
use numpy::{PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::keywords::Order;

/// The result's axes from the fastest-varying to the slowest for `order`, `None` for C order
/// (the common case, allocated as numpy allocates by default).
pub fn memory_order(
    order: Order,
    an: &Analysis,
    arrays: &[Bound<'_, PyUntypedArray>],
) -> Option<Vec<usize>> {
    let n = an.output.len();
    if an.output.iter().any(|&l| an.sizes[l] == 0) {
        // Empty: numpy gives every axis stride 0, whatever the order.
        return None;
    }
    let fortran = || (0..n).collect::<Vec<usize>>();
    let found = match order {
        Order::C => return None,
        Order::F => fortran(),
        Order::A if arrays.iter().zip(&an.operands).all(|(a, l)| fortran_view(a, l)) => fortran(),
        Order::A => return None,
        Order::K => keep_order(an, arrays),
    };
    let c_order = found.iter().rev().copied().eq(0..n);
    (!c_order).then_some(found)
}

/// Whether numpy's view of an operand for the einsum (repeated labels combined into one axis
/// at the first one's place, its stride the sum) is Fortran-contiguous: axes of size 1 are
/// skipped, an empty view is.
fn fortran_view(a: &Bound<'_, PyUntypedArray>, labels: &[usize]) -> bool {
    let (shape, strides) = (a.shape(), a.strides());
    let mut axes: Vec<(usize, usize, isize)> = Vec::with_capacity(labels.len());
    for (k, &l) in labels.iter().enumerate() {
        match axes.iter_mut().find(|(label, _, _)| *label == l) {
            Some((_, _, stride)) => *stride += strides[k],
            None => axes.push((l, shape[k], strides[k])),
        }
    }
    if axes.iter().any(|&(_, d, _)| d == 0) {
        return true;
    }
    let mut expected = a.dtype().itemsize() as isize;
    for (_, d, stride) in axes {
        if d != 1 {
            if stride != expected {
                return false;
            }
            expected = expected.saturating_mul(d as isize);
        }
    }
    true
}

/// numpy's `K` order of the output axes (fastest first).
fn keep_order(an: &Analysis, arrays: &[Bound<'_, PyUntypedArray>]) -> Vec<usize> {
    // The iterator's axes: the output's labels, then the summed labels in label order.
    let mut summed: Vec<usize> = (0..an.labels.len()).filter(|l| !an.output.contains(l)).collect();
    summed.sort_by_key(|&l| an.labels[l]);
    let axes: Vec<usize> = an.output.iter().copied().chain(summed).collect();
    // Each operand's byte stride along each iterator axis: the sum over its axes of that
    // label (a diagonal), 0 where it has none or that axis has size 1 (broadcast).
    let strides: Vec<Vec<isize>> = axes
        .iter()
        .map(|&label| {
            arrays
                .iter()
                .zip(&an.operands)
                .map(|(a, labels)| {
                    let mut stride = 0isize;
                    for (k, &l) in labels.iter().enumerate() {
                        if l == label && a.shape()[k] != 1 {
                            stride += a.strides()[k];
                        }
                    }
                    stride
                })
                .collect()
        })
        .collect();
    let perm = best_axis_order(&strides);
    perm.into_iter().filter(|&a| a < an.output.len()).collect()
}

/// numpy's iterator's stable insertion sort of axes (`strides[axis][operand]`), C order to
/// start with: an axis moves before (becomes faster than) another when the first operand
/// with a non-zero stride along both has the smaller stride along it, and no later such
/// operand has it no larger. Returns the axes from the fastest to the slowest.
fn best_axis_order(strides: &[Vec<isize>]) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..strides.len()).rev().collect();
    for i0 in 1..perm.len() {
        let j0 = perm[i0];
        let mut pos = i0;
        for i1 in (0..i0).rev() {
            let j1 = perm[i1];
            let (mut ambiguous, mut swap) = (true, false);
            for (&s0, &s1) in strides[j0].iter().zip(&strides[j1]) {
                if s0 != 0 && s1 != 0 {
                    if s1.unsigned_abs() <= s0.unsigned_abs() {
                        swap = false;
                    } else if ambiguous {
                        swap = true;
                    }
                    ambiguous = false;
                }
            }
            if !ambiguous {
                if swap {
                    pos = i1;
                } else {
                    break;
                }
            }
        }
        if pos != i0 {
            perm.remove(i0);
            perm.insert(pos, j0);
        }
    }
    perm
}

/// The byte strides of a fresh array of `shape` (no size 0) whose axes are laid out in
/// `order` (fastest first).
pub fn strides_for(shape: &[usize], order: &[usize], itemsize: usize) -> Vec<isize> {
    let mut strides = vec![0isize; shape.len()];
    let mut step = itemsize as isize;
    for &axis in order {
        strides[axis] = step;
        step = step.saturating_mul(shape[axis] as isize);
    }
    strides
}
