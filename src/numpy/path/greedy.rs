//! The greedy path, by opt_einsum's rules (its `greedy` optimizer):
//!
//! 1. Labels every operand has count as output labels (they can only go at the last step).
//! 2. Operands with the same label set are multiplied elementwise first.
//! 3. Repeatedly, of the candidate pairs sharing a summed label, contract the one whose result
//!    frees the most memory: cost `size(result) - size(a) - size(b)`, ties broken by the
//!    larger and then the smaller SSA id. A result keeps the output labels, the labels both
//!    share that a third tensor has, and the labels one has that another tensor has.
//!    Candidates are the cheapest partner of each tensor per shared label, recomputed only for
//!    each new result (opt_einsum's queue, so the same pairs are seen).
//! 4. What is left shares no summed label: outer products, smallest (by output size) first.
//!
//! With a memory limit (einrow's rule; opt_einsum switches to a branch search instead): a pair
//! whose result exceeds the limit is never a candidate, and when the remaining tensors cannot
//! be combined pairwise within the limit, the last step contracts all of them at once (no
//! intermediate). Without a limit the path equals opt_einsum's.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use smallvec::SmallVec;

use super::problem::{bits, Labels, Problem};
use super::ssa::{ssa_to_linear, Path};

/// A candidate contraction: ordered as opt_einsum's heap orders them.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Candidate {
    cost: i128,
    id2: usize,
    id1: usize,
    k1: Labels,
    k2: Labels,
    k12: Labels,
}

/// Tensors (by label set) sharing a label; few in most einsums.
type Keys = SmallVec<[Labels; 6]>;

/// The greedy state over live tensors, each named by its label set (unique among the live).
struct Greedy<'p> {
    p: &'p Problem,
    output: Labels,
    limit: Option<u128>,
    /// Live label set -> SSA id.
    live: HashMap<Labels, usize, foldhash::fast::FixedState>,
    /// Per summed label, the live tensors that have it.
    by_label: Vec<Keys>,
    /// Summed labels at least two / three live tensors have.
    ref2: Labels,
    ref3: Labels,
    queue: BinaryHeap<Reverse<Candidate>>,
    ssa: Path,
    next: usize,
}

/// The greedy linear path (see the module documentation).
pub(crate) fn greedy(p: &Problem, limit: Option<u128>) -> Path {
    let n = p.len();
    if n <= 1 {
        return vec![(0..n).collect()];
    }
    let common = p.inputs.iter().fold(u64::MAX, |m, &i| m & i);
    let mut g = Greedy {
        p,
        output: p.output | common,
        limit,
        live: HashMap::with_capacity_and_hasher(n, foldhash::fast::FixedState::default()),
        by_label: vec![Keys::new(); p.sizes.len()],
        ref2: 0,
        ref3: 0,
        queue: BinaryHeap::with_capacity(2 * n),
        ssa: Vec::with_capacity(n),
        next: n,
    };
    if !g.dedup() {
        return vec![(0..n).collect()];
    }
    g.seed();
    g.contract_shared();
    g.outer_products();
    ssa_to_linear(&g.ssa, n)
}

impl Greedy<'_> {
    fn fits(&self, labels: Labels) -> bool {
        self.limit.is_none_or(|l| self.p.size(labels) <= l)
    }

    /// Multiplies operands with equal label sets; false when that would break the limit.
    fn dedup(&mut self) -> bool {
        for (id, &key) in self.p.inputs.iter().enumerate() {
            if let Some(&first) = self.live.get(&key) {
                if !self.fits(key) {
                    return false;
                }
                self.ssa.push(vec![first, id]);
                self.live.insert(key, self.next);
                self.next += 1;
            } else {
                self.live.insert(key, id);
            }
        }
        true
    }

    /// Label bookkeeping and the first candidates: per summed label, each tensor's cheapest
    /// partner among the tensors with larger ids.
    fn seed(&mut self) {
        let mut keys: SmallVec<[(usize, Labels); 16]> =
            self.live.iter().map(|(&k, &id)| (id, k)).collect();
        keys.sort_unstable();
        for &(_, key) in &keys {
            for l in bits(key & !self.output) {
                self.by_label[l].push(key);
            }
        }
        for l in 0..self.by_label.len() {
            self.update_refs(l);
        }
        for l in 0..self.by_label.len() {
            // `by_label[l]` is in id order (filled from `keys`).
            let dims = self.by_label[l].clone();
            for (i, &k1) in dims.iter().enumerate() {
                self.push_best(k1, &dims[i + 1..]);
            }
        }
    }

    fn update_refs(&mut self, l: usize) {
        let bit = 1u64 << l;
        let count = self.by_label[l].len();
        self.ref2 = if count >= 2 { self.ref2 | bit } else { self.ref2 & !bit };
        self.ref3 = if count >= 3 { self.ref3 | bit } else { self.ref3 & !bit };
    }

    fn candidate(&self, k1: Labels, k2: Labels) -> Candidate {
        let either = k1 | k2;
        let two = k1 & k2;
        let k12 = (either & self.output) | (two & self.ref3) | ((either ^ two) & self.ref2);
        let size = |k| i128::try_from(self.p.size(k)).unwrap_or(i128::MAX);
        let cost = size(k12).saturating_sub(size(k1)).saturating_sub(size(k2));
        let id = |k| self.live.get(&k).copied().unwrap_or(usize::MAX);
        let (id1, id2) = (id(k1), id(k2));
        if id1 > id2 {
            Candidate { cost, id2: id1, id1: id2, k1: k2, k2: k1, k12 }
        } else {
            Candidate { cost, id2, id1, k1, k2, k12 }
        }
    }

    /// Queues the cheapest candidate of `k1` with one of `partners` (that fits the limit).
    fn push_best(&mut self, k1: Labels, partners: &[Labels]) {
        let best =
            partners.iter().map(|&k2| self.candidate(k1, k2)).filter(|c| self.fits(c.k12)).min();
        if let Some(c) = best {
            self.queue.push(Reverse(c));
        }
    }

    /// Contracts candidate pairs until none is left.
    fn contract_shared(&mut self) {
        while let Some(Reverse(c)) = self.queue.pop() {
            if !self.live.contains_key(&c.k1) || !self.live.contains_key(&c.k2) {
                continue; // obsolete: a tensor was contracted since
            }
            let id1 = self.live.remove(&c.k1).unwrap_or(0);
            let id2 = self.live.remove(&c.k2).unwrap_or(0);
            for k in [c.k1, c.k2] {
                for l in bits(k & !self.output) {
                    self.by_label[l].retain(|x| *x != k);
                }
            }
            self.ssa.push(vec![id1, id2]);
            if let Some(&same) = self.live.get(&c.k12) {
                // A live tensor has the same labels: multiply them at once.
                self.ssa.push(vec![same, self.next]);
                self.next += 1;
            } else {
                for l in bits(c.k12 & !self.output) {
                    self.by_label[l].push(c.k12);
                }
            }
            self.live.insert(c.k12, self.next);
            self.next += 1;
            for l in bits(c.k1 | (c.k2 & !self.output)) {
                self.update_refs(l);
            }
            let mut partners: Keys =
                bits(c.k12).flat_map(|l| self.by_label[l].iter().copied()).collect();
            partners.sort_unstable();
            partners.dedup();
            partners.retain(|k| *k != c.k12);
            self.push_best(c.k12, &partners);
        }
    }

    /// Outer products of what is left, smallest first; under a limit, one final step over
    /// all of it when a summed label is still shared or an outer product is too large.
    fn outer_products(&mut self) {
        if self.live.len() <= 1 {
            return;
        }
        if self.limit.is_some() && self.by_label.iter().any(|ks| ks.len() >= 2) {
            // Pairs sharing a summed label were all over the limit.
            return self.contract_all_live(&[]);
        }
        let mut queue: BinaryHeap<Reverse<(u128, usize, Labels)>> = self
            .live
            .iter()
            .map(|(&k, &id)| Reverse((self.p.size(k & self.output), id, k)))
            .collect();
        let Some(Reverse((_, mut id1, mut k1))) = queue.pop() else { return };
        while let Some(Reverse((_, id2, k2))) = queue.pop() {
            let k12 = (k1 | k2) & self.output;
            if !queue.is_empty() && !self.fits(k12) {
                let rest: Vec<usize> =
                    [id1, id2].into_iter().chain(queue.iter().map(|r| r.0 .1)).collect();
                return self.contract_all_live(&rest);
            }
            self.ssa.push(vec![id1.min(id2), id1.max(id2)]);
            queue.push(Reverse((self.p.size(k12), self.next, k12)));
            self.next += 1;
            if let Some(Reverse((_, i, k))) = queue.pop() {
                (id1, k1) = (i, k);
            }
        }
    }

    /// One step over the given ids (every live tensor when empty).
    fn contract_all_live(&mut self, ids: &[usize]) {
        let mut all: Vec<usize> =
            if ids.is_empty() { self.live.values().copied().collect() } else { ids.to_vec() };
        all.sort_unstable();
        self.ssa.push(all);
        self.live.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::super::problem::{default_size, letters};
    use super::*;

    #[test]
    fn opt_einsum_edge_cases() {
        // opt_einsum's test_path_edge_cases for 'greedy'.
        for (eq, want) in [
            ("eb,cb,fb->cef", vec![vec![0, 2], vec![0, 1]]),
            ("dd,fb,be,cdb->cef", vec![vec![0, 3], vec![0, 1], vec![0, 1]]),
            ("bca,cdb,dbf,afc->", vec![vec![1, 2], vec![0, 2], vec![0, 1]]),
            ("dcc,fce,ea,dbf->ab", vec![vec![1, 2], vec![0, 1], vec![0, 1]]),
        ] {
            assert_eq!(greedy(&letters(eq, &default_size), None), want, "{eq}");
        }
    }

    #[test]
    fn memory_limits_end_with_one_step() {
        // opt_einsum's test_memory_paths and test_greedy_edge_cases.
        let p = letters("abc,bdef,fghj,cem,mhk,ljk->adgl", &default_size);
        assert_eq!(greedy(&p, Some(5)), vec![vec![0, 1, 2, 3, 4, 5]]);
        let want = vec![vec![0, 3], vec![0, 4], vec![0, 2], vec![0, 2], vec![0, 1]];
        assert_eq!(greedy(&p, None), want);
        let q = letters("abc,cfd,dbe,efa", &|_| 20);
        assert_eq!(greedy(&q, Some(8000)), vec![vec![0, 1, 2, 3]]);
        assert_eq!(greedy(&q, None), vec![vec![0, 1], vec![0, 2], vec![0, 1]]);
        let r = letters("a,ac,ab,ad,cd,bd,bc->", &|_| 20);
        assert_eq!(greedy(&r, Some(400)), vec![vec![0, 1], vec![0, 1, 2, 3, 4, 5]]);
    }

    #[test]
    fn outer_products_smallest_first() {
        // opt_einsum's test_can_optimize_outer_products.
        let p = letters("ab,cd,ef,fg", &|c| if c == 'g' { 2 } else { 10 });
        assert_eq!(greedy(&p, None), vec![vec![2, 3], vec![0, 2], vec![0, 1]]);
    }
}
