//! Constraint generation per operation: inequalities for pointwise, compose and transpose;
//! flat equalities for spec operations and batch slicing. Omitted kinds in a spec are empty rows.

use super::elaborate::{discardable_labels, SpecEnv};
use crate::ids::{StepId, TensorId};
use crate::infer::error::InferError;
use crate::infer::op::OpKind;
use crate::infer::solve::constraint::{Constraint, Count, Origin, Part, RowArg};
use crate::infer::solve::solver::Solver;
use crate::infer::solve::store::ShapeRef;
use crate::shape::{Dim, Row};
use crate::spec::ast::{EinsumSpec, RowKind};

/// The tensors of one step with where their (unsubstituted) shapes live.
pub struct StepShapes<'a> {
    /// The step.
    pub step: StepId,
    /// The result tensor and its shape.
    pub out: (TensorId, ShapeRef),
    /// The operands and their shapes.
    pub args: &'a [(TensorId, ShapeRef)],
}

/// The number of the `i`-th operand, as origins record it (an operand past `u32::MAX`, which
/// no program reaches, reads as the last number rather than a wrapped one).
pub(in crate::infer) fn operand_number(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

const B: RowKind = RowKind::Batch;
const I: RowKind = RowKind::Input;
const O: RowKind = RowKind::Output;

impl Solver {
    /// `res ⊑ opnd`, from operand `i`'s row of kind `k`. A closed empty operand row
    /// broadcasts into any result: it gives no constraint.
    fn ineq(&mut self, s: &StepShapes, (i, k): (u32, RowKind), res: RowArg, opnd: RowArg) {
        if self.env.is_closed_empty(&opnd) {
            return;
        }
        let tensor = s.args.get(i as usize).map(|a| a.0);
        let part = Part::Operand(i, k);
        let o = self.origin(Origin { step: Some(s.step), tensor, part, span: None });
        self.push_with(Constraint::RowIneq { res, opnd }, o);
    }

    /// Constraints of a pointwise step: every result row refines every operand row.
    pub fn lower_pointwise(&mut self, s: &StepShapes) {
        for (i, (_, a)) in s.args.iter().enumerate() {
            for k in RowKind::ALL {
                let opnd = a.row(k);
                if let Some(v) = self.env.tail_var(&opnd) {
                    self.env.row_info[v.index()].used_in_pointwise = true;
                }
                self.ineq(s, (operand_number(i), k), s.out.1.row(k), opnd);
            }
        }
    }

    /// The result shape of a pointwise step whose first operand's shape is `first`: each row
    /// is already refined by the first operand's row, as the step's first inequality on it
    /// would refine a fresh row. An operand row with axes gives the template
    /// `fresh^l . <τ> . fresh^r` facing them; a row without axes gives a fresh row variable.
    ///
    /// Nothing can change the first operand's rows between lowering and those first
    /// inequalities (they are the step's first constraints, and a template binds only the
    /// fresh result row), so this is the refinement they would make, without a fresh variable
    /// bound at once and the inequality queued a second time.
    pub fn pointwise_result(&mut self, first: ShapeRef) -> ShapeRef {
        let rows = RowKind::ALL.map(|k| {
            let o = self.env.row_arg(&first.row(k));
            if o.explicit_len() == 0 {
                return Row::open(self.env.new_row());
            }
            // A fresh row has template depth 0; its template, depth 1.
            self.template_row(1, &o.beg, &o.dims)
        });
        ShapeRef::store_rows(rows.each_ref(), &mut self.env.store)
    }

    /// Constraints of `a * b`: `a`'s input row against `b`'s output row.
    pub fn lower_compose(&mut self, s: &StepShapes) {
        let (c, a, b) = (s.out.1, s.args[0].1, s.args[1].1);
        self.mark_used_in_spec(&a.row(I));
        self.ineq(s, (0, I), a.row(I), b.row(O));
        self.ineq(s, (0, B), c.row(B), a.row(B));
        self.ineq(s, (1, B), c.row(B), b.row(B));
        self.ineq(s, (1, I), c.row(I), b.row(I));
        self.ineq(s, (0, O), c.row(O), a.row(O));
    }

    /// Constraints of a transpose: input and output rows swap.
    pub fn lower_transpose(&mut self, s: &StepShapes) {
        let (c, a) = (s.out.1, s.args[0].1);
        self.ineq(s, (0, B), c.row(B), a.row(B));
        self.ineq(s, (0, O), c.row(I), a.row(O));
        self.ineq(s, (0, I), c.row(O), a.row(I));
    }

    /// Constraints of a batch slice: the result's batch row with one more leading axis equals
    /// the operand's batch row.
    pub fn lower_batch_slice(&mut self, s: &StepShapes) {
        let (c, a) = (s.out.1.shape(&self.env.store), s.args[0].1);
        let mut with_axis = c.batch.clone();
        with_axis.beg.insert(0, Dim::Var(self.env.new_dim(Some("slice"))));
        for (k, r) in [(B, &with_axis), (I, &c.input), (O, &c.output)] {
            let o = self.origin(Origin {
                step: Some(s.step),
                tensor: Some(s.args[0].0),
                part: Part::Operand(0, k),
                span: None,
            });
            let r = self.env.scratch_arg(r);
            self.push_with(Constraint::RowEq(r, a.row(k)), o);
        }
    }

    /// Constraints of a spec operation: the operands' rows equal the elaborated slots. The
    /// spec's variables (for projections) go into `env`, and the result slot's rows, which
    /// are the result's shape (binding fresh result rows to them would change nothing), into
    /// `lhs`. Both are the caller's: they are large, and moving them out of a return value
    /// cost copies.
    pub fn lower_spec(
        &mut self,
        step: StepId,
        args: &[(TensorId, ShapeRef)],
        (kind, spec): (OpKind, &EinsumSpec),
        (env, lhs): (&mut SpecEnv, &mut [Row; 3]),
    ) -> Result<(), InferError> {
        env.step = Some(step);
        env.slot(&mut self.env, &spec.lhs, lhs)?;
        // Each operand slot is elaborated and its equalities queued in turn: variables are
        // made and constraints queued in the same order as elaborating every slot first.
        let mut rows: [Row; 3] = Default::default();
        for (i, slot) in spec.rhs.iter().enumerate() {
            env.slot(&mut self.env, slot, &mut rows)?;
            for (j, k) in RowKind::ALL.into_iter().enumerate() {
                let slot_span = slot.row(k).map_or(slot.span, |r| r.span);
                // Two closed empty rows (a kind neither writes) are equal already.
                let (want, arg) = (self.env.scratch_arg(&rows[j]), args[i].1.row(k));
                if self.env.is_closed_empty(&want) && self.env.is_closed_empty(&arg) {
                    continue;
                }
                let o = self.origin(Origin {
                    step: Some(step),
                    tensor: Some(args[i].0),
                    part: Part::Operand(operand_number(i), k),
                    span: Some(slot_span),
                });
                self.mark_used_in_spec(&arg);
                self.push_with(Constraint::RowEq(want, arg), o);
            }
        }
        if kind == OpKind::Concat {
            for name in discardable_labels(&spec.lhs, &spec.rhs) {
                if let Some(v) = env.label(&name) {
                    self.env.dim_info[v.index()].set_discardable(true);
                }
            }
        }
        for &(v, id, span) in &env.flat {
            let o = self.origin(Origin {
                step: Some(step),
                tensor: None,
                part: Part::Side,
                span: Some(span),
            });
            self.push_with(Constraint::Product(Dim::Var(v), id), o);
        }
        for &(v, id, span) in &env.floors {
            let o = self.origin(Origin {
                step: Some(step),
                tensor: None,
                part: Part::Side,
                span: Some(span),
            });
            self.push_with(Constraint::FloorConv(Dim::Var(v), id), o);
        }
        for &(v, i) in &env.fixed {
            let o = self.origin(Origin {
                step: Some(step),
                tensor: None,
                part: Part::Side,
                span: None,
            });
            self.push_with(Constraint::AtLeast(Dim::Var(v), Count(i.saturating_add(1))), o);
        }
        Ok(())
    }

    fn mark_used_in_spec(&mut self, row: &RowArg) {
        if let Some(v) = self.env.tail_var(row) {
            self.env.row_info[v.index()].used_in_spec = true;
        }
    }
}
