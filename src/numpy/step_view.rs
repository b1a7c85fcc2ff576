//! A single-operand step that sums nothing, as a view: numpy returns such a step (a
//! permutation, a diagonal, or both) as a view of its operand, and so does a path step here.
//! Making the view reads the operand's layout only (its axes, never its elements), so a path
//! of many such steps costs nothing per element.

use super::error::EinsumError;
use crate::tensor::{Layout, TensorError};

/// The layout of the result of a single-operand step, whose operand has the layout `layout`
/// and the label `labels[k]` on axis `k`, and whose result has the labels `keep`, as a view
/// of the same elements: each result axis walks every operand axis of its label together (a
/// diagonal when there are several, whose sizes are equal). `None` when the step sums a
/// label (an operand label not in `keep`) or `keep` names a label the operand lacks: that
/// step is a contraction.
///
/// The work is in the number of axes: at most 64 each (numpy's limit), compared pairwise.
pub(super) fn step_view(
    layout: &Layout,
    labels: &[usize],
    keep: &[usize],
) -> Result<Option<Layout>, EinsumError> {
    if labels.len() != layout.shape().len() || labels.iter().any(|l| !keep.contains(l)) {
        return Ok(None);
    }
    let mut shape = Vec::with_capacity(keep.len());
    let mut strides = Vec::with_capacity(keep.len());
    for &l in keep {
        let axes = labels.iter().zip(layout.shape().iter().zip(layout.strides()));
        let mut size = None;
        let mut stride: isize = 0;
        for (_, (&n, &s)) in axes.filter(|(&x, _)| x == l) {
            if size.is_some_and(|m| m != n) {
                // Not a diagonal (the analysis makes a repeated label's sizes equal).
                return Ok(None);
            }
            size = Some(n);
            stride =
                stride.checked_add(s).ok_or(TensorError::Overflow { what: "a diagonal stride" })?;
        }
        let Some(size) = size else { return Ok(None) };
        shape.push(size);
        strides.push(stride);
    }
    Ok(Some(Layout::from_parts(&shape, &strides, layout.offset())?))
}

#[cfg(test)]
mod tests {
    use super::super::lower::{contract, Operand};
    use super::*;
    use crate::kernel::RunOptions;
    use crate::tensor::{SliceSpec, Tensor};
    use proptest::prelude::*;

    fn layout(shape: &[usize]) -> Layout {
        Layout::contiguous(shape).expect("a layout")
    }

    #[test]
    fn a_permutation_or_a_diagonal_is_a_view() {
        // `ij->ji` on a 2x3 row-major operand: the strides swap.
        let v = step_view(&layout(&[2, 3]), &[0, 1], &[1, 0]).unwrap().unwrap();
        assert_eq!((v.shape(), v.strides(), v.offset()), (&[3, 2][..], &[1, 3][..], 0));
        // `iji->ij` on a 3x2x3 operand: the two `i` axes walk together.
        let v = step_view(&layout(&[3, 2, 3]), &[0, 1, 0], &[0, 1]).unwrap().unwrap();
        assert_eq!((v.shape(), v.strides()), (&[3, 2][..], &[7, 3][..]));
        // The offset of a view is kept.
        let from = Layout::from_parts(&[2, 2], &[-2, -1], 3).unwrap();
        let v = step_view(&from, &[0, 1], &[1, 0]).unwrap().unwrap();
        assert_eq!((v.strides(), v.offset()), (&[-1, -2][..], 3));
    }

    /// An operand of labels drawn from `a..c` (a repeated label keeps its size: a diagonal),
    /// laid out permuted and possibly reversed, and a result keeping its distinct labels in a
    /// shuffled order.
    fn single_steps() -> impl Strategy<Value = (Vec<usize>, [usize; 3], u64, Vec<usize>)> {
        (prop::collection::vec(0..3usize, 1..=4), [1..4usize, 1..4usize, 0..4usize], any::<u64>())
            .prop_flat_map(|(labels, sizes, bits)| {
                let mut distinct: Vec<usize> = Vec::new();
                for &l in &labels {
                    if !distinct.contains(&l) {
                        distinct.push(l);
                    }
                }
                (Just(labels), Just(sizes), Just(bits), Just(distinct).prop_shuffle())
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The rule: a single-operand step that sums nothing reads, as a view, exactly the
        /// values its contraction writes.
        #[test]
        fn a_view_step_reads_what_its_contraction_writes(
            (labels, sizes, bits, keep) in single_steps()
        ) {
            let shape: Vec<usize> = labels.iter().map(|&l| sizes[l]).collect();
            let n: usize = shape.iter().product();
            let data: Vec<f64> = (0..n).map(|i| i as f64).collect();
            let mut t = Tensor::from_vec(&shape, data).unwrap();
            // A reversed axis and a rotation of the axes: a strided layout with an offset.
            let rank = shape.len();
            if bits & 1 == 1 && shape[0] > 0 {
                t = t.slice(0, SliceSpec::full(-1)).unwrap();
            }
            let perm: Vec<usize> = (0..rank).map(|k| (k + (bits >> 1) as usize) % rank).collect();
            let t = t.permute(&perm).unwrap();
            let labels: Vec<usize> = perm.iter().map(|&k| labels[k]).collect();
            let layout = step_view(t.layout(), &labels, &keep).unwrap();
            let layout = layout.expect("a step that sums nothing is a view");
            let view = t.with_layout(layout).unwrap();
            let op = Operand { tensor: &t, labels: &labels };
            let contracted = contract::<f64>(&[op], &keep, &RunOptions::default()).unwrap();
            prop_assert_eq!(view.shape(), contracted.shape());
            prop_assert_eq!(view.to_f64_vec(), contracted.to_f64_vec());
        }
    }

    #[test]
    fn a_step_that_sums_is_not_a_view() {
        assert_eq!(step_view(&layout(&[2, 3]), &[0, 1], &[0]).unwrap(), None);
        assert_eq!(step_view(&layout(&[2, 3]), &[0, 1], &[0, 1, 2]).unwrap(), None);
        assert_eq!(step_view(&layout(&[2, 3]), &[0, 0], &[0]).unwrap(), None);
    }
}
