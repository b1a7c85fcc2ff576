//! Constraint generation per operation: inequalities for pointwise, compose and transpose;
//! flat equalities for spec operations and batch slicing. Omitted kinds in a spec are empty rows.

use super::constraint::{Constraint, Origin, Part};
use super::elaborate::{discardable_labels, SpecEnv};
use super::error::InferError;
use super::op::OpKind;
use super::solver::Solver;
use crate::ids::{StepId, TensorId};
use crate::shape::{Dim, Row, Shape};
use crate::spec::ast::{EinsumSpec, RowKind};

/// The arguments of one step, already resolved to shapes.
pub struct StepShapes<'a> {
    /// The step.
    pub step: StepId,
    /// The result tensor and its shape.
    pub out: (TensorId, &'a Shape),
    /// The operands and their shapes.
    pub args: &'a [(TensorId, Shape)],
}

const B: RowKind = RowKind::Batch;
const I: RowKind = RowKind::Input;
const O: RowKind = RowKind::Output;

impl Solver {
    fn ineq(&mut self, s: &StepShapes, part: Part, res: &Row, opnd: &Row) {
        let tensor = match part {
            Part::Operand(i, _) => s.args.get(i as usize).map(|a| a.0),
            _ => Some(s.out.0),
        };
        let o = self.origin(Origin { step: Some(s.step), tensor, part, span: None });
        self.push_with(Constraint::RowIneq { res: res.into(), opnd: opnd.into() }, o);
    }

    /// Constraints of a pointwise step: every result row refines every operand row.
    pub fn lower_pointwise(&mut self, s: &StepShapes) {
        for (i, (_, a)) in s.args.iter().enumerate() {
            for k in RowKind::ALL {
                if let Some(v) = self.env.tail_var(a.row(k)) {
                    self.env.row_info[v.index()].used_in_pointwise = true;
                }
                self.ineq(s, Part::Operand(i as u8, k), s.out.1.row(k), a.row(k));
            }
        }
    }

    /// Constraints of `a * b`: `a`'s input row against `b`'s output row.
    pub fn lower_compose(&mut self, s: &StepShapes) {
        let (c, a, b) = (s.out.1, &s.args[0].1, &s.args[1].1);
        self.mark_used_in_spec(&a.input);
        self.ineq(s, Part::Operand(0, I), &a.input, &b.output);
        self.ineq(s, Part::Operand(0, B), &c.batch, &a.batch);
        self.ineq(s, Part::Operand(1, B), &c.batch, &b.batch);
        self.ineq(s, Part::Operand(1, I), &c.input, &b.input);
        self.ineq(s, Part::Operand(0, O), &c.output, &a.output);
    }

    /// Constraints of a transpose: input and output rows swap.
    pub fn lower_transpose(&mut self, s: &StepShapes) {
        let (c, a) = (s.out.1, &s.args[0].1);
        self.ineq(s, Part::Operand(0, B), &c.batch, &a.batch);
        self.ineq(s, Part::Operand(0, O), &c.input, &a.output);
        self.ineq(s, Part::Operand(0, I), &c.output, &a.input);
    }

    /// Constraints of a batch slice: the result's batch row with one more leading axis equals
    /// the operand's batch row.
    pub fn lower_batch_slice(&mut self, s: &StepShapes) {
        let (c, a) = (s.out.1, &s.args[0].1);
        let mut with_axis = c.batch.clone();
        with_axis.beg.insert(0, Dim::Var(self.env.new_dim(Some("slice"))));
        for (k, r) in [(B, &with_axis), (I, &c.input), (O, &c.output)] {
            let o = self.origin(Origin {
                step: Some(s.step),
                tensor: Some(s.args[0].0),
                part: Part::Operand(0, k),
                span: None,
            });
            self.push_with(Constraint::RowEq(r.into(), a.row(k).into()), o);
        }
    }

    /// Constraints of a spec operation: the operands' rows equal the elaborated slots. Returns
    /// the spec's variables (for projections) and the result slot's rows, which are the
    /// result's shape (binding fresh result rows to them would change nothing).
    pub fn lower_spec(
        &mut self,
        step: StepId,
        args: &[(TensorId, Shape)],
        kind: OpKind,
        spec: &EinsumSpec,
    ) -> Result<(SpecEnv, [Row; 3]), InferError> {
        let mut env = SpecEnv::default();
        let lhs = env.slot(&mut self.env, &spec.lhs)?;
        let mut rhs = Vec::with_capacity(spec.rhs.len());
        for slot in &spec.rhs {
            rhs.push(env.slot(&mut self.env, slot)?);
        }
        if kind == OpKind::Concat {
            for name in discardable_labels(&spec.lhs, &spec.rhs) {
                if let Some(v) = env.label(&name) {
                    self.env.dim_info[v.index()].discardable = true;
                }
            }
        }
        for (i, (slot, rows)) in spec.rhs.iter().zip(&rhs).enumerate() {
            for (j, k) in RowKind::ALL.into_iter().enumerate() {
                let span = slot.row(k).map_or(slot.span, |r| r.span);
                let o = self.origin(Origin {
                    step: Some(step),
                    tensor: Some(args[i].0),
                    part: Part::Operand(i as u8, k),
                    span: Some(span),
                });
                self.mark_used_in_spec(args[i].1.row(k));
                self.push_with(
                    Constraint::RowEq((&rows.rows[j]).into(), args[i].1.row(k).into()),
                    o,
                );
            }
        }
        for &(v, i) in &env.fixed {
            let o = self.origin(Origin {
                step: Some(step),
                tensor: None,
                part: Part::Side,
                span: None,
            });
            self.push_with(Constraint::AtLeast(Dim::Var(v), i.saturating_add(1)), o);
        }
        Ok((env, lhs.rows))
    }

    fn mark_used_in_spec(&mut self, row: &Row) {
        if let Some(v) = self.env.tail_var(row) {
            self.env.row_info[v.index()].used_in_spec = true;
        }
    }
}
