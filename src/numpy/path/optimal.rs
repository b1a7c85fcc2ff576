//! The exhaustive search: the cheapest pairwise contraction tree by FLOPs, outer products
//! included, by dynamic programming over every subset of operands.
//!
//! Contracting a subset `s` pairwise in any order yields the same tensor: the labels of `s`
//! that the output or an operand outside `s` has. So the cheapest tree for `s` is the
//! cheapest split `s = s1 ∪ s2` of cheapest trees plus the one contraction joining them, and
//! the search visits each split once (`3^n / 2` of them). A step's FLOPs are opt_einsum's
//! count (the sizes of all labels involved, doubled when one is summed away), so the result
//! is the minimum of opt_einsum's FLOP count over all pairwise paths. The work is bounded by
//! [`OPTIMAL_MAX_OPERANDS`]; an upper bound (another path's cost) prunes subsets and splits
//! that cannot beat it.

use super::problem::{Labels, Problem, SizeTable};
use super::ssa::{ssa_to_linear, tree_to_ssa, Path};

/// The most operands the exhaustive search takes (`3^16 / 2` splits, about 21 million).
pub const OPTIMAL_MAX_OPERANDS: usize = 16;

/// The cheapest pairwise path whose intermediates all fit `limit` and whose cost is below
/// `bound`; `None` when there is none. `p` has at most [`OPTIMAL_MAX_OPERANDS`] operands.
pub(crate) fn optimal(p: &Problem, limit: Option<u128>, bound: f64) -> Option<Path> {
    let n = p.len();
    if n <= 2 {
        return Some(vec![(0..n).collect()]);
    }
    if n > OPTIMAL_MAX_OPERANDS {
        return None;
    }
    let full = (1usize << n) - 1;
    let tensors = subset_tensors(p, full);
    let table = SizeTable::new(p);
    let mut best = vec![f64::INFINITY; full + 1];
    let mut split = vec![0u32; full + 1];
    for j in 0..n {
        best[1 << j] = 0.0;
    }
    for s in 3..=full {
        if s.count_ones() < 2 || (s != full && limit.is_some_and(|l| p.size(tensors[s]) > l)) {
            continue;
        }
        if let Some((cost, s1)) = best_split(s, &tensors, &best, &table, bound) {
            best[s] = cost;
            split[s] = s1 as u32;
        }
    }
    if !best[full].is_finite() {
        return None;
    }
    let mut ssa = Vec::with_capacity(n - 1);
    let split_of = |s: u64| (s.count_ones() >= 2).then(|| u64::from(split[s as usize]));
    let leaf = |s: u64, _: &mut Path, _: &mut usize| s.trailing_zeros() as usize;
    tree_to_ssa(full as u64, n, split_of, leaf, &mut ssa);
    Some(ssa_to_linear(&ssa, n))
}

/// The labels of the tensor each subset stands for: an operand's own labels for a single
/// operand (pairwise paths sum nothing before its first step), else the subset's labels
/// that the output or an operand outside it has.
fn subset_tensors(p: &Problem, full: usize) -> Vec<Labels> {
    let mut union = vec![0u64; full + 1];
    for s in 1..=full {
        union[s] = union[s & (s - 1)] | p.inputs[s.trailing_zeros() as usize];
    }
    (0..=full)
        .map(|s| {
            if s.count_ones() == 1 {
                p.inputs[s.trailing_zeros() as usize]
            } else {
                union[s] & (union[full ^ s] | p.output)
            }
        })
        .collect()
}

/// The cheapest split of `s` below `bound`: each part's best cost plus the joining step's
/// FLOPs. Parts are enumerated once each (the part holding `s`'s lowest operand).
fn best_split(
    s: usize,
    tensors: &[Labels],
    best: &[f64],
    table: &SizeTable,
    bound: f64,
) -> Option<(f64, usize)> {
    let result = tensors[s];
    let low = s & s.wrapping_neg();
    let rest = s ^ low;
    let mut found: Option<(f64, usize)> = None;
    let mut cap = bound;
    let mut sub = rest;
    loop {
        sub = (sub.wrapping_sub(1)) & rest;
        let s1 = low | sub;
        let s2 = s ^ s1;
        let parts = best[s1] + best[s2];
        if parts < cap {
            let involved = tensors[s1] | tensors[s2];
            let factor = if involved & !result != 0 { 2.0 } else { 1.0 };
            let total = parts + table.size(involved) * factor;
            if total < cap {
                cap = total;
                found = Some((total, s1));
            }
        }
        if sub == 0 {
            break;
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::super::problem::letters;
    use super::*;

    #[test]
    fn finds_the_opt_einsum_optimal_paths() {
        // opt_einsum's test_path_optimal (GEMM1) and the edge cases with the default sizes.
        let sizes = |c: char| [1, 2, 3, 4][(c as u8 - b'a') as usize];
        let p = letters("abd,ac,bdc->", &sizes);
        assert_eq!(optimal(&p, None, f64::INFINITY), Some(vec![vec![0, 2], vec![0, 1]]));
        // A limit no pair fits: nothing pairwise.
        assert_eq!(optimal(&p, Some(1), f64::INFINITY), None);
    }

    #[test]
    fn never_above_any_other_path() {
        // ab,cd,ef,fg: the cheapest path takes the small outer product late.
        let p = letters("ab,cd,ef,fg", &|c| if c == 'g' { 2 } else { 10 });
        let best = optimal(&p, None, f64::INFINITY).expect("a path");
        let cost = p.path_cost_f(&best);
        for other in [
            vec![vec![2, 3], vec![0, 2], vec![0, 1]],
            vec![vec![0, 1], vec![0, 1], vec![0, 1]],
            vec![vec![0, 3], vec![0, 1], vec![0, 1]],
        ] {
            assert!(cost <= p.path_cost_f(&other), "{best:?} vs {other:?}");
        }
        // With the cost as bound nothing cheaper exists.
        assert_eq!(optimal(&p, None, cost), None);
    }
}
