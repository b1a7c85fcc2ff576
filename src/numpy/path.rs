//! Contraction order for three or more operands: the greedy rule of opt_einsum.
//!
//! Repeatedly contract the pair of operands that share a label and minimise
//! `size(result) − size(a) − size(b)` (the memory the step frees); without a shared label,
//! the pair with the smallest result (an outer product of the two smallest). A step keeps
//! the labels still needed by another operand or the output; the last step produces the
//! output's labels in the output's order.

/// One pairwise step: the positions (in the current operand list) of the two operands and
/// the labels of the result, which is appended to the list after removing both.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// Positions of the two operands (`first < second`).
    pub pair: (usize, usize),
    /// Labels of the result.
    pub keep: Vec<usize>,
}

/// A candidate pair: whether it shares a label, its cost, its positions and its result.
type Candidate = (bool, f64, (usize, usize), Vec<usize>);

fn size(labels: &[usize], sizes: &[usize]) -> f64 {
    labels.iter().map(|&l| sizes.get(l).copied().unwrap_or(1) as f64).product()
}

/// The labels of contracting `a` and `b` that another operand (other than those at `skip`)
/// or the output still needs, output labels first in output order.
fn kept(a: &[usize], b: &[usize], others: &[&Vec<usize>], output: &[usize]) -> Vec<usize> {
    let needed = |l: usize| others.iter().any(|o| o.contains(&l));
    let mut keep: Vec<usize> =
        output.iter().copied().filter(|l| a.contains(l) || b.contains(l)).collect();
    for &l in a.iter().chain(b) {
        if !keep.contains(&l) && needed(l) {
            keep.push(l);
        }
    }
    keep
}

/// The greedy contraction path for operands with the given (deduplicated) labels.
pub fn greedy(operands: &[Vec<usize>], output: &[usize], sizes: &[usize]) -> Vec<Step> {
    let mut list: Vec<Vec<usize>> = operands.to_vec();
    let mut steps = Vec::new();
    while list.len() > 1 {
        if list.len() == 2 {
            steps.push(Step { pair: (0, 1), keep: output.to_vec() });
            break;
        }
        let mut best: Option<Candidate> = None;
        for i in 0..list.len() {
            for j in i + 1..list.len() {
                let shares = list[i].iter().any(|l| list[j].contains(l));
                let others: Vec<&Vec<usize>> = list
                    .iter()
                    .enumerate()
                    .filter(|&(k, _)| k != i && k != j)
                    .map(|(_, o)| o)
                    .collect();
                let keep = kept(&list[i], &list[j], &others, output);
                let result = size(&keep, sizes);
                let cost = if shares {
                    result - size(&list[i], sizes) - size(&list[j], sizes)
                } else {
                    result
                };
                let better = match &best {
                    None => true,
                    Some((bs, bc, _, _)) => (shares && !bs) || (shares == *bs && cost < *bc),
                };
                if better {
                    best = Some((shares, cost, (i, j), keep));
                }
            }
        }
        let Some((_, _, (i, j), keep)) = best else { break };
        list.remove(j);
        list.remove(i);
        list.push(keep.clone());
        steps.push(Step { pair: (i, j), keep });
    }
    steps
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
