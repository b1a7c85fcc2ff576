//! Adding and looking up the links and caps of row variables: through the lists in
//! [`RowLinks`](super::info::RowLinks), with the sets of [`LinkIndex`](super::link_index) for
//! variables whose lists are long.

use super::env::Env;
use super::store::RowId;
use crate::ids::RowVar;
use crate::shape::Row;

impl Env {
    /// Whether `y` is among the variables known to refine row variable `x` (a root).
    pub fn has_row_lower(&self, x: RowVar, y: RowVar) -> bool {
        self.link_index.has_lower(x, y).unwrap_or_else(|| self.row_lower(x).any(|v| v == y))
    }

    /// Whether `y` is among the variables row variable `x` (a root) refines.
    pub fn has_row_upper(&self, x: RowVar, y: RowVar) -> bool {
        self.link_index.has_upper(x, y).unwrap_or_else(|| self.row_upper(x).any(|v| v == y))
    }

    /// Links `x ⊑ y` (both roots): `y` among `x`'s upper neighbours, `x` among `y`'s lower.
    pub fn link_rows(&mut self, x: RowVar, y: RowVar) {
        self.row_links_mut(x).push_upper(y);
        self.row_links_mut(y).push_lower(x);
        let (links, store) = (&self.links, &self.store);
        if let Some(l) = links.get(self.row_info[x.index()].links) {
            self.link_index.added_upper(x, y, l, store);
        }
        if let Some(l) = links.get(self.row_info[y.index()].links) {
            self.link_index.added_lower(y, x, l, store);
        }
    }

    /// Whether `cap` is one of the caps of row variable `v` (a root) past the first.
    pub fn has_later_cap(&self, v: RowVar, cap: &Row) -> bool {
        match self.link_index.cap_candidates(v, cap) {
            Some(ids) => ids.iter().any(|&id| self.store.holds(id, cap)),
            None => self.row_caps(v).skip(1).any(|id| self.store.holds(id, cap)),
        }
    }

    /// Adds the stored cap `id` (holding `cap`) to the caps of row variable `v` (a root).
    pub fn push_cap(&mut self, v: RowVar, cap: &Row, id: RowId) {
        let links = self.row_links_mut(v);
        let later = links.caps().next().is_some();
        links.push_cap(id);
        if let Some(l) = self.links.get(self.row_info[v.index()].links).filter(|_| later) {
            self.link_index.added_cap(v, cap, id, l, &self.store);
        }
    }
}
