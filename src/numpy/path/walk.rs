//! Following a linear path over the operands' labels: each step's result labels, in the
//! order the executor lays the result out.

use super::problem::remove_positions;

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

/// The steps of `path` (valid for `operands`) over operands with these labels per axis.
pub(crate) fn walk(
    operands: &[Vec<usize>],
    output: &[usize],
    path: &[Vec<usize>],
) -> Vec<PathStep> {
    let mut list: Vec<Vec<usize>> = operands.to_vec();
    let mut steps = Vec::with_capacity(path.len());
    for (k, positions) in path.iter().enumerate() {
        let keep =
            if k + 1 == path.len() { output.to_vec() } else { kept(&list, positions, output) };
        remove_positions(&mut list, positions);
        list.push(keep.clone());
        steps.push(PathStep { positions: positions.clone(), keep });
    }
    steps
}

/// The labels of contracting `list[positions]` that the output or another operand has.
fn kept(list: &[Vec<usize>], positions: &[usize], output: &[usize]) -> Vec<usize> {
    let mut sorted = positions.to_vec();
    sorted.sort_unstable();
    let taken = |l: usize| sorted.iter().any(|&p| list[p].contains(&l));
    let elsewhere = |l: usize| {
        list.iter().enumerate().any(|(k, ls)| sorted.binary_search(&k).is_err() && ls.contains(&l))
    };
    let mut keep: Vec<usize> = output.iter().copied().filter(|&l| taken(l)).collect();
    for &p in &sorted {
        for &l in &list[p] {
            if !keep.contains(&l) && !output.contains(&l) && elsewhere(l) {
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
    }
}
