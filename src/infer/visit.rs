//! Walking a tensor's substituted shape without building it: the closing stages and the final
//! check only need each axis and the remaining row variables, in memory order.

use super::env::Env;
use super::store::{RowId, ShapeRef};
use crate::ids::RowVar;
use crate::shape::Dim;
use crate::spec::ast::RowKind;

/// One item of a substituted shape.
pub enum Item {
    /// An axis (substituted).
    Dim(Dim),
    /// A row variable still unbound.
    Row(RowVar),
}

impl Env {
    /// Calls `f` on every axis and unbound row variable of a shape, rows in memory order
    /// (batch, output, input), each row's axes in order.
    pub fn visit_shape(&mut self, s: ShapeRef, f: &mut impl FnMut(Item)) {
        match s {
            ShapeRef::Fresh(v) => {
                for k in [0, 2, 1] {
                    self.visit_var(RowVar(v.0 + k), f);
                }
            }
            ShapeRef::Stored(RowId(i)) => {
                for k in [0, 2, 1] {
                    self.visit_stored(RowId(i + k), f);
                }
            }
        }
    }

    fn visit_var(&mut self, v: RowVar, f: &mut impl FnMut(Item)) {
        match self.row_value(v) {
            Ok(id) => self.visit_stored(id, f),
            Err(root) => f(Item::Row(root)),
        }
    }

    /// The items of a stored row: its leading axes, its variable's value, its trailing axes
    /// (the nested values followed in a loop, see [`Env::stored_chain`]).
    fn visit_stored(&mut self, id: RowId, f: &mut impl FnMut(Item)) {
        let (chain, end) = self.stored_chain(id);
        for &id in &chain {
            let (start, beg, _, _) = self.store.layout(id);
            for k in start..start + beg {
                let d = self.stored_dim(k);
                f(Item::Dim(d));
            }
        }
        if let Some(v) = end {
            f(Item::Row(v));
        }
        for &id in chain.iter().rev() {
            let (start, beg, len, _) = self.store.layout(id);
            for k in start + beg..start + len {
                let d = self.stored_dim(k);
                f(Item::Dim(d));
            }
        }
    }

    /// Calls `f` on every unbound row variable of a shape, in the order of
    /// [`Env::visit_shape`], without reading any axis (for closing steps that only bind rows).
    pub fn visit_row_vars(&mut self, s: ShapeRef, f: &mut impl FnMut(RowVar)) {
        for kind in [RowKind::Batch, RowKind::Output, RowKind::Input] {
            if let Some(v) = self.tail_var(&s.row(kind)) {
                f(v);
            }
        }
    }

    /// Whether a shape is fully solved: no row variable, every axis a solved size.
    pub fn shape_solved(&mut self, s: ShapeRef) -> bool {
        let mut solved = true;
        self.visit_shape(s, &mut |item| {
            solved &= matches!(item, Item::Dim(Dim::Solved(_)));
        });
        solved
    }
}
