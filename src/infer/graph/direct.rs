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

use super::{Graph, StepSpec};
use crate::ids::TensorId;
use crate::infer::op::OpKind;
use crate::infer::store::ShapeRef;
use crate::shape::{Dim, Solved};
use crate::spec::ast::{self, same_name, AxisKind, Name, RowKind};

/// The sizes a spec's labels and row variables take from the operands.
#[derive(Default)]
struct Bindings<'s> {
    /// Labels in order of first occurrence in the operand slots (with their text, read once).
    labels: SmallVec<[(&'s Name, &'s str, Solved); 8]>,
    rows: SmallVec<[(&'s str, Covered); 2]>,
}

/// The axes a row variable covers: their sizes, and how many of them lie in the operand row's
/// leading flank (the variable's value keeps that split, as the solver's row equation does).
struct Covered {
    dims: SmallVec<[Solved; 4]>,
    leading: usize,
}

/// The result's rows, one after the other in `dims`: each row's length and leading flank.
#[derive(Default)]
struct ResultRows {
    dims: SmallVec<[Solved; 8]>,
    rows: [(usize, usize); 3],
}

impl<'s> Bindings<'s> {
    /// The position of a label in `labels`.
    fn find(&self, name: &str) -> Option<usize> {
        self.labels.iter().position(|(_, n, _)| same_name(n, name))
    }

    /// Records that `name` has size `s`; whether that agrees with what is known.
    fn label(&mut self, name: &'s Name, s: Solved) -> bool {
        match self.find(name).and_then(|i| self.labels.get(i)) {
            Some((_, _, known)) => *known == s,
            None => {
                self.labels.push((name, name.as_str(), s));
                true
            }
        }
    }

    /// Records that the row variable `name` covers `dims`, `leading` of them in the operand's
    /// leading flank; whether that agrees with what is known (axes only: the first occurrence
    /// sets the split, later ones are compared axis by axis).
    fn row(&mut self, name: &'s str, dims: &[Solved], leading: usize) -> bool {
        match self.rows.iter().find(|(n, _)| same_name(n, name)) {
            Some((_, known)) => known.dims[..] == *dims,
            None => {
                self.rows.push((name, Covered { dims: dims.iter().copied().collect(), leading }));
                true
            }
        }
    }

    /// Matches a written operand row against an operand's solved row (`dims`, of which
    /// `leading` lie in its leading flank).
    fn match_row(
        &mut self,
        written: Option<&'s ast::Row>,
        kind: RowKind,
        dims: &[Solved],
        leading: usize,
    ) -> bool {
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
                let leading = leading.saturating_sub(nl).min(middle.len());
                self.row(e.var_name(kind), middle, leading)
            }
            None => true,
        }
    }

    /// Appends the result row of a written result row to `out`, when everything in it is
    /// fixed, noting in `order` the labels it uses (positions in `labels`, first occurrences).
    fn result_row(
        &self,
        written: Option<&ast::Row>,
        kind: RowKind,
        out: &mut ResultRows,
        order: &mut SmallVec<[usize; 8]>,
    ) -> Option<()> {
        let (start, k) = (out.dims.len(), kind.index());
        let Some(w) = written else {
            out.rows[k] = (0, 0);
            return Some(());
        };
        // As the solver's substitution splices a row variable's value at the marker: its
        // leading axes join the leading flank, its trailing axes the trailing one.
        for a in &w.leading {
            out.dims.push(self.axis(a, order)?);
        }
        let mut leading = w.leading.len();
        if let Some(e) = &w.ellipsis {
            let name = e.var_name(kind);
            let (_, c) = self.rows.iter().find(|(n, _)| same_name(n, name))?;
            out.dims.extend_from_slice(&c.dims);
            leading += c.leading;
        }
        for a in &w.trailing {
            out.dims.push(self.axis(a, order)?);
        }
        out.rows[k] = (out.dims.len() - start, leading);
        Some(())
    }

    /// The size of a result axis (a label), noting the label in `order`.
    fn axis(&self, a: &ast::Axis, order: &mut SmallVec<[usize; 8]>) -> Option<Solved> {
        let AxisKind::Label(n) = &a.kind else { return None };
        let i = self.find(n)?;
        if !order.contains(&i) {
            order.push(i);
        }
        self.labels.get(i).map(|(_, _, s)| *s)
    }
}

impl Graph {
    /// Evaluates a spec step over fully solved operands directly: the result's shape (stored)
    /// and where the spec's labels with their sizes were put in the table of labels, or `None`,
    /// having changed nothing, when the step needs the solver.
    pub(super) fn try_direct(
        &mut self,
        op: OpKind,
        step: &StepSpec,
        args: &[TensorId],
    ) -> Option<(ShapeRef, (u32, u32))> {
        let spec = &step.parsed;
        if !self.direct || !matches!(op, OpKind::Einsum | OpKind::Einsum3 | OpKind::Permute) {
            return None;
        }
        let mut b = Bindings::default();
        let mut dims: SmallVec<[Solved; 8]> = SmallVec::new();
        for (slot, &arg) in spec.rhs.iter().zip(args) {
            dims.clear();
            let rows = self.solved_shape(arg, RowKind::ALL, &mut |s| dims.push(s))?;
            let mut start = 0;
            for (kind, (len, leading)) in RowKind::ALL.into_iter().zip(rows) {
                let row = dims.get(start..start + len)?;
                start += len;
                if !b.match_row(slot.row(kind), kind, row, leading) {
                    return None;
                }
            }
        }
        let mut result = ResultRows::default();
        // Labels in the order the solver's elaboration creates their variables: the result
        // slot first, then the operand slots; within a slot by kind, leading axes, then
        // trailing ones. Every operand label is bound, and the result uses only those.
        let mut order: SmallVec<[usize; 8]> = SmallVec::new();
        for kind in RowKind::ALL {
            b.result_row(spec.lhs.row(kind), kind, &mut result, &mut order)?;
        }
        let rest: SmallVec<[usize; 8]> =
            (0..b.labels.len()).filter(|i| !order.contains(i)).collect();
        // Every label is solved: it needs no variable.
        let labels = order.iter().chain(&rest).filter_map(|&i| b.labels.get(i));
        let labels =
            self.push_labels(step, labels.map(|&(name, _, size)| (name, Dim::Solved(size))));
        let store = &mut self.solver.env.store;
        let mut start = 0;
        let first = result.rows.map(|(len, leading)| {
            let row = result.dims.get(start..start + len).unwrap_or_default();
            start += len;
            store.push_solved(row, leading)
        })[0];
        Some((ShapeRef::Stored(first), labels))
    }

    /// Whether a tensor's shape is solved (no unbound row variable, every axis a plain size).
    pub(super) fn is_solved(&mut self, t: TensorId) -> bool {
        self.solved_shape(t, RowKind::ALL, &mut |_| {}).is_some()
    }
}
