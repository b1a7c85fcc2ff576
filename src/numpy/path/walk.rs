//! Following a linear path over the operands' labels: each step's result labels, in the
//! order the executor lays the result out.

use smallvec::SmallVec;

use super::live::LiveList;
use super::live_sets::LiveSets;

/// One step of a path, ready to run: the positions (in the current operand list) it
/// contracts, and the labels of its result, which is appended to the list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathStep {
    /// Positions of the operands contracted (as the path gives them).
    pub positions: Vec<usize>,
    /// Labels of the result: the last step's are the output's; an earlier step keeps the
    /// labels the output or another operand still has, output labels first (in output
    /// order), then the others in order of first appearance.
    pub keep: Vec<usize>,
}

/// A tensor of the current list: operand `k` or the result of step `k`.
#[derive(Clone, Copy)]
enum Source {
    Operand(usize),
    Step(usize),
}

/// The bit of label `l`; `None` past 63 (never in an einsum: such labels are looked up in
/// the lists, and kept until the last step).
fn bit(l: usize) -> Option<u64> {
    1u64.checked_shl(u32::try_from(l).ok()?)
}

/// The set of the labels below 64 of `labels`.
fn mask(labels: &[usize]) -> u64 {
    labels.iter().fold(0, |m, &l| m | bit(l).unwrap_or(0))
}

/// The steps of `path` (valid for `operands`) over operands with these labels per axis;
/// O(n log n) for n operands (plus the labels of each step).
pub(crate) fn walk(
    operands: &[Vec<usize>],
    output: &[usize],
    path: &[Vec<usize>],
) -> Vec<PathStep> {
    let masks: Vec<u64> = operands.iter().map(|o| mask(o)).collect();
    let mut sets = LiveSets::new(&masks, mask(output), path.len());
    let sources = (0..operands.len()).map(Source::Operand).collect();
    let mut live = LiveList::new(sources, path.len());
    let mut steps: Vec<PathStep> = Vec::with_capacity(path.len());
    for (k, positions) in path.iter().enumerate() {
        // The result keeps (below label 64) what the output or another live tensor has.
        let (_, others) = sets.contract(positions);
        let mut order: SmallVec<[usize; 4]> = (0..positions.len()).collect();
        order.sort_unstable_by_key(|&i| positions[i]);
        let taken = live.take(positions);
        let keep = if k + 1 == path.len() {
            output.to_vec()
        } else {
            let labels: SmallVec<[&[usize]; 4]> = order
                .iter()
                .filter_map(|&i| match taken[i]? {
                    Source::Operand(o) => operands.get(o).map(Vec::as_slice),
                    Source::Step(s) => steps.get(s).map(|s: &PathStep| s.keep.as_slice()),
                })
                .collect();
            kept(&labels, output, others)
        };
        live.push(Source::Step(k));
        steps.push(PathStep { positions: positions.clone(), keep });
    }
    steps
}

/// The labels of contracting tensors with these labels (in increasing position order) that
/// the output or another tensor (`others`, a set) has: output labels first in output order,
/// then the rest in order of first appearance.
fn kept(lists: &[&[usize]], output: &[usize], others: u64) -> Vec<usize> {
    let union = lists.iter().fold(0, |m, ls| m | mask(ls));
    let out = mask(output);
    let taken = |l: usize| match bit(l) {
        Some(b) => union & b != 0,
        None => lists.iter().any(|ls| ls.contains(&l)),
    };
    let in_output = |l: usize| bit(l).map_or_else(|| output.contains(&l), |b| out & b != 0);
    let needed = |l: usize| bit(l).is_none_or(|b| others & b != 0);
    let mut keep: Vec<usize> = output.iter().copied().filter(|&l| taken(l)).collect();
    for ls in lists {
        for &l in *ls {
            if !in_output(l) && needed(l) && !keep.contains(&l) {
                keep.push(l);
            }
        }
    }
    keep
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_keep_what_is_needed_later() {
        // ij,jk,kl->il along [[1, 2], [0, 1]]: jk·kl keeps j (needed by ij) and l (output).
        let ops = vec![vec![0, 1], vec![1, 2], vec![2, 3]];
        let steps = walk(&ops, &[0, 3], &[vec![1, 2], vec![0, 1]]);
        assert_eq!(steps[0].keep, vec![3, 1]);
        assert_eq!(steps[1], PathStep { positions: vec![0, 1], keep: vec![0, 3] });
        // A single-operand step sums what nothing else needs.
        let steps = walk(&[vec![0, 1], vec![1]], &[], &[vec![0], vec![0, 1]]);
        assert_eq!(steps[0].keep, vec![1]);
        // Labels past 63 are kept until the last step.
        let steps = walk(&[vec![70, 1], vec![1], vec![2]], &[2], &[vec![0, 1], vec![0, 1]]);
        assert_eq!(steps[0].keep, vec![70]);
    }
}
