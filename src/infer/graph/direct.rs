//! Direct evaluation of a spec step whose operands are fully solved.
//!
//! A framework that knows its input shapes adds steps whose operands have no unknowns. For an
//! einsum or permute over such operands, when the spec uses only labels, placeholders and row
//! variables, the flat equalities of the step (§4) have exactly one solution, which can be read
//! off the operands: every label takes the size its operand axes agree on, every row variable
//! the axes it covers, and the result is the result slot written with those. Nothing is left
//! for the solver to decide, so the step skips it.
//!
//! Whenever the answer is not that simple — an axis or row that disagrees between operands (an
//! error, or a broadcast to decide), a fixed index, a strided or concatenated axis, a result
//! label or row variable no operand fixes — the step goes through the solver as usual, which
//! finds the same answer where there is one and explains the error where there is none.
//! `tests/direct.rs` checks that both paths agree on random programs.

use smallvec::SmallVec;

use super::Graph;
use crate::ids::{DimVar, TensorId};
use crate::infer::op::OpKind;
use crate::infer::store::ShapeRef;
use crate::shape::{Dim, Solved};
use crate::spec::ast::{self, AxisKind, EinsumSpec, Name, RowKind, ShapeSpec};

/// The sizes a spec's labels and row variables take from the operands.
#[derive(Default)]
struct Bindings<'s> {
    labels: SmallVec<[(&'s Name, Solved); 8]>,
    rows: SmallVec<[(&'s str, Covered); 2]>,
}

/// The axes a row variable covers: their sizes, and how many of them lie in the operand row's
/// leading flank (the variable's value keeps that split, as the solver's row equation does).
struct Covered {
    dims: SmallVec<[Solved; 4]>,
    leading: usize,
}

/// The solved axes of an operand row, and the length of its leading flank.
struct SolvedRow {
    dims: SmallVec<[Solved; 4]>,
    leading: usize,
}

impl<'s> Bindings<'s> {
    /// Records that `name` has size `s`; whether that agrees with what is known.
    fn label(&mut self, name: &'s Name, s: Solved) -> bool {
        match self.labels.iter().find(|(n, _)| *n == name) {
            Some((_, known)) => *known == s,
            None => {
                self.labels.push((name, s));
                true
            }
        }
    }

    /// Records that the row variable `name` covers `dims`, `leading` of them in the operand's
    /// leading flank; whether that agrees with what is known (axes only: the first occurrence
    /// sets the split, later ones are compared axis by axis).
    fn row(&mut self, name: &'s str, dims: &[Solved], leading: usize) -> bool {
        match self.rows.iter().find(|(n, _)| *n == name) {
            Some((_, known)) => known.dims[..] == *dims,
            None => {
                self.rows.push((name, Covered { dims: dims.iter().copied().collect(), leading }));
                true
            }
        }
    }

    fn size_of(&self, name: &Name) -> Option<Solved> {
        self.labels.iter().find(|(n, _)| *n == name).map(|(_, s)| *s)
    }

    /// Matches a written operand row against an operand's solved row.
    fn match_row(&mut self, written: Option<&'s ast::Row>, kind: RowKind, row: &SolvedRow) -> bool {
        let dims = &row.dims[..];
        let Some(w) = written else { return dims.is_empty() };
        let (nl, nt) = (w.leading.len(), w.trailing.len());
        let fits = match &w.ellipsis {
            None => dims.len() == nl + nt,
            Some(_) => dims.len() >= nl + nt,
        };
        if !fits {
            return false;
        }
        let (head, rest) = dims.split_at(nl);
        let (middle, tail) = rest.split_at(rest.len() - nt);
        let axes = w.leading.iter().zip(head).chain(w.trailing.iter().zip(tail));
        for (axis, &s) in axes {
            let agrees = match &axis.kind {
                AxisKind::Label(n) => self.label(n, s),
                AxisKind::Placeholder => true,
                _ => false,
            };
            if !agrees {
                return false;
            }
        }
        match &w.ellipsis {
            Some(e) => {
                let leading = row.leading.saturating_sub(nl).min(middle.len());
                self.row(e.var_name(kind), middle, leading)
            }
            None => true,
        }
    }

    /// The result row of a written result row, when everything in it is fixed.
    fn result_row(&self, written: Option<&ast::Row>, kind: RowKind) -> Option<SolvedRow> {
        let mut out = SolvedRow { dims: SmallVec::new(), leading: 0 };
        let Some(w) = written else { return Some(out) };
        // As the solver's substitution splices a row variable's value at the marker: its
        // leading axes join the leading flank, its trailing axes the trailing one.
        for a in &w.leading {
            out.dims.push(self.axis(a)?);
        }
        out.leading = w.leading.len();
        if let Some(e) = &w.ellipsis {
            let name = e.var_name(kind);
            let (_, c) = self.rows.iter().find(|(n, _)| *n == name)?;
            out.dims.extend_from_slice(&c.dims);
            out.leading += c.leading;
        }
        for a in &w.trailing {
            out.dims.push(self.axis(a)?);
        }
        Some(out)
    }

    fn axis(&self, a: &ast::Axis) -> Option<Solved> {
        match &a.kind {
            AxisKind::Label(n) => self.size_of(n),
            _ => None,
        }
    }
}

/// Labels in the order the solver's elaboration creates their variables: the result slot
/// first, then the operand slots; within a slot by kind, leading axes, then trailing ones.
fn labels_in_order(spec: &EinsumSpec) -> SmallVec<[&Name; 8]> {
    let mut out: SmallVec<[&Name; 8]> = SmallVec::new();
    let slots = std::iter::once(&spec.lhs).chain(spec.rhs.iter());
    for (_, row) in slots.flat_map(ShapeSpec::rows) {
        for a in row.axes() {
            if let AxisKind::Label(n) = &a.kind {
                if !out.contains(&n) {
                    out.push(n);
                }
            }
        }
    }
    out
}

impl Graph {
    /// Evaluates a spec step over fully solved operands directly: the result's shape (stored)
    /// and the spec's labels with their (bound) variables, or `None`, having changed nothing,
    /// when the step needs the solver.
    pub(super) fn try_direct(
        &mut self,
        op: OpKind,
        spec: &EinsumSpec,
        args: &[TensorId],
    ) -> Option<(ShapeRef, Vec<(Name, DimVar)>)> {
        if !self.direct || !matches!(op, OpKind::Einsum | OpKind::Einsum3 | OpKind::Permute) {
            return None;
        }
        let mut b = Bindings::default();
        for (slot, &arg) in spec.rhs.iter().zip(args) {
            let rows = self.solved_rows(arg)?;
            for (kind, row) in RowKind::ALL.into_iter().zip(&rows) {
                if !b.match_row(slot.row(kind), kind, row) {
                    return None;
                }
            }
        }
        let mut rows = RowKind::ALL.into_iter().map(|kind| b.result_row(spec.lhs.row(kind), kind));
        let result = [rows.next()??, rows.next()??, rows.next()??];
        let sizes: SmallVec<[(&Name, Solved); 8]> = labels_in_order(spec)
            .into_iter()
            .map(|name| Some((name, b.size_of(name)?)))
            .collect::<Option<_>>()?;
        let labels = sizes
            .into_iter()
            .map(|(name, size)| {
                // Bound at once, the variable is never printed: it needs no name.
                let v = self.solver.env.new_dim(None);
                self.solver.env.bind_dim(v, Dim::Solved(size));
                (name.clone(), v)
            })
            .collect();
        let store = &mut self.solver.env.store;
        let first = result.map(|r| store.push_solved(&r.dims, r.leading))[0];
        Some((ShapeRef::Stored(first), labels))
    }

    /// The solved rows (batch, input, output) of a tensor, or `None` when it has unknowns.
    fn solved_rows(&mut self, t: TensorId) -> Option<[SolvedRow; 3]> {
        let mut read = |kind| {
            let mut dims = SmallVec::new();
            let leading = self.solved_row(t, kind, &mut |s| dims.push(s))?;
            Some(SolvedRow { dims, leading })
        };
        Some([read(RowKind::Batch)?, read(RowKind::Input)?, read(RowKind::Output)?])
    }
}
