//! Paths in two numberings. A linear path (numpy's convention, what users see) names
//! operands by their position in the current list, each result appended at the end. An SSA
//! path (what planners build) names every tensor once: operands `0..n`, then the result of
//! step `k` is `n + k`.

use super::live::LiveList;

/// A path: per step, the tensors it contracts.
pub(crate) type Path = Vec<Vec<usize>>;

/// The linear path of an SSA path over `n` operands. Each step's positions come out in
/// increasing order; every id must be alive when used (planners guarantee it).
pub(crate) fn ssa_to_linear(ssa: &[Vec<usize>], n: usize) -> Path {
    // An id is the slot its tensor was appended to.
    let mut live = LiveList::new(vec![(); n], ssa.len());
    let mut path = Vec::with_capacity(ssa.len());
    for step in ssa {
        let mut pos: Vec<usize> =
            step.iter().map(|&id| live.position_of(id).unwrap_or(live.len())).collect();
        pos.sort_unstable();
        live.take(&pos);
        live.push(());
        path.push(pos);
    }
    path
}

/// The SSA path of a valid linear path over `n` operands: per step, the ids of the tensors
/// it takes (operands `0..n`, the result of step `k` is `n + k`), in the step's order.
pub(crate) fn linear_to_ssa(path: &[Vec<usize>], n: usize) -> Path {
    let mut live = LiveList::new(vec![(); n], path.len());
    let mut ssa = Vec::with_capacity(path.len());
    for step in path {
        ssa.push(step.iter().filter_map(|&p| live.slot(p)).collect());
        live.take(step);
        live.push(());
    }
    ssa
}

/// A contraction tree over a subset bitmap, as planners that split subsets store it:
/// `split(s)` gives the part of `s` contracted first on one side (the rest on the other), or
/// `None` for a leaf. Emits the SSA steps bottom-up (left subtree, right subtree, merge) with
/// an explicit stack, and returns the id of the root. `leaf(s)` maps a one-tensor subset to
/// its id, possibly after emitting its own steps.
pub(crate) fn tree_to_ssa(
    root: u64,
    n: usize,
    split: impl Fn(u64) -> Option<u64>,
    mut leaf: impl FnMut(u64, &mut Path, &mut usize) -> usize,
    ssa: &mut Path,
) -> usize {
    // Frames: (subset, whether its children are done).
    let mut stack: Vec<(u64, bool)> = vec![(root, false)];
    let mut done: Vec<usize> = Vec::new();
    let mut next = n + ssa.len();
    while let Some((s, expanded)) = stack.pop() {
        match split(s) {
            None => done.push(leaf(s, ssa, &mut next)),
            Some(left) if !expanded => {
                stack.push((s, true));
                stack.push((s ^ left, false));
                stack.push((left, false));
            }
            Some(_) => {
                let b = done.pop().unwrap_or(0);
                let a = done.pop().unwrap_or(0);
                ssa.push(vec![a, b]);
                done.push(next);
                next += 1;
            }
        }
    }
    done.pop().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ssa_to_linear_matches_opt_einsum_example() {
        // opt_einsum: ssa_to_linear([(0, 3), (2, 4), (1, 5)]) == [(0, 3), (1, 2), (0, 1)].
        let ssa = vec![vec![0, 3], vec![2, 4], vec![1, 5]];
        assert_eq!(ssa_to_linear(&ssa, 4), vec![vec![0, 3], vec![1, 2], vec![0, 1]]);
        // A single-operand step keeps the count.
        assert_eq!(ssa_to_linear(&[vec![1], vec![0, 2]], 2), vec![vec![1], vec![0, 1]]);
        assert_eq!(linear_to_ssa(&[vec![0, 3], vec![1, 2], vec![0, 1]], 4), ssa);
    }

    #[test]
    fn trees_emit_children_before_parents() {
        // ((0, 1), (2, 3)) over bitmaps: split(0b1111) = 0b0011.
        let split = |s: u64| match s {
            0b1111 => Some(0b0011),
            0b0011 => Some(0b0001),
            0b1100 => Some(0b0100),
            _ => None,
        };
        let mut ssa = Vec::new();
        let leaf = |s: u64, _: &mut Path, _: &mut usize| s.trailing_zeros() as usize;
        let root = tree_to_ssa(0b1111, 4, split, leaf, &mut ssa);
        assert_eq!(ssa, vec![vec![0, 1], vec![2, 3], vec![4, 5]]);
        assert_eq!(root, 6);
    }
}
