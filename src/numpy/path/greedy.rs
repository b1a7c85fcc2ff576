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
//! intermediate).
//!
//! The work is bounded (einrow's rule): opt_einsum compares every pair of tensors sharing a
//! summed label, which for many operands of distinct label sets is quadratic. At most
//! [`GREEDY_BUDGET`] pairs are examined in full, a pair counted once per summed label its
//! tensors share (and each new result counted against every live tensor holding one of its
//! summed labels); a search that would examine more pairs caps, from then on, each tensor's
//! partners to the first [`CAPPED_PARTNERS`] live tensors (by SSA id) per shared label, so
//! the rest of the path costs O(n · labels · [`CAPPED_PARTNERS`] · log n). Without a limit,
//! and within the budget, the path equals opt_einsum's.
//!
//! Live tensors per summed label sit in an ordered map by SSA id: a contraction removes and
//! inserts its tensors' entries in O(log n) each, and the map's length is the label's count.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};

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

/// The candidate pairs greedy examines in full (opt_einsum's search) before it caps each
/// tensor's partners (see [`Optimize::Greedy`](super::Optimize::Greedy)): about a second of
/// planning.
pub const GREEDY_BUDGET: u64 = 1 << 24;

/// Past [`GREEDY_BUDGET`], the partners of a tensor per shared summed label: the first this
/// many live tensors (by SSA id) holding that label.
pub const CAPPED_PARTNERS: usize = 16;

/// The live tensors holding one summed label: SSA id -> label set.
type Holders = BTreeMap<usize, Labels>;

/// The greedy state over live tensors, each named by its label set (unique among the live).
struct Greedy<'p> {
    p: &'p Problem,
    output: Labels,
    limit: Option<u128>,
    /// Live label set -> SSA id.
    live: HashMap<Labels, usize, foldhash::fast::FixedState>,
    /// Per summed label, the live tensors that have it.
    by_label: Vec<Holders>,
    /// Summed labels at least two / three live tensors have.
    ref2: Labels,
    ref3: Labels,
    queue: BinaryHeap<Reverse<Candidate>>,
    ssa: Path,
    next: usize,
    /// Candidate pairs examined in full so far; past `budget`, `capped` is set.
    spent: u64,
    budget: u64,
    capped: bool,
}

/// The greedy linear path (see the module documentation).
pub(crate) fn greedy(p: &Problem, limit: Option<u128>) -> Path {
    greedy_within(p, limit, GREEDY_BUDGET)
}

/// The greedy path examining at most `budget` candidate pairs in full.
fn greedy_within(p: &Problem, limit: Option<u128>, budget: u64) -> Path {
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
        by_label: vec![Holders::new(); p.sizes.len()],
        ref2: 0,
        ref3: 0,
        queue: BinaryHeap::with_capacity(2 * n),
        ssa: Vec::with_capacity(n),
        next: n,
        spent: 0,
        budget,
        capped: false,
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
        for &(id, key) in &keys {
            for l in bits(key & !self.output) {
                self.by_label[l].insert(id, key);
            }
        }
        for l in 0..self.by_label.len() {
            self.update_refs(l);
        }
        for l in 0..self.by_label.len() {
            // In id order: each tensor against those with larger ids.
            let dims: Vec<Labels> = self.by_label[l].values().copied().collect();
            for (i, &k1) in dims.iter().enumerate() {
                let later = &dims[i + 1..];
                let partners = if self.afford(later.len()) {
                    later
                } else {
                    &later[..later.len().min(CAPPED_PARTNERS)]
                };
                self.push_best(k1, partners);
            }
        }
    }

    /// Whether `pairs` more candidate pairs fit in the budget (counting them if so); once
    /// one does not, none do.
    fn afford(&mut self, pairs: usize) -> bool {
        let pairs = u64::try_from(pairs).unwrap_or(u64::MAX);
        match self.spent.checked_add(pairs) {
            Some(total) if !self.capped && total <= self.budget => {
                self.spent = total;
                true
            }
            _ => {
                self.capped = true;
                false
            }
        }
    }

    /// The partners of a new result: every live tensor sharing a summed label with it, or
    /// past the budget the first [`CAPPED_PARTNERS`] per label; sorted, without duplicates.
    fn partners(&mut self, k12: Labels) -> Vec<Labels> {
        let summed = k12 & !self.output;
        let holders: usize = bits(summed).map(|l| self.by_label[l].len()).sum();
        let take = if self.afford(holders) { usize::MAX } else { CAPPED_PARTNERS };
        let mut partners: Vec<Labels> = bits(summed)
            .flat_map(|l| self.by_label[l].values().filter(|&&k| k != k12).take(take).copied())
            .collect();
        partners.sort_unstable();
        partners.dedup();
        partners
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
            self.unlist(c.k1, id1);
            self.unlist(c.k2, id2);
            self.ssa.push(vec![id1, id2]);
            if let Some(&same) = self.live.get(&c.k12) {
                // A live tensor has the same labels: multiply them at once.
                self.unlist(c.k12, same);
                self.ssa.push(vec![same, self.next]);
                self.next += 1;
            }
            for l in bits(c.k12 & !self.output) {
                self.by_label[l].insert(self.next, c.k12);
            }
            self.live.insert(c.k12, self.next);
            self.next += 1;
            for l in bits(c.k1 | (c.k2 & !self.output)) {
                self.update_refs(l);
            }
            let partners = self.partners(c.k12);
            self.push_best(c.k12, &partners);
        }
    }

    /// Takes the tensor `key` (SSA id `id`) off its labels' holder lists.
    fn unlist(&mut self, key: Labels, id: usize) {
        for l in bits(key & !self.output) {
            self.by_label[l].remove(&id);
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

    /// Operand `k` holds the letters of the set bits of `k + 1` among the first 12.
    fn subsets(n: usize) -> Problem {
        let terms: Vec<String> = (1..=n)
            .map(|k| (0..12).filter(|b| k >> b & 1 == 1).map(|b| char::from(b'a' + b)).collect())
            .collect();
        letters(&format!("{}->", terms.join(",")), &|_| 2)
    }

    #[test]
    fn capped_partners_still_contract_everything() {
        let p = subsets(600);
        let full = greedy_within(&p, None, u64::MAX);
        assert_eq!(greedy(&p, None), full, "within the budget the search is exact");
        for budget in [0, 1_000, 20_000] {
            let path = greedy_within(&p, None, budget);
            assert_ne!(path, full, "budget {budget}: capped");
            assert_eq!(path.len(), 599, "budget {budget}: pairwise to the end");
            // Each step takes two positions of the list left, which shrinks by one.
            for (k, step) in path.iter().enumerate() {
                assert!(step.len() == 2 && step[0] < step[1] && step[1] < 600 - k, "{k}");
            }
        }
    }
}
