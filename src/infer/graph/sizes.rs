//! Reading a solved shape's sizes in place, without building it (for plan derivation and direct
//! evaluation, which read every operand of a step and only need its sizes).

use super::Graph;
use crate::ids::{RowVar, TensorId};
use crate::infer::solve::env::Env;
use crate::infer::solve::store::{RowId, ShapeRef};
use crate::shape::{Dim, Solved};
use crate::spec::ast::RowKind;

impl Graph {
    /// The sizes of `t`'s three rows, in the given order of kinds, as [`Graph::shape`]
    /// substitutes them, without building them: calls `push` with each solved size (with its
    /// basis) in order and returns, per row, its length and the length of its leading flank.
    /// `None` when a row variable is unbound or an axis is not a plain size ([`Graph::dims`]
    /// says which); some sizes may have been pushed by then.
    pub fn solved_shape(
        &self,
        t: TensorId,
        order: [RowKind; 3],
        push: &mut impl FnMut(Solved),
    ) -> Option<[(usize, usize); 3]> {
        let shape = self.tensors.get(self.check_tensor(t).ok()?)?.shape;
        let env = &self.solver.env;
        // The common case read straight from the store: three rows without a variable.
        let mut ids = [RowId(0); 3];
        for (id, kind) in ids.iter_mut().zip(order) {
            let k = kind.index() as u32;
            *id = match shape {
                ShapeRef::Fresh(v) => env.peek_row_value(RowVar(v.0 + k)).ok()?,
                ShapeRef::Stored(RowId(i)) => RowId(i + k),
            };
            if env.store.layout(*id).3.is_some() {
                // Nothing pushed yet: the general walk starts afresh.
                return env.peek_sizes(shape, order, push);
            }
        }
        let mut rows = [(0, 0); 3];
        for (row, id) in rows.iter_mut().zip(ids) {
            let (start, beg, len, _) = env.store.layout(id);
            for k in start..start + len {
                push(peek_solved(env, k)?);
            }
            *row = (len, beg);
        }
        Some(rows)
    }

    /// [`Graph::solved_shape`] through the solver's own lookup (which shortens its paths as it
    /// goes) and without building rows: for plan derivation and direct evaluation, which read
    /// every operand of every step.
    pub(crate) fn solved_shape_mut(
        &mut self,
        t: TensorId,
        order: [RowKind; 3],
        push: &mut impl FnMut(Solved),
    ) -> Option<[(usize, usize); 3]> {
        let shape = self.tensors.get(t.index())?.shape;
        let env = &mut self.solver.env;
        let mut rows = [(0, 0); 3];
        for (row, kind) in rows.iter_mut().zip(order) {
            // The three rows of a shape are consecutive (`ShapeRef::rows`), in `RowKind::ALL`
            // order.
            let k = kind.index() as u32;
            let id = match shape {
                ShapeRef::Fresh(v) => env.row_value(RowVar(v.0 + k)).ok()?,
                ShapeRef::Stored(RowId(i)) => RowId(i + k),
            };
            let mut len = 0;
            let leading = row_sizes(env, id, &mut |s| {
                len += 1;
                push(s)
            })?;
            *row = (len, leading);
        }
        Some(rows)
    }
}

/// The sizes of a stored row, as [`stored_sizes`], without following a chain for the common
/// row without a variable.
#[inline]
fn row_sizes(env: &mut Env, id: RowId, push: &mut impl FnMut(Solved)) -> Option<usize> {
    let (start, beg, len, var) = env.store.layout(id);
    if var.is_some() {
        return stored_sizes(env, id, push);
    }
    for k in start..start + len {
        push(solved_size(env, k)?);
    }
    Some(beg)
}

/// The sizes of a stored row, substituted in the order of `Env::row_arg`: its leading axes,
/// its variable's value, its trailing axes (nested values followed in a loop). Returns the
/// whole leading flank's length; `None` when a variable is unbound or an axis unsolved.
fn stored_sizes(env: &mut Env, id: RowId, push: &mut impl FnMut(Solved)) -> Option<usize> {
    let (chain, end) = env.stored_chain(id);
    if end.is_some() {
        return None;
    }
    let mut leading = 0;
    for &id in &chain {
        let (start, beg, _, _) = env.store.layout(id);
        for k in start..start + beg {
            push(solved_size(env, k)?);
        }
        leading += beg;
    }
    for &id in chain.iter().rev() {
        let (start, beg, len, _) = env.store.layout(id);
        for k in start + beg..start + len {
            push(solved_size(env, k)?);
        }
    }
    Some(leading)
}

/// [`solved_size`] read without changing the solver.
#[inline]
fn peek_solved(env: &Env, k: usize) -> Option<Solved> {
    match env.store.dim_at(k) {
        Dim::Solved(s) => Some(*s),
        d => env.peek_dim(d).solved(),
    }
}

/// The size at a flat position of the row store, substituted, if it is a plain size.
fn solved_size(env: &mut Env, k: usize) -> Option<Solved> {
    if let Dim::Solved(s) = env.store.dim_at(k) {
        return Some(*s);
    }
    env.stored_dim(k).solved()
}
