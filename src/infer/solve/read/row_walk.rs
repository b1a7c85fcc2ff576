//! Walking a stored row's substituted value: its leading axes, the rows its variable's value
//! nests (followed in a loop, as deep as the program makes them), the variable still unbound at
//! the innermost marker, and the trailing axes of every level on the way out. Substitution
//! builds a [`Row`] from the walk; the closing stages visit it without building anything.

use smallvec::SmallVec;

use crate::ids::RowVar;
use crate::infer::solve::env::Env;
use crate::infer::solve::store::RowId;
use crate::shape::{Dim, Row};

/// Where a walk hands what it finds, in order.
pub(in crate::infer) trait RowSink {
    /// An axis before the innermost marker.
    fn lead(&mut self, d: Dim);
    /// The innermost marker: the row variable still unbound there, `None` for a closed row.
    fn marker(&mut self, root: Option<RowVar>);
    /// An axis after the innermost marker.
    fn trail(&mut self, d: Dim);
}

/// A row receiving a walk at its marker: leading axes append to its leading axes, trailing ones
/// to its trailing axes (before any axes its owner appends later).
impl RowSink for Row {
    fn lead(&mut self, d: Dim) {
        self.beg.push(d);
    }

    fn marker(&mut self, root: Option<RowVar>) {
        self.var = root;
    }

    fn trail(&mut self, d: Dim) {
        self.dims.push(d);
    }
}

impl Env {
    /// Appends the value of `v` (substituted) at the marker of `out`.
    pub(in crate::infer) fn splice(&mut self, v: RowVar, out: &mut Row) {
        match self.row_value(v) {
            Ok(id) => self.walk_stored(id, out),
            Err(root) => out.var = Some(root),
        }
    }

    /// Hands the substituted items of a stored row to `sink`: its leading axes, its variable's
    /// value, its trailing axes.
    pub(in crate::infer) fn walk_stored(&mut self, id: RowId, sink: &mut impl RowSink) {
        let (start, beg, len, var) = self.store.layout(id);
        // Most rows nest nothing: no chain is built for them.
        let root = match var.map(|v| self.row_value(v)) {
            Some(Ok(_)) => return self.walk_chain(id, sink),
            Some(Err(root)) => Some(root),
            None => None,
        };
        for k in start..start + beg {
            let d = self.stored_dim(k);
            sink.lead(d);
        }
        sink.marker(root);
        for k in start + beg..start + len {
            let d = self.stored_dim(k);
            sink.trail(d);
        }
    }

    /// [`Env::walk_stored`] of a row whose variable's value nests further rows: leading axes
    /// on the way in, the trailing axes of each level (kept as flat ranges) on the way out.
    fn walk_chain(&mut self, id: RowId, sink: &mut impl RowSink) {
        let mut trailing: SmallVec<[(usize, usize); 4]> = SmallVec::new();
        let mut id = id;
        loop {
            let (start, beg, len, var) = self.store.layout(id);
            for k in start..start + beg {
                let d = self.stored_dim(k);
                sink.lead(d);
            }
            trailing.push((start + beg, start + len));
            match var.map(|v| self.row_value(v)) {
                Some(Ok(inner)) => id = inner,
                end => {
                    sink.marker(end.and_then(Result::err));
                    break;
                }
            }
        }
        for &(from, to) in trailing.iter().rev() {
            for k in from..to {
                let d = self.stored_dim(k);
                sink.trail(d);
            }
        }
    }
}
