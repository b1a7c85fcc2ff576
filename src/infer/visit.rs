//! Walking a tensor's substituted shape without building it: the closing stages and the final
//! check only need each axis and the remaining row variables, in memory order.

use smallvec::SmallVec;

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
    /// (the nested values followed in a loop).
    fn visit_stored(&mut self, id: RowId, f: &mut impl FnMut(Item)) {
        let (start, beg, len, var) = self.store.layout(id);
        // Most rows nest nothing: no chain is built for them.
        let end = match var.map(|v| self.row_value(v)) {
            Some(Ok(_)) => return self.visit_chain(id, f),
            Some(Err(root)) => Some(root),
            None => None,
        };
        for k in start..start + beg {
            let d = self.stored_dim(k);
            f(Item::Dim(d));
        }
        if let Some(v) = end {
            f(Item::Row(v));
        }
        for k in start + beg..start + len {
            let d = self.stored_dim(k);
            f(Item::Dim(d));
        }
    }

    /// [`Env::visit_stored`] of a row whose variable's value nests further rows: leading axes
    /// on the way in, the trailing axes of each level (kept as flat ranges) on the way out.
    fn visit_chain(&mut self, id: RowId, f: &mut impl FnMut(Item)) {
        let mut trailing: SmallVec<[(usize, usize); 4]> = SmallVec::new();
        let mut id = id;
        loop {
            let (start, beg, len, var) = self.store.layout(id);
            for k in start..start + beg {
                let d = self.stored_dim(k);
                f(Item::Dim(d));
            }
            trailing.push((start + beg, start + len));
            match var.map(|v| self.row_value(v)) {
                Some(Ok(inner)) => id = inner,
                Some(Err(root)) => {
                    f(Item::Row(root));
                    break;
                }
                None => break,
            }
        }
        for &(from, to) in trailing.iter().rev() {
            for k in from..to {
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
