//! Sets beside the link lists of row variables that have long ones, so that the solver looks a
//! link or a cap up by hash instead of walking the list. A parameter used by every step of a
//! long chain gains a link (compose) or a cap (pointwise, `..r..|64` with a fresh `r` each
//! time, which cannot be joined while `r` is unknown) per step: walked, a 40k-step chain took
//! 4 s and every step more cost more.
//!
//! The lists in [`RowLinks`] stay the record (their order is the order facts are re-emitted
//! in); the sets only answer membership, and exist for few variables.

use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

use foldhash::fast::FixedState;
use smallvec::SmallVec;

use super::info::RowLinks;
use super::store::{RowId, RowStore};
use crate::ids::RowVar;
use crate::shape::Row;

/// The length of a list (lower links, upper links, or caps past the first) from which a
/// variable's links are indexed.
pub const INDEX_FROM: usize = 16;

/// The sets of one indexed variable.
#[derive(Clone, Default)]
struct Sets {
    lower: HashSet<RowVar, FixedState>,
    upper: HashSet<RowVar, FixedState>,
    /// Caps past the first (the joined cap, replaced in place), by the hash of their rows.
    caps: HashMap<u64, SmallVec<[RowId; 1]>, FixedState>,
}

/// The sets of the row variables (roots) with long link lists.
#[derive(Clone, Default)]
pub struct LinkIndex {
    by_var: HashMap<RowVar, Box<Sets>, FixedState>,
    hasher: FixedState,
}

impl LinkIndex {
    /// Whether `y` is among the variables known to refine `x`, or `None` when `x` is not
    /// indexed.
    pub fn has_lower(&self, x: RowVar, y: RowVar) -> Option<bool> {
        self.by_var.get(&x).map(|s| s.lower.contains(&y))
    }

    /// Whether `y` is among the variables `x` refines, or `None` when `x` is not indexed.
    pub fn has_upper(&self, x: RowVar, y: RowVar) -> Option<bool> {
        self.by_var.get(&x).map(|s| s.upper.contains(&y))
    }

    /// The caps of `v` past the first whose rows hash as `row` does, or `None` when `v` is not
    /// indexed.
    pub fn cap_candidates(&self, v: RowVar, row: &Row) -> Option<&[RowId]> {
        let sets = self.by_var.get(&v)?;
        Some(sets.caps.get(&self.hasher.hash_one(row)).map_or(&[], |ids| ids.as_slice()))
    }

    /// Records a new lower link of `x` (already in its list), indexing `x` if its lists are
    /// now long.
    pub fn added_lower(&mut self, x: RowVar, y: RowVar, links: &RowLinks, store: &RowStore) {
        match self.by_var.get_mut(&x) {
            Some(s) => _ = s.lower.insert(y),
            None => self.index_if_long(x, links, store),
        }
    }

    /// Records a new upper link of `x` (already in its list), as [`LinkIndex::added_lower`].
    pub fn added_upper(&mut self, x: RowVar, y: RowVar, links: &RowLinks, store: &RowStore) {
        match self.by_var.get_mut(&x) {
            Some(s) => _ = s.upper.insert(y),
            None => self.index_if_long(x, links, store),
        }
    }

    /// Records a new cap `id` holding `row` past the first of `v` (already in its list), as
    /// [`LinkIndex::added_lower`].
    pub fn added_cap(
        &mut self,
        v: RowVar,
        row: &Row,
        id: RowId,
        links: &RowLinks,
        store: &RowStore,
    ) {
        match self.by_var.get_mut(&v) {
            Some(s) => s.caps.entry(self.hasher.hash_one(row)).or_default().push(id),
            None => self.index_if_long(v, links, store),
        }
    }

    /// Drops `v`'s sets (its links are taken: it is bound or united).
    pub fn forget(&mut self, v: RowVar) {
        if !self.by_var.is_empty() {
            self.by_var.remove(&v);
        }
    }

    /// Builds `v`'s sets from its lists when one of them is longer than [`INDEX_FROM`].
    fn index_if_long(&mut self, v: RowVar, links: &RowLinks, store: &RowStore) {
        let later_caps = links.caps().skip(1);
        let long = |n: usize| n > INDEX_FROM;
        if !(long(links.lower().count()) || long(links.upper().count()) || long(later_caps.count()))
        {
            return;
        }
        let mut sets = Box::new(Sets {
            lower: links.lower().collect(),
            upper: links.upper().collect(),
            ..Sets::default()
        });
        for id in links.caps().skip(1) {
            let hash = self.hasher.hash_one(store.row(id));
            sets.caps.entry(hash).or_default().push(id);
        }
        self.by_var.insert(v, sets);
    }
}
