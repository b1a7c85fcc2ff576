//! The greedy order as pairwise steps over label lists: what [`crate::numpy::einsum`] runs
//! for three or more operands when no path options are given.

use super::greedy::greedy as greedy_path;
use super::problem::Problem;
use super::walk::walk;

/// One pairwise step: the positions (in the current operand list) of the two operands and
/// the labels of the result, which is appended to the list after removing both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Positions of the two operands (`first < second`).
    pub pair: (usize, usize),
    /// Labels of the result.
    pub keep: Vec<usize>,
}

/// The greedy contraction path (opt_einsum's rules, see [`Optimize::Greedy`]) for operands
/// with the given labels (label numbers index `sizes`); empty for fewer than two operands.
/// Labels beyond the 64 an einsum can have are contracted in list order.
///
/// [`Optimize::Greedy`]: super::Optimize::Greedy
pub fn greedy(operands: &[Vec<usize>], output: &[usize], sizes: &[usize]) -> Vec<Step> {
    if operands.len() < 2 {
        return Vec::new();
    }
    let path = match Problem::new(operands, output, sizes) {
        Some(p) => greedy_path(&p, None),
        None => vec![vec![0, 1]; operands.len() - 1],
    };
    walk(operands, output, &path)
        .into_iter()
        .map(|s| {
            let (a, b) = (s.positions.first().copied(), s.positions.last().copied());
            let (a, b) = (a.unwrap_or(0), b.unwrap_or(0));
            Step { pair: (a.min(b), a.max(b)), keep: s.keep }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn greedy_avoids_the_big_intermediate() {
        // pi,qj,ijkl,rk,sl->pqrs: p q r s i j k l = 0..8, all of size 10.
        let ops = vec![vec![0, 4], vec![1, 5], vec![4, 5, 6, 7], vec![2, 6], vec![3, 7]];
        let steps = greedy(&ops, &[0, 1, 2, 3], &[10; 8]);
        assert_eq!(steps.len(), 4);
        // Every intermediate has 4 labels (10^4 elements), never the 10^6 of a bad order.
        assert!(steps.iter().all(|s| s.keep.len() <= 4), "{steps:?}");
        assert_eq!(steps.last().map(|s| s.keep.clone()), Some(vec![0, 1, 2, 3]));
    }

    #[test]
    fn chain_contracts_shared_pairs() {
        // ij,jk,kl->il with j of size 2: jk·kl first (result j,l of 200 elements frees the
        // most), never the ij·kl outer product.
        let steps = greedy(&[vec![0, 1], vec![1, 2], vec![2, 3]], &[0, 3], &[100, 2, 100, 100]);
        assert_eq!(steps[0].pair, (1, 2));
        assert_eq!(steps[0].keep, vec![3, 1]);
        assert_eq!(steps[1], Step { pair: (0, 1), keep: vec![0, 3] });
    }
}
