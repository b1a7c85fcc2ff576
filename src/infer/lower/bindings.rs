//! Reading a spec step's solution off fully solved operands, without a graph.
//!
//! When every operand of an einsum or permute is solved and the spec uses only labels,
//! placeholders and row variables, the flat equalities of the step have exactly one
//! solution: every label takes the size its operand axes agree on, every row variable the axes
//! it covers, and the result is the result slot written with those. [`read_off`] finds it, or
//! says `None` when the answer is not that simple — an axis or row that disagrees between
//! operands (an error, or a broadcast to decide), a fixed index, a strided or concatenated
//! axis, a result label or row variable no operand fixes. Then the solver decides, and explains
//! the error where there is one. The graph's direct evaluation and the eager planner
//! (`project::plan_einsum`) both read steps off here; the `direct` and `eager` integration
//! tests check that they agree with the solver.

use std::collections::HashMap;

use foldhash::fast::FixedState;
use smallvec::SmallVec;

use crate::infer::op::OpKind;
use crate::shape::Solved;
use crate::spec::ast::{self, same_name, AxisKind, EinsumSpec, Name, RowKind};

/// The solved sizes of one operand: every size in [`RowKind::ALL`] order, and per row its
/// length and how many of its axes lie in its leading flank.
pub(crate) type OperandRows = [(usize, usize); 3];

/// A step's solution read off its operands.
#[derive(Default)]
pub(crate) struct DirectSolution<'s> {
    /// The spec's labels with their sizes, in the order the solver's elaboration creates their
    /// variables: the result slot first, then the operand slots; within a slot by kind,
    /// leading axes, then trailing ones.
    pub labels: SmallVec<[(&'s Name, Solved); 8]>,
    /// The result's sizes, row after row in [`RowKind::ALL`] order.
    pub dims: SmallVec<[Solved; 8]>,
    /// Per result row (in [`RowKind::ALL`] order): its length and its leading flank's length.
    pub rows: OperandRows,
}

/// Labels from which [`Bindings`] looks labels up in a table rather than in its list.
const INDEX_FROM: usize = 16;

/// The sizes a spec's labels and row variables take from the operands.
#[derive(Default)]
struct Bindings<'s> {
    /// Labels in order of first occurrence in the operand slots.
    labels: SmallVec<[(&'s Name, Solved); 8]>,
    /// Positions in `labels` by name, once there are [`INDEX_FROM`] of them (a spec of many
    /// labels looks each up in O(1)).
    index: HashMap<&'s str, u32, FixedState>,
    rows: SmallVec<[(&'s str, Covered); 2]>,
}

/// The axes a row variable covers: their sizes, and how many of them lie in the operand row's
/// leading flank (the variable's value keeps that split, as the solver's row equation does).
struct Covered {
    dims: SmallVec<[Solved; 4]>,
    leading: usize,
}

/// Whether steps of this operation may be read off their operands: einsum, einsum3 and
/// permute (a concatenation's sizes are sums, which the solver works out).
pub(crate) fn reads_off(op: OpKind) -> bool {
    matches!(op, OpKind::Einsum | OpKind::Einsum3 | OpKind::Permute)
}

/// Reads the solution of a spec step off its operands into `out` (which starts empty; filled
/// in place, as it is large to move): `operand(i, dims)` appends the sizes of the `i`-th
/// operand to `dims` (cleared before each call) and returns its rows, or `None` when that
/// operand is not solved. `None` when the step needs the solver; `out` is then partly filled.
pub(crate) fn read_off<'s>(
    spec: &'s EinsumSpec,
    out: &mut DirectSolution<'s>,
    mut operand: impl FnMut(usize, &mut SmallVec<[Solved; 8]>) -> Option<OperandRows>,
) -> Option<()> {
    let mut b = Bindings::default();
    let mut dims: SmallVec<[Solved; 8]> = SmallVec::new();
    for (i, slot) in spec.rhs.iter().enumerate() {
        dims.clear();
        let rows = operand(i, &mut dims)?;
        let mut start = 0;
        for (kind, (len, leading)) in RowKind::ALL.into_iter().zip(rows) {
            let row = dims.get(start..start + len)?;
            start += len;
            if !b.match_row(slot.row(kind), kind, row, leading) {
                return None;
            }
        }
    }
    // Every operand label is bound, and the result uses only those.
    let mut order = Order::default();
    for kind in RowKind::ALL {
        b.result_row(spec.lhs.row(kind), kind, out, &mut order)?;
    }
    let rest = (0..b.labels.len()).filter(|i| !order.placed(*i));
    let labels: SmallVec<[usize; 8]> = order.list.iter().copied().chain(rest).collect();
    out.labels.extend(labels.iter().filter_map(|&i| b.labels.get(i).copied()));
    Some(())
}

/// The labels a result uses, in order of first use (positions in [`Bindings::labels`]), with
/// a mark per label once there are many.
#[derive(Default)]
struct Order {
    list: SmallVec<[usize; 8]>,
    marks: Vec<bool>,
}

impl Order {
    fn placed(&self, i: usize) -> bool {
        if self.list.len() < INDEX_FROM {
            return self.list.contains(&i);
        }
        self.marks.get(i).copied().unwrap_or(false)
    }

    fn place(&mut self, i: usize) {
        if self.placed(i) {
            return;
        }
        self.list.push(i);
        if self.list.len() < INDEX_FROM {
            return;
        }
        if self.list.len() == INDEX_FROM {
            for j in self.list.clone() {
                self.mark(j);
            }
        }
        self.mark(i);
    }

    fn mark(&mut self, i: usize) {
        if self.marks.len() <= i {
            self.marks.resize(i + 1, false);
        }
        self.marks[i] = true;
    }
}

impl<'s> Bindings<'s> {
    /// The position of a label in `labels`.
    fn find(&self, name: &str) -> Option<usize> {
        if self.labels.len() >= INDEX_FROM {
            return self.index.get(name).map(|&i| i as usize);
        }
        self.labels.iter().position(|(n, _)| same_name(n, name))
    }

    /// Records that `name` has size `s`; whether that agrees with what is known.
    fn label(&mut self, name: &'s Name, s: Solved) -> bool {
        match self.find(name).and_then(|i| self.labels.get(i)) {
            Some((_, known)) => *known == s,
            None => {
                self.labels.push((name, s));
                match self.labels.len() {
                    INDEX_FROM => {
                        let named = self.labels.iter().enumerate();
                        self.index.extend(named.map(|(i, (n, _))| (n.as_str(), i as u32)));
                    }
                    n if n > INDEX_FROM => {
                        self.index.insert(name.as_str(), (n - 1) as u32);
                    }
                    _ => {}
                }
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
        out: &mut DirectSolution,
        order: &mut Order,
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
    fn axis(&self, a: &ast::Axis, order: &mut Order) -> Option<Solved> {
        let AxisKind::Label(n) = &a.kind else { return None };
        let i = self.find(n)?;
        order.place(i);
        self.labels.get(i).map(|(_, s)| *s)
    }
}
