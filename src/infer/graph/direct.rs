//! Direct evaluation of a spec step whose operands are fully solved.
//!
//! A framework that knows its input shapes adds steps whose operands have no unknowns. For an
//! einsum or permute over such operands whose solution can be read off them (see
//! `infer::lower::bindings`), nothing is left for the solver to decide, so the step skips it; every
//! other step goes through the solver as usual, which finds the same answer where there is one
//! and explains the error where there is none. The `direct` integration test checks that both
//! paths agree on random programs.

use smallvec::SmallVec;

use super::{Graph, StepSpec};
use crate::ids::TensorId;
use crate::infer::lower::bindings::{read_off, reads_off, DirectSolution};
use crate::infer::op::OpKind;
use crate::infer::solve::store::ShapeRef;
use crate::shape::{Dim, Solved};
use crate::spec::ast::RowKind;

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
        if !self.direct || !reads_off(op) {
            return None;
        }
        let mut solution = DirectSolution::default();
        read_off(&step.parsed, &mut solution, |i, dims: &mut SmallVec<[Solved; 8]>| {
            let arg = *args.get(i)?;
            self.solved_shape_mut(arg, RowKind::ALL, &mut |s| dims.push(s))
        })?;
        // Every label is solved: it needs no variable.
        let labels = solution.labels.iter().map(|&(name, size)| (name, Dim::Solved(size)));
        let labels = self.push_labels(step, labels);
        let store = &mut self.solver.env.store;
        let mut start = 0;
        let first = solution.rows.map(|(len, leading)| {
            let row = solution.dims.get(start..start + len).unwrap_or_default();
            start += len;
            store.push_solved(row, leading)
        })[0];
        Some((ShapeRef::Stored(first), labels))
    }

    /// Whether a tensor's shape is solved (no unbound row variable, every axis a plain size).
    pub(super) fn is_solved(&mut self, t: TensorId) -> bool {
        self.solved_shape_mut(t, RowKind::ALL, &mut |_| {}).is_some()
    }
}
