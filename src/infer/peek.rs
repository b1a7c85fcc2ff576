//! Reading the solver's bindings without changing anything: the read accessors of the graph
//! take `&self`.
//!
//! ena's `find` compresses paths, so it needs `&mut`. [`Parents`] keeps, for every variable
//! that was united into another, the root it was united into at that moment (ena unites by
//! rank, so a chain of such links is at most logarithmically long): following it from any
//! variable reaches the same root `find` would, and the root's value is read with ena's
//! non-mutating probe. Substitution then mirrors `Env::dim` and `Env::row`, except that an
//! affine or concatenation dim that does not simplify to a size is returned as it was (a new
//! one would have to be interned).

use smallvec::SmallVec;

use super::arith::{basis_conflict, simplify_affine, simplify_concat};
use super::constraint::RowArg;
use super::env::Env;
use super::store::{RowId, ShapeRef};
use crate::ids::{DimVar, RowVar};
use crate::shape::{AffineDim, Basis, Dim, DimExprs, Row, Shape, Solved};
use crate::spec::ast::RowKind;

/// The sentinel of a variable that was never united into another.
const ROOT: u32 = u32::MAX;

/// Up-links of united variables, one entry per variable (4 bytes).
#[derive(Clone, Debug, Default)]
pub struct Parents {
    dims: Vec<u32>,
    rows: Vec<u32>,
}

impl Parents {
    /// A new dim variable, a root.
    pub fn new_dim(&mut self) {
        self.dims.push(ROOT);
    }

    /// A new row variable, a root.
    pub fn new_row(&mut self) {
        self.rows.push(ROOT);
    }

    /// The root `other` was united into `root`.
    pub fn unite_dims(&mut self, other: DimVar, root: DimVar) {
        if let Some(p) = self.dims.get_mut(other.index()) {
            *p = root.0;
        }
    }

    /// The root `other` was united into `root`.
    pub fn unite_rows(&mut self, other: RowVar, root: RowVar) {
        if let Some(p) = self.rows.get_mut(other.index()) {
            *p = root.0;
        }
    }

    /// The representative of a dim variable.
    pub fn dim_root(&self, mut v: DimVar) -> DimVar {
        // Each link goes to a root of higher rank: the walk is at most 32 links long.
        while let Some(&p) = self.dims.get(v.index()).filter(|&&p| p != ROOT) {
            v = DimVar(p);
        }
        v
    }

    /// The representative of a row variable.
    pub fn row_root(&self, mut v: RowVar) -> RowVar {
        while let Some(&p) = self.rows.get(v.index()).filter(|&&p| p != ROOT) {
            v = RowVar(p);
        }
        v
    }
}

impl Env {
    /// [`Env::dim`] without changing the env: the current bindings substituted into `d`. An
    /// affine or concatenation dim that does not simplify to a size is returned as given.
    pub fn peek_dim(&self, d: &Dim) -> Dim {
        match *d {
            Dim::Var(v) => self.peek_var(v),
            Dim::Solved(s) => Dim::Solved(s),
            Dim::Affine(_) | Dim::Concat(_) => self.peek_expr(*d).unwrap_or(*d),
        }
    }

    /// The value of a dim variable, substituted (its root when unbound).
    fn peek_var(&self, v: DimVar) -> Dim {
        let root = self.parents.dim_root(v);
        match self.root_dim_value(root) {
            None => Dim::Var(root),
            Some(value) => self.peek_dim(value),
        }
    }

    /// An affine or concatenation dim with its parts substituted: simplified when it can be,
    /// else its substituted form in `local` (so that [`Env::peek_conflict`] can read it), or
    /// `None` when nothing changed.
    fn peek_parts(&self, d: Dim, local: &mut DimExprs) -> Option<Dim> {
        match d {
            Dim::Affine(id) => {
                let a = self.exprs.get_affine(id);
                let over = self.peek_dim(&a.over);
                let conv = a.conv.map(|(dil, k, p)| (dil, self.peek_dim(&k), p));
                let new = AffineDim { stride: a.stride, over, offset: a.offset, conv };
                match simplify_affine(new) {
                    Some(s) => Some(s),
                    None if new == a => None,
                    None => Some(local.affine(new)),
                }
            }
            Dim::Concat(id) => {
                let mut flat: SmallVec<[Dim; 4]> = SmallVec::new();
                for p in self.exprs.parts(id) {
                    match self.peek_dim(p) {
                        Dim::Concat(inner) => flat.extend_from_slice(self.exprs.parts(inner)),
                        other => flat.push(other),
                    }
                }
                match simplify_concat(&flat) {
                    Some(s) => Some(s),
                    None if flat.as_slice() == self.exprs.parts(id) => None,
                    None => Some(local.concat(&flat)),
                }
            }
            _ => None,
        }
    }

    /// The simplified form of an affine or concatenation dim, when it simplifies.
    fn peek_expr(&self, d: Dim) -> Option<Dim> {
        let mut local = DimExprs::default();
        match self.peek_parts(d, &mut local)? {
            Dim::Affine(_) | Dim::Concat(_) => None,
            simple => Some(simple),
        }
    }

    /// Why an affine or concatenation dim whose parts are solved is not a size:
    /// [`basis_conflict`] of its substituted form.
    pub fn peek_conflict(&self, d: Dim) -> Option<(&'static str, Basis, Basis)> {
        let mut local = DimExprs::default();
        match self.peek_parts(d, &mut local) {
            Some(sub @ (Dim::Affine(_) | Dim::Concat(_))) => basis_conflict(sub, &local),
            Some(_) => None,
            None => basis_conflict(d, &self.exprs),
        }
    }

    /// The stored value of a row variable, or its root when it is unbound.
    pub fn peek_row_value(&self, v: RowVar) -> Result<RowId, RowVar> {
        let root = self.parents.row_root(v);
        self.root_row_value(root).ok_or(root)
    }

    /// [`Env::row_arg`] without changing the env, for the rows of tensors (a scratch row reads
    /// as empty: none outlives the operation that made it).
    pub fn peek_row_arg(&self, r: &RowArg) -> Row {
        let mut out = Row::default();
        match r {
            RowArg::Empty | RowArg::Scratch(_) => {}
            RowArg::Var(v) => self.peek_splice(*v, &mut out),
            RowArg::Stored(id) => self.peek_splice_stored(*id, &mut out),
        }
        out
    }

    /// A tensor's shape with the current bindings substituted.
    pub fn peek_shape(&self, s: ShapeRef) -> Shape {
        let [batch, input, output] = s.rows().map(|r| self.peek_row_arg(&r));
        Shape { batch, input, output }
    }

    fn peek_splice(&self, v: RowVar, out: &mut Row) {
        // A row variable's value never mentions the variable itself (occurs check), so the
        // nesting follows the bindings and ends.
        match self.peek_row_value(v) {
            Ok(id) => self.peek_splice_stored(id, out),
            Err(root) => out.var = Some(root),
        }
    }

    fn peek_splice_stored(&self, id: RowId, out: &mut Row) {
        let (start, beg, len, var) = self.store.layout(id);
        for k in start..start + beg {
            out.beg.push(self.peek_dim(self.store.dim_at(k)));
        }
        if let Some(inner) = var {
            self.peek_splice(inner, out);
        }
        for k in start + beg..start + len {
            out.dims.push(self.peek_dim(self.store.dim_at(k)));
        }
    }

    /// The solved sizes of a tensor's rows in the given order of kinds, as `Graph::solved_shape`
    /// reads them: `push` gets each size; returns each row's length and leading flank.
    pub fn peek_sizes(
        &self,
        s: ShapeRef,
        order: [RowKind; 3],
        push: &mut impl FnMut(Solved),
    ) -> Option<[(usize, usize); 3]> {
        let mut rows = [(0, 0); 3];
        for (row, kind) in rows.iter_mut().zip(order) {
            let r = self.peek_row_arg(&s.row(kind));
            if r.var.is_some() {
                return None;
            }
            for d in r.all() {
                push(d.solved()?);
            }
            *row = (r.explicit_len(), r.beg.len());
        }
        Some(rows)
    }
}

#[cfg(test)]
mod tests {
    use super::Parents;
    use crate::ids::{DimVar, RowVar};

    #[test]
    fn links_lead_to_the_root() {
        let mut p = Parents::default();
        for _ in 0..4 {
            p.new_dim();
            p.new_row();
        }
        p.unite_dims(DimVar(0), DimVar(1));
        p.unite_dims(DimVar(1), DimVar(3));
        assert_eq!(p.dim_root(DimVar(0)), DimVar(3));
        assert_eq!(p.dim_root(DimVar(2)), DimVar(2));
        p.unite_rows(RowVar(2), RowVar(0));
        assert_eq!(p.row_root(RowVar(2)), RowVar(0));
        // A variable past the table (never made) is its own root.
        assert_eq!(p.row_root(RowVar(9)), RowVar(9));
    }
}
