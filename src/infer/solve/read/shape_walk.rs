//! Walking a tensor's substituted shape without building it: the closing stages and the final
//! check only need each axis and the remaining row variables, in memory order.

use super::row_walk::RowSink;
use crate::ids::RowVar;
use crate::infer::solve::env::Env;
use crate::infer::solve::store::{RowId, ShapeRef};
use crate::shape::Dim;
use crate::spec::ast::RowKind;

/// One item of a substituted shape.
pub enum Item {
    /// An axis (substituted).
    Dim(Dim),
    /// A row variable still unbound.
    Row(RowVar),
}

/// A walk handing every axis and the unbound marker to a visitor.
struct Visit<'f, F>(&'f mut F);

impl<F: FnMut(Item)> RowSink for Visit<'_, F> {
    fn lead(&mut self, d: Dim) {
        (self.0)(Item::Dim(d));
    }

    fn marker(&mut self, root: Option<RowVar>) {
        if let Some(v) = root {
            (self.0)(Item::Row(v));
        }
    }

    fn trail(&mut self, d: Dim) {
        (self.0)(Item::Dim(d));
    }
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

    /// The items of a stored row: its leading axes, its variable's value, its trailing axes.
    fn visit_stored(&mut self, id: RowId, f: &mut impl FnMut(Item)) {
        self.walk_stored(id, &mut Visit(f));
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
