//! numpy einsum as constraints of the engine: each result label is a dim that every
//! occurrence broadcasts into (`R ⊑ occurrence`: equal, or the occurrence is the broadcast
//! top, which is what numpy's size-1 axes are), repeated labels within one operand are equal
//! (numpy takes a diagonal, without broadcasting), and the result's ellipsis is a row that every
//! operand's ellipsis broadcasts into (right-aligned). Operands and the result are output rows.

use super::rules::StepShapes;
use crate::code::ErrorCode;
use crate::ids::DimVar;
use crate::infer::error::InferError;
use crate::infer::solve::constraint::{Constraint, Origin, Part, RowArg};
use crate::infer::solve::solver::Solver;
use crate::shape::{Dim, Dims, Row};
use crate::spec::ast::{AxisKind, NumpySpec, Row as Term, RowKind};

/// The label of a numpy axis (always a single letter).
fn label(kind: &AxisKind) -> char {
    match kind {
        AxisKind::Label(l) => l.chars().next().unwrap_or('?'),
        _ => '?',
    }
}

impl Solver {
    /// Constraints of a numpy einsum step.
    pub fn lower_numpy(&mut self, s: &StepShapes, spec: &NumpySpec) -> Result<(), InferError> {
        if spec.inputs.len() != s.args.len() {
            let msg = format!(
                "the subscripts name {} operands, {} were given",
                spec.inputs.len(),
                s.args.len()
            );
            return Err(InferError::Usage { code: ErrorCode::Arity, message: msg });
        }
        let mut labels: Vec<(char, DimVar)> = Vec::new();
        let ellipsis = self.env.new_row();
        for (i, (term, (t, shape))) in spec.inputs.iter().zip(s.args).enumerate() {
            let o = self.origin(Origin {
                step: Some(s.step),
                tensor: Some(*t),
                part: Part::Operand(super::rules::operand_number(i), RowKind::Output),
                span: Some(term.span),
            });
            self.current = Some(o);
            for k in [RowKind::Batch, RowKind::Input] {
                self.push_with(Constraint::RowEq(shape.row(k), RowArg::Empty), o);
            }
            let row = self.numpy_operand_row(term, &mut labels, ellipsis);
            let row = self.env.scratch_arg(&row);
            self.push_with(Constraint::RowEq(row, shape.row(RowKind::Output)), o);
        }
        self.pin_numpy_ellipsis(spec, s, ellipsis);
        let out_row = match &spec.output {
            Some(term) => self.numpy_result_row(term, &mut labels, ellipsis),
            None => implicit_output(spec, &labels, ellipsis),
        };
        let o = self.origin(Origin {
            step: Some(s.step),
            tensor: Some(s.out.0),
            part: Part::Result(RowKind::Output),
            span: None,
        });
        for k in [RowKind::Batch, RowKind::Input] {
            self.push_with(Constraint::RowEq(s.out.1.row(k), RowArg::Empty), o);
        }
        if spec.output.as_ref().is_some_and(|t| t.ellipsis.is_none()) {
            // numpy (optimize=False) rejects input ellipsis dims the output drops.
            self.push_with(Constraint::RowEq(RowArg::Var(ellipsis), RowArg::Empty), o);
        }
        let out_row = self.env.scratch_arg(&out_row);
        self.push_with(Constraint::RowEq(s.out.1.row(RowKind::Output), out_row), o);
        Ok(())
    }

    /// When every operand with an ellipsis is known, the result's ellipsis is exactly numpy's
    /// broadcast of theirs (right-aligned; at each position the size other than 1, else a
    /// user-written 1, which only equals itself, else the broadcast top), so that later
    /// consumers cannot widen it.
    fn pin_numpy_ellipsis(
        &mut self,
        spec: &NumpySpec,
        s: &StepShapes,
        ellipsis: crate::ids::RowVar,
    ) {
        let mut parts: Vec<Vec<Dim>> = Vec::new();
        for (term, (_, shape)) in spec.inputs.iter().zip(s.args) {
            if term.ellipsis.is_none() {
                continue;
            }
            let row = self.env.row_arg(&shape.row(RowKind::Output));
            let all: Vec<Dim> = row.all().cloned().collect();
            let (nl, nt) = (term.leading.len(), term.trailing.len());
            if row.var.is_some() || all.len() < nl + nt || all.iter().any(|d| d.solved().is_none())
            {
                return;
            }
            parts.push(all[nl..all.len() - nt].to_vec());
        }
        let n = parts.iter().map(Vec::len).max().unwrap_or(0);
        let rank = |d: &Dim| match d.solved() {
            Some(s) if s.is_top() => 0,
            Some(s) if s.size == 1 => 1,
            _ => 2,
        };
        // Right-aligned, each part visited once: at each position the first dim of the
        // highest rank.
        let mut picks: Vec<Option<&Dim>> = vec![None; n];
        for p in &parts {
            for (pick, d) in picks[n - p.len()..].iter_mut().zip(p) {
                if pick.is_none_or(|q| rank(d) > rank(q)) {
                    *pick = Some(d);
                }
            }
        }
        let dims = picks.into_iter().map(|p| p.cloned().unwrap_or_else(Dim::top));
        let row = Row { beg: Dims::new(), var: None, dims: dims.collect() };
        let row = self.env.scratch_arg(&row);
        self.push(Constraint::RowEq(RowArg::Var(ellipsis), row));
    }

    fn numpy_label(&mut self, labels: &mut Vec<(char, DimVar)>, c: char) -> DimVar {
        if let Some((_, v)) = labels.iter().find(|(l, _)| *l == c) {
            return *v;
        }
        let v = self.env.new_dim(Some(&c.to_string()));
        labels.push((c, v));
        v
    }

    /// The operand's row: one fresh dim per occurrence, each refined by its label's result
    /// dim; repeats within the operand equal; the ellipsis a fresh row under the result's.
    fn numpy_operand_row(
        &mut self,
        term: &Term,
        labels: &mut Vec<(char, DimVar)>,
        ellipsis: crate::ids::RowVar,
    ) -> Row {
        let mut seen: Vec<(char, Dim)> = Vec::new();
        let mut occ = |solver: &mut Solver, kind: &AxisKind| {
            let c = label(kind);
            let r = solver.numpy_label(labels, c);
            let d = Dim::Var(solver.env.new_dim(Some(&c.to_string())));
            solver.push(Constraint::DimIneq { res: Dim::Var(r), opnd: d });
            if let Some((_, first)) = seen.iter().find(|(l, _)| *l == c) {
                solver.push(Constraint::DimEq(*first, d));
            } else {
                seen.push((c, d));
            }
            d
        };
        let beg: Dims = term.leading.iter().map(|a| occ(self, &a.kind)).collect();
        let dims: Dims = term.trailing.iter().map(|a| occ(self, &a.kind)).collect();
        let var = term.ellipsis.as_ref().map(|_| {
            let rho = self.env.new_row();
            let (res, opnd) = (RowArg::Var(ellipsis), RowArg::Var(rho));
            self.push(Constraint::RowIneqRight { res, opnd });
            rho
        });
        Row { beg, var, dims }
    }

    fn numpy_result_row(
        &mut self,
        term: &Term,
        labels: &mut Vec<(char, DimVar)>,
        ellipsis: crate::ids::RowVar,
    ) -> Row {
        let mut dim = |solver: &mut Solver, kind: &AxisKind| {
            Dim::Var(solver.numpy_label(labels, label(kind)))
        };
        let beg: Dims = term.leading.iter().map(|a| dim(self, &a.kind)).collect();
        let dims: Dims = term.trailing.iter().map(|a| dim(self, &a.kind)).collect();
        Row { beg, var: term.ellipsis.as_ref().map(|_| ellipsis), dims }
    }
}

/// numpy's implicit output: the ellipsis (if any input has one), then the labels that occur
/// exactly once, in ASCII order (uppercase first).
fn implicit_output(
    spec: &NumpySpec,
    labels: &[(char, DimVar)],
    ellipsis: crate::ids::RowVar,
) -> Row {
    let dims = spec
        .implicit_output()
        .iter()
        .filter_map(|c| labels.iter().find(|(l, _)| l == c).map(|(_, v)| Dim::Var(*v)))
        .collect();
    let var = spec.inputs.iter().any(|t| t.ellipsis.is_some()).then_some(ellipsis);
    Row { beg: Dims::new(), var, dims }
}
