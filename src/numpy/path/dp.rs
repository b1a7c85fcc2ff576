//! opt_einsum's dynamic programming ('dp'), minimising opt_einsum's FLOP count:
//!
//! 1. A label only one operand has (and not the output) is summed away first, in a step of
//!    its own; an operand that becomes a scalar that way waits for the end.
//! 2. Operands split into subgraphs connected by shared summed labels. In each, the cheapest
//!    tree is found bottom-up over connected subsets of 1, 2, ... operands, merging two
//!    disjoint subsets only when they share a summed label (no outer products). A cost cap,
//!    raised geometrically until a tree is found, skips expensive partial trees early.
//! 3. The subgraphs' results (and the scalars) are then multiplied, smallest first.
//!
//! With a memory limit, merges whose result exceeds it are skipped; when that leaves no tree,
//! the search is repeated over all operands at once with outer products allowed. The work is
//! bounded: at most a given number of subset pairs are examined and at most
//! [`DP_MAX_ENTRIES`] partial trees kept.

use std::collections::HashMap;

use super::problem::{bits, Labels, Problem};
use super::ssa::{ssa_to_linear, tree_to_ssa, Path};

/// The most operands dp takes (subsets are `u64` bitmaps).
pub(crate) const DP_MAX_OPERANDS: usize = 64;

/// The most partial trees dp keeps (about 64 MiB); more is [`DpFailure::Budget`].
pub(crate) const DP_MAX_ENTRIES: usize = 1 << 20;

/// Why dp gives no path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum DpFailure {
    /// More than [`DP_MAX_OPERANDS`] operands.
    TooMany,
    /// The work bound was reached.
    Budget,
    /// No tree keeps every intermediate within the limit.
    Limit,
}

/// One operand after the single-label sums: its labels, its original position, and whether
/// a summing step precedes it.
#[derive(Clone, Copy)]
struct Leaf {
    labels: Labels,
    operand: usize,
    summed: bool,
}

/// A partial tree: the operands (bitmap over leaves) it contracts, its result's labels, its
/// cost so far, and its first part (0 for a leaf).
#[derive(Clone, Copy)]
struct Entry {
    set: u64,
    labels: Labels,
    cost: f64,
    left: u64,
}

/// The search state shared by the subgraphs.
struct Search<'p> {
    p: &'p Problem,
    leaves: Vec<Leaf>,
    /// Per label, the leaves (bitmap) that have it.
    holders: Vec<u64>,
    limit: Option<u128>,
    budget: u64,
    spent: u64,
    entries: usize,
}

/// The dp path, or why there is none; at most `budget` subset pairs are examined.
pub(crate) fn dp(p: &Problem, limit: Option<u128>, budget: u64) -> Result<Path, DpFailure> {
    match search(p, limit, budget, false) {
        Err(DpFailure::Limit) if limit.is_some() => search(p, limit, budget, true),
        other => other,
    }
}

fn search(p: &Problem, limit: Option<u128>, budget: u64, outer: bool) -> Result<Path, DpFailure> {
    let n = p.len();
    if n <= 1 {
        return Ok(vec![(0..n).collect()]);
    }
    let (leaves, scalars) = single_label_sums(p);
    if leaves.len() > DP_MAX_OPERANDS {
        return Err(DpFailure::TooMany);
    }
    let mut holders = vec![0u64; p.sizes.len()];
    for (k, leaf) in leaves.iter().enumerate() {
        for l in bits(leaf.labels) {
            holders[l] |= 1 << k;
        }
    }
    let mut s = Search { p, leaves, holders, limit, budget, spent: 0, entries: 0 };
    for leaf in &s.leaves {
        if leaf.summed && !s.fits(leaf.labels) {
            return Err(DpFailure::Limit);
        }
    }
    let groups = if outer && !s.leaves.is_empty() { vec![s.all()] } else { s.subgraphs() };
    let last_alone = groups.len() == 1 && scalars.is_empty();
    let mut ssa: Path = Vec::new();
    // (result size, SSA id, labels) of each part to multiply at the end.
    let mut parts: Vec<(f64, usize, Labels)> = Vec::new();
    for &o in &scalars {
        ssa.push(vec![o]);
        parts.push((1.0, n + ssa.len() - 1, 0));
    }
    for g in groups {
        let levels = s.subgraph(g, outer, last_alone)?;
        let root = s.emit(g, &levels, &mut ssa);
        let labels = lookup(&levels, g).map_or(0, |e| e.labels);
        parts.push((p.size_f(labels), root, labels));
    }
    s.multiply_parts(parts, &mut ssa)?;
    Ok(ssa_to_linear(&ssa, n))
}

/// Step 1: the operands with their single-owner labels removed, and the operands that become
/// scalars (summed entirely).
fn single_label_sums(p: &Problem) -> (Vec<Leaf>, Vec<usize>) {
    let mut single = 0u64;
    let mut seen = p.output;
    let mut twice = p.output;
    for &i in &p.inputs {
        twice |= seen & i;
        seen |= i;
    }
    single |= seen & !twice;
    let mut leaves = Vec::new();
    let mut scalars = Vec::new();
    for (operand, &i) in p.inputs.iter().enumerate() {
        let labels = i & !single;
        if labels == 0 && i != 0 {
            scalars.push(operand);
        } else {
            leaves.push(Leaf { labels, operand, summed: labels != i });
        }
    }
    (leaves, scalars)
}

impl Search<'_> {
    fn fits(&self, labels: Labels) -> bool {
        self.limit.is_none_or(|l| self.p.size(labels) <= l)
    }

    fn all(&self) -> u64 {
        match self.leaves.len() {
            0 => 0,
            k => u64::MAX >> (64 - k),
        }
    }

    /// Step 2's subgraphs, each grown from its first leaf over shared summed labels.
    fn subgraphs(&self) -> Vec<u64> {
        let summed = !self.p.output;
        let mut unused = self.all();
        let mut groups = Vec::new();
        while unused != 0 {
            let mut group = unused & unused.wrapping_neg();
            let mut frontier = group;
            unused &= !group;
            while frontier != 0 {
                let k = frontier.trailing_zeros() as usize;
                frontier &= frontier - 1;
                let linked = bits(self.leaves[k].labels & summed)
                    .fold(0u64, |m, l| m | self.holders[l])
                    & unused;
                unused &= !linked;
                group |= linked;
                frontier |= linked;
            }
            groups.push(group);
        }
        groups
    }

    /// The result labels of contracting the leaves `set`, given the labels `involved`.
    fn result_labels(&self, set: u64, involved: Labels) -> Labels {
        bits(involved & !self.p.output)
            .filter(|&l| self.holders[l] & !set == 0)
            .fold(involved, |m, l| m & !(1u64 << l))
    }

    /// The levels (by subset size) of subgraph `g`'s search, the last holding `g` itself.
    fn subgraph(&mut self, g: u64, outer: bool, last_alone: bool) -> Result<Vec<Level>, DpFailure> {
        let size = g.count_ones() as usize;
        let mut levels: Vec<Level> = vec![Level::default(); size + 1];
        for k in bits(g) {
            let leaf = self.leaves[k];
            levels[1].insert(Entry { set: 1 << k, labels: leaf.labels, cost: 0.0, left: 0 });
        }
        let labels = bits(g).fold(0u64, |m, k| m | self.leaves[k].labels);
        let mut cap = self.p.size_f(labels & self.p.output).max(1.0);
        let step =
            bits(labels).map(|l| self.p.sizes[l] as f64).fold(f64::INFINITY, f64::min).max(2.0);
        let naive = 2.0 * size as f64 * self.p.size_f(labels).max(1.0);
        while levels[size].entries.is_empty() {
            for m in 2..=size {
                self.grow(&mut levels, m, cap, g, outer, last_alone)?;
            }
            if levels[size].entries.is_empty() && (cap > naive || cap.is_infinite()) {
                return Err(DpFailure::Limit);
            }
            cap *= step;
        }
        Ok(levels)
    }

    /// Adds to level `m` every merge of two smaller disjoint subsets within `cap`.
    fn grow(
        &mut self,
        levels: &mut [Level],
        m: usize,
        cap: f64,
        g: u64,
        outer: bool,
        last_alone: bool,
    ) -> Result<(), DpFailure> {
        let (lower, upper) = levels.split_at_mut(m);
        let target = &mut upper[0];
        for a in 1..=m / 2 {
            let (first, second) = (&lower[a].entries, &lower[m - a].entries);
            for e1 in first {
                for e2 in second {
                    self.spent += 1;
                    if self.spent > self.budget {
                        return Err(DpFailure::Budget);
                    }
                    if e1.set & e2.set != 0 || (a == m - a && e1.set >= e2.set) {
                        continue;
                    }
                    if !outer && e1.labels & e2.labels & !self.p.output == 0 {
                        continue;
                    }
                    let set = e1.set | e2.set;
                    let involved = e1.labels | e2.labels;
                    let labels = self.result_labels(set, involved);
                    let factor = if involved & !labels != 0 { 2.0 } else { 1.0 };
                    let cost = e1.cost + e2.cost + self.p.size_f(involved) * factor;
                    if cost > cap || target.get(set).is_some_and(|e| e.cost <= cost) {
                        continue;
                    }
                    let is_output = set == g && last_alone;
                    if !is_output && !self.fits(labels) {
                        continue;
                    }
                    if target.insert(Entry { set, labels, cost, left: e1.set }) {
                        self.entries += 1;
                        if self.entries > DP_MAX_ENTRIES {
                            return Err(DpFailure::Budget);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// Emits the SSA steps of subgraph `g`'s tree; returns the id of its result.
    fn emit(&self, g: u64, levels: &[Level], ssa: &mut Path) -> usize {
        let n = self.p.len();
        let split = |s: u64| lookup(levels, s).filter(|e| e.left != 0).map(|e| e.left);
        let leaf = |s: u64, ssa: &mut Path, next: &mut usize| {
            let leaf = self.leaves[s.trailing_zeros() as usize];
            if !leaf.summed {
                return leaf.operand;
            }
            ssa.push(vec![leaf.operand]);
            *next += 1;
            *next - 1
        };
        tree_to_ssa(g, n, split, leaf, ssa)
    }

    /// Step 3: multiplies the parts, smallest first, each result joining the next part.
    fn multiply_parts(
        &self,
        mut parts: Vec<(f64, usize, Labels)>,
        ssa: &mut Path,
    ) -> Result<(), DpFailure> {
        parts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let n = self.p.len();
        let mut iter = parts.into_iter();
        let Some((_, mut acc, mut labels)) = iter.next() else { return Ok(()) };
        let mut rest = iter.peekable();
        while let Some((_, id, l)) = rest.next() {
            labels |= l;
            if rest.peek().is_some() && !self.fits(labels) {
                return Err(DpFailure::Limit);
            }
            ssa.push(vec![acc, id]);
            acc = n + ssa.len() - 1;
        }
        Ok(())
    }
}

/// One level of the search: the best entry per subset, in insertion order.
#[derive(Clone, Default)]
struct Level {
    entries: Vec<Entry>,
    index: HashMap<u64, usize, foldhash::fast::FixedState>,
}

impl Level {
    fn get(&self, set: u64) -> Option<&Entry> {
        self.index.get(&set).map(|&i| &self.entries[i])
    }

    /// Stores `e` as its subset's best; true when the subset is new.
    fn insert(&mut self, e: Entry) -> bool {
        match self.index.get(&e.set) {
            Some(&i) => {
                self.entries[i] = e;
                false
            }
            None => {
                self.index.insert(e.set, self.entries.len());
                self.entries.push(e);
                true
            }
        }
    }
}

fn lookup(levels: &[Level], set: u64) -> Option<&Entry> {
    levels.get(set.count_ones() as usize).and_then(|l| l.get(set))
}

#[cfg(test)]
mod tests {
    use super::super::problem::{default_size, letters};
    use super::*;

    #[test]
    fn dp_costs_no_more_than_opt_einsum_on_its_edge_cases() {
        // opt_einsum's test_path_edge_cases for 'dp' (paths with equal cost may differ).
        for (eq, theirs) in [
            ("eb,cb,fb->cef", vec![vec![1, 2], vec![0, 1]]),
            ("dd,fb,be,cdb->cef", vec![vec![0, 3], vec![0, 2], vec![0, 1]]),
            ("bca,cdb,dbf,afc->", vec![vec![1, 2], vec![1, 2], vec![0, 1]]),
            ("dcc,fce,ea,dbf->ab", vec![vec![1, 2], vec![0, 2], vec![0, 1]]),
        ] {
            let p = letters(eq, &default_size);
            let ours = dp(&p, None, 1 << 20).expect("a path");
            assert!(p.path_cost_f(&ours) <= p.path_cost_f(&theirs), "{eq}: {ours:?}");
        }
    }

    #[test]
    fn scalars_and_single_labels_are_summed_first() {
        // opt_einsum's test_dp_edge_cases_all_singlet_indices: a,bcd,efg-> on sizes 2.
        let p = letters("a,bcd,efg->", &|_| 2);
        let path = dp(&p, None, 1 << 20).expect("a path");
        assert_eq!(path.len(), 5, "{path:?}");
        assert!(path[..3].iter().all(|s| s.len() == 1), "{path:?}");
    }

    #[test]
    fn limits_and_budgets_fail_cleanly() {
        let p = letters("ab,bc,cd,de->ae", &|_| 10);
        assert_eq!(dp(&p, Some(99), 1 << 20), Err(DpFailure::Limit));
        assert!(dp(&p, Some(100), 1 << 20).is_ok());
        assert_eq!(dp(&p, None, 3), Err(DpFailure::Budget));
        // A zero-sized label never stalls the cost cap.
        let z = letters("ab,bc,cd->ad", &|c| if c == 'a' { 0 } else { 3 });
        assert!(dp(&z, None, 1 << 20).is_ok());
    }
}
