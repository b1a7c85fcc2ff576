//! The solver's state: ena union-find tables for dim and row variables, with small `Copy`
//! values pointing into arenas (dims in a vector, rows in a `RowStore`), and side tables for
//! bounds, caps and provenance.
//!
//! A bound variable's value is stored once (in `dim_values` / the row store; solved sizes are
//! interned, as a program binds thousands of variables to a handful of sizes); substitution is
//! lazy ([`Env::dim`], [`Env::row`]), so binding a variable costs O(its own facts), never
//! O(all variables).

use std::collections::HashMap;

use ena::unify::{InPlaceUnificationTable, NoError, UnifyValue};
use smallvec::SmallVec;

use super::constraint::RowArg;
pub use super::info::{sole, DimInfo, LinkSlab, RowInfo, RowLinks};
use super::link_index::LinkIndex;
use super::names::Names;
pub use super::nodes::{Node, NodeCache, Summary};
use super::store::{RowId, RowStore};
pub use super::subst::Resolved;
use crate::ids::{DimVar, RowVar};
use crate::shape::{Dim, DimExprs, Row, Solved};

/// The ena value of a dim variable: the index of its bound value, `u32::MAX` while unbound
/// (4 bytes, so that a variable's ena entry is 12).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DimVal(u32);

/// The ena value of a row variable: the index of its bound row, `u32::MAX` while unbound.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowVal(u32);

const UNBOUND: u32 = u32::MAX;

impl DimVal {
    /// The index of the bound value.
    pub fn get(self) -> Option<u32> {
        (self.0 != UNBOUND).then_some(self.0)
    }
}

impl RowVal {
    /// The index of the bound row.
    pub fn get(self) -> Option<u32> {
        (self.0 != UNBOUND).then_some(self.0)
    }
}

impl UnifyValue for DimVal {
    type Error = NoError;
    fn unify_values(a: &Self, b: &Self) -> Result<Self, NoError> {
        // Only unknown variables are united; values are unified structurally by the solver.
        debug_assert!(a.0 == UNBOUND || b.0 == UNBOUND);
        Ok(DimVal(a.0.min(b.0)))
    }
}

impl UnifyValue for RowVal {
    type Error = NoError;
    fn unify_values(a: &Self, b: &Self) -> Result<Self, NoError> {
        debug_assert!(a.0 == UNBOUND || b.0 == UNBOUND);
        Ok(RowVal(a.0.min(b.0)))
    }
}

/// Number of dim values from which solved sizes are interned.
const INTERN_FROM: usize = 64;

/// The union-find tables and side tables.
#[derive(Clone, Default)]
pub struct Env {
    pub(in crate::infer) dims: InPlaceUnificationTable<DimVar>,
    rows: InPlaceUnificationTable<RowVar>,
    pub(in crate::infer) dim_values: Vec<Dim>,
    /// The structure of affine and concatenation dims.
    pub exprs: DimExprs,
    /// The substituted values of the nodes of `exprs` (see `infer/solve/subst.rs`).
    pub cache: NodeCache,
    /// A fast fixed hash: a program has few distinct sizes, and each is hashed often.
    solved_ids: HashMap<Solved, u32, foldhash::fast::FixedState>,
    /// Values of bound row variables and declared shapes of leaves.
    pub store: RowStore,
    /// Side table indexed by dim variable.
    pub dim_info: Vec<DimInfo>,
    /// Side table indexed by row variable.
    pub row_info: Vec<RowInfo>,
    pub(in crate::infer) links: LinkSlab,
    /// Sets beside the link lists of row variables with long ones.
    pub(in crate::infer) link_index: LinkIndex,
    empty_row: Option<RowId>,
    names: Names,
    /// Dim variables that gained an upper neighbour since the last stage-2 collapse.
    pub linked_dims: Vec<DimVar>,
    /// Row variables that gained an upper neighbour since the last stage-2 collapse.
    pub linked_rows: Vec<RowVar>,
    /// Whether bindings and unions are recorded in `changed_*` (some constraint is deferred).
    pub watching: bool,
    /// Dim variables (roots at the time) bound or united since the solver last looked.
    pub changed_dims: Vec<DimVar>,
    /// Row variables (roots at the time) bound or united since the solver last looked.
    pub changed_rows: Vec<RowVar>,
    /// Rows that queued constraints hold ([`RowArg::Scratch`]): reused from one operation to
    /// the next instead of a box per row.
    scratch: Vec<Row>,
    /// Where each united variable went, for reading without path compression (`read/accessors.rs`).
    pub(in crate::infer) parents: super::read::accessors::Parents,
}

impl Env {
    /// A fresh dim variable.
    pub fn new_dim(&mut self, name: Option<&str>) -> DimVar {
        let v = self.dims.new_key(DimVal(UNBOUND));
        self.parents.new_dim();
        let name = name.map(|n| self.names.intern(n));
        self.dim_info.push(DimInfo::named(name));
        v
    }

    /// The label a dim variable was created for.
    pub fn dim_name(&self, v: DimVar) -> Option<&str> {
        let id = self.dim_info.get(v.index())?.name_id()?;
        self.names.get(id).map(|n| n.as_str())
    }

    /// A fresh row variable.
    pub fn new_row(&mut self) -> RowVar {
        let v = self.rows.new_key(RowVal(UNBOUND));
        self.parents.new_row();
        self.row_info.push(RowInfo::default());
        v
    }

    /// Three fresh row variables with consecutive indices (a tensor's batch, input and output
    /// rows); returns the first.
    pub fn new_rows3(&mut self) -> RowVar {
        let first = self.new_row();
        self.new_row();
        self.new_row();
        first
    }

    /// The links of row variable `v` (a root), if it has any.
    fn links_of(&self, v: RowVar) -> Option<&RowLinks> {
        self.links.get(self.row_info[v.index()].links)
    }

    /// Variables known to refine row variable `v` (a root).
    pub fn row_lower(&self, v: RowVar) -> impl Iterator<Item = RowVar> + '_ {
        self.links_of(v).into_iter().flat_map(RowLinks::lower)
    }

    /// Variables row variable `v` (a root) refines.
    pub fn row_upper(&self, v: RowVar) -> impl Iterator<Item = RowVar> + '_ {
        self.links_of(v).into_iter().flat_map(RowLinks::upper)
    }

    /// Lower bounds of row variable `v` (a root), in the row store; the first is the joined cap.
    pub fn row_caps(&self, v: RowVar) -> impl Iterator<Item = RowId> + '_ {
        self.links_of(v).into_iter().flat_map(RowLinks::caps)
    }

    /// The links of row variable `v` (a root), created on first write.
    pub fn row_links_mut(&mut self, v: RowVar) -> &mut RowLinks {
        self.links.get_mut(&mut self.row_info[v.index()].links)
    }

    /// Takes the info and links of row variable `v` out (it is being bound or united).
    pub fn take_row_info(&mut self, v: RowVar) -> (RowInfo, RowLinks) {
        self.link_index.forget(v);
        let info = std::mem::take(&mut self.row_info[v.index()]);
        let links = self.links.take(info.links);
        (info, links)
    }

    /// The representative of a dim variable.
    pub fn dim_root(&mut self, v: DimVar) -> DimVar {
        self.dims.find(v)
    }

    /// The representative of a row variable.
    pub fn row_root(&mut self, v: RowVar) -> RowVar {
        self.rows.find(v)
    }

    /// Unites two unbound dim variables; returns (new root, the other old root).
    pub fn union_dims(&mut self, a: DimVar, b: DimVar) -> (DimVar, DimVar) {
        let (ra, rb) = (self.dims.find(a), self.dims.find(b));
        self.dims.union(ra, rb);
        let root = self.dims.find(ra);
        let other = if root == ra { rb } else { ra };
        // Only the variable that stops being a root changes for what waits on it: a
        // constraint that mentions both is woken through it, and one that mentions only the
        // root reads the same form as before (many constraints may wait on one root that
        // every step unites a fresh variable into).
        if self.watching && other != root {
            self.changed_dims.push(other);
        }
        // Values that mention the root stay as they are; those that mention the other old
        // root must name the new one.
        self.cache.var_changed(other, self.watching);
        self.parents.unite_dims(other, root);
        (root, other)
    }

    /// Unites two unbound row variables; returns (new root, the other old root).
    pub fn union_rows(&mut self, a: RowVar, b: RowVar) -> (RowVar, RowVar) {
        let (ra, rb) = (self.rows.find(a), self.rows.find(b));
        self.rows.union(ra, rb);
        let root = self.rows.find(ra);
        let other = if root == ra { rb } else { ra };
        // As for dim variables: what waits on the old root that stays one reads as before.
        if self.watching && other != root {
            self.changed_rows.push(other);
        }
        self.parents.unite_rows(other, root);
        (root, other)
    }

    /// Records `v := d` (v unbound, d resolved and not mentioning v).
    pub fn bind_dim(&mut self, v: DimVar, d: Dim) {
        let idx = match d {
            // Interning pays off in large programs only; small ones skip the map.
            Dim::Solved(s) if self.dim_values.len() >= INTERN_FROM => match self.solved_ids.get(&s)
            {
                Some(&i) => i,
                None => {
                    let i = self.push_dim_value(d);
                    self.solved_ids.insert(s, i);
                    i
                }
            },
            d => self.push_dim_value(d),
        };
        let root = self.dims.find(v);
        self.dims.union_value(root, DimVal(idx));
        self.cache.var_changed(root, self.watching);
        if self.watching {
            self.changed_dims.push(root);
        }
    }

    fn push_dim_value(&mut self, d: Dim) -> u32 {
        self.dim_values.push(d);
        u32::try_from(self.dim_values.len() - 1).unwrap_or(u32::MAX)
    }

    /// Records `v := r` (v unbound, r resolved and not mentioning v); returns where the value
    /// is stored.
    pub fn bind_row(&mut self, v: RowVar, r: &Row) -> RowId {
        let RowId(idx) = if r.is_empty() {
            // Most rows close empty: they share one stored value.
            *self.empty_row.get_or_insert_with(|| self.store.push(r))
        } else {
            self.store.push(r)
        };
        let root = self.rows.find(v);
        self.rows.union_value(root, RowVal(idx));
        if self.watching {
            self.changed_rows.push(root);
        }
        RowId(idx)
    }

    /// Whether a dim variable is bound.
    pub fn dim_bound(&mut self, v: DimVar) -> bool {
        self.dims.probe_value(v).get().is_some()
    }

    /// Whether a row variable is bound.
    pub fn row_bound(&mut self, v: RowVar) -> bool {
        self.rows.probe_value(v).get().is_some()
    }

    /// Number of dim variables.
    pub fn dim_count(&self) -> usize {
        self.dim_info.len()
    }

    /// Number of row variables.
    pub fn row_count(&self) -> usize {
        self.row_info.len()
    }

    /// Substitutes the current bindings into a dimension and simplifies arithmetic (an affine
    /// or concatenation dim reads its cached value, see `infer/solve/subst.rs`).
    #[inline]
    pub fn dim(&mut self, d: &Dim) -> Dim {
        match *d {
            Dim::Var(v) => self.var_dim(v),
            Dim::Solved(s) => Dim::Solved(s),
            other => self.expr_dim(other),
        }
    }

    /// The value of a dim variable, substituted (the variable's root when unbound).
    #[inline]
    fn var_dim(&mut self, v: DimVar) -> Dim {
        let (root, value) = self.dims.inlined_probe_key_value(v);
        let Some(i) = value.get() else { return Dim::Var(root) };
        match self.dim_values[i as usize] {
            Dim::Solved(s) => Dim::Solved(s),
            other => self.expr_dim(other),
        }
    }

    /// The substituted value of an affine or concatenation dim.
    #[inline(never)]
    fn expr_dim(&mut self, d: Dim) -> Dim {
        match self.resolve(d) {
            Resolved::Solved(s) => Dim::Solved(s),
            Resolved::Root(v) => Dim::Var(v),
            Resolved::Node(n) => self.node_value(n),
        }
    }

    /// Substitutes the current bindings into a row, splicing bound row variables at the marker.
    pub fn row(&mut self, r: &Row) -> Row {
        let mut out = Row::default();
        for d in &r.beg {
            let d = self.dim(d);
            out.beg.push(d);
        }
        if let Some(v) = r.var {
            self.splice(v, &mut out);
        }
        for d in &r.dims {
            let d = self.dim(d);
            out.dims.push(d);
        }
        out
    }

    /// Substitutes the current bindings into a constraint's row.
    pub fn row_arg(&mut self, r: &RowArg) -> Row {
        match r {
            RowArg::Empty => Row::default(),
            RowArg::Scratch(i) => {
                // Taken out while it is substituted (substitution reads other tables only).
                let i = *i as usize;
                let held = std::mem::take(&mut self.scratch[i]);
                let out = self.row(&held);
                self.scratch[i] = held;
                out
            }
            RowArg::Var(v) => {
                let mut out = Row::default();
                self.splice(*v, &mut out);
                out
            }
            RowArg::Stored(id) => {
                let mut out = Row::default();
                self.walk_stored(*id, &mut out);
                out
            }
        }
    }

    /// A constraint's hold on `r`: the empty row or a bare variable as such, any other row as a
    /// scratch row.
    pub fn scratch_arg(&mut self, r: &Row) -> RowArg {
        match (r.var, r.explicit_len()) {
            (None, 0) => RowArg::Empty,
            (Some(v), 0) => RowArg::Var(v),
            _ => {
                self.scratch.push(r.clone());
                RowArg::Scratch(u32::try_from(self.scratch.len() - 1).unwrap_or(u32::MAX))
            }
        }
    }

    /// Moves a scratch row into the row store (for a constraint that outlives the queue).
    pub fn settle(&mut self, r: &mut RowArg) {
        if let RowArg::Scratch(i) = *r {
            *r = RowArg::Stored(self.store.push(&self.scratch[i as usize]));
        }
    }

    /// Forgets the scratch rows (no queued constraint may hold one).
    pub fn clear_scratch(&mut self) {
        self.scratch.clear();
    }

    /// The stored rows a stored row's value nests, outermost first (it, the value of its
    /// variable, the value of that one's...), and the unbound root left at the innermost
    /// marker (`None` when the innermost row is closed).
    pub fn stored_chain(&mut self, id: RowId) -> (SmallVec<[RowId; 4]>, Option<RowVar>) {
        let mut chain: SmallVec<[RowId; 4]> = smallvec::smallvec![id];
        let mut var = self.store.layout(id).3;
        while let Some(v) = var {
            match self.row_value(v) {
                Err(root) => return (chain, Some(root)),
                Ok(inner) => {
                    chain.push(inner);
                    var = self.store.layout(inner).3;
                }
            }
        }
        (chain, None)
    }

    /// Brings the cached values of the affine and concatenation dims a row reaches up to date
    /// (see `infer/solve/read/accessors.rs`: reads find them fresh).
    pub fn freshen_row(&mut self, r: &RowArg) {
        let id = match r {
            RowArg::Stored(id) => *id,
            RowArg::Var(v) => match self.row_value(*v) {
                Ok(id) => id,
                Err(_) => return,
            },
            RowArg::Empty | RowArg::Scratch(_) => return,
        };
        let (chain, _) = self.stored_chain(id);
        for id in chain {
            let (start, _, len, _) = self.store.layout(id);
            for k in start..start + len {
                if !matches!(self.store.dim_at(k), Dim::Solved(_)) {
                    self.stored_dim(k);
                }
            }
        }
    }

    /// The outer level of a constraint's row as written: its own axes and variable (bound or
    /// not), unsubstituted; `None` when that level has no axes (or the row is empty or an
    /// unbound variable).
    pub fn outer_level(&mut self, r: &RowArg) -> Option<Row> {
        let id = match r {
            RowArg::Empty => return None,
            RowArg::Scratch(i) => {
                let row = self.scratch.get(*i as usize)?;
                return (row.explicit_len() > 0).then(|| row.clone());
            }
            RowArg::Var(v) => self.row_value(*v).ok()?,
            RowArg::Stored(id) => *id,
        };
        let (start, beg, len, var) = self.store.layout(id);
        if len == 0 {
            return None;
        }
        let mut row = Row { var, ..Row::default() };
        for k in start..start + len {
            let d = *self.store.dim_at(k);
            if k < start + beg {
                row.beg.push(d);
            } else {
                row.dims.push(d);
            }
        }
        Some(row)
    }

    /// Whether a constraint's row is the closed empty row as given (unsubstituted): such an
    /// operand broadcasts into any result, and two such rows are equal.
    pub fn is_closed_empty(&self, r: &RowArg) -> bool {
        match r {
            RowArg::Empty => true,
            RowArg::Stored(id) => matches!(self.store.layout(*id), (_, _, 0, None)),
            RowArg::Var(_) | RowArg::Scratch(_) => false,
        }
    }

    /// The row variable left at the marker of a constraint's row once the bindings are
    /// substituted.
    pub fn tail_var(&mut self, r: &RowArg) -> Option<RowVar> {
        let mut v = match r {
            RowArg::Empty => return None,
            RowArg::Var(v) => *v,
            RowArg::Stored(id) => self.store.layout(*id).3?,
            RowArg::Scratch(i) => self.scratch[*i as usize].var?,
        };
        loop {
            match self.row_value(v) {
                Err(root) => return Some(root),
                Ok(id) => v = self.store.layout(id).3?,
            }
        }
    }

    /// The bound value of a dim variable that is a root (read without path compression).
    pub(in crate::infer) fn root_dim_value(&self, root: DimVar) -> Option<&Dim> {
        let i = self.dims.try_probe_value(root)?.get()?;
        self.dim_values.get(i as usize)
    }

    /// The stored value of a row variable that is a root (read without path compression).
    pub(in crate::infer) fn root_row_value(&self, root: RowVar) -> Option<RowId> {
        self.rows.try_probe_value(root)?.get().map(RowId)
    }

    /// The stored value of a row variable, or its root when it is unbound.
    #[inline]
    pub fn row_value(&mut self, v: RowVar) -> Result<RowId, RowVar> {
        let (root, value) = self.rows.inlined_probe_key_value(v);
        match value.get() {
            Some(i) => Ok(RowId(i)),
            None => Err(root),
        }
    }

    /// The dim at a flat position of the row store, substituted.
    pub fn stored_dim(&mut self, k: usize) -> Dim {
        match *self.store.dim_at(k) {
            Dim::Solved(s) => Dim::Solved(s),
            Dim::Var(v) => self.var_dim(v),
            d => self.expr_dim(d),
        }
    }
}
