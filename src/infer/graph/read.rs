//! Reading shapes back: substituted shapes, solved sizes, shape strings, and the errors that
//! name what is still unknown.

use super::Graph;
use crate::code::ErrorCode;
use crate::ids::TensorId;
use crate::infer::error::InferError;
use crate::shape::{rows_text, Basis, Dim, Shape, Solved};
use crate::spec::ast::RowKind;

impl Graph {
    /// The current shape of a tensor, with the bindings substituted.
    pub fn shape(&mut self, t: TensorId) -> Shape {
        let [batch, input, output] =
            self.tensors[t.index()].shape.rows().map(|r| self.solver.env.row_arg(&r));
        Shape { batch, input, output }
    }

    /// The solved sizes of a tensor's rows (batch, input, output), or an error naming what is
    /// still unknown.
    pub fn dims(&mut self, t: TensorId) -> Result<[Vec<Solved>; 3], InferError> {
        let shape = self.shape(t);
        if let Some(e) = self.solver.overflow_error() {
            return Err(e);
        }
        let mut out: [Vec<Solved>; 3] = Default::default();
        for (i, kind) in RowKind::ALL.into_iter().enumerate() {
            let row = shape.row(kind);
            if row.var.is_some() {
                return Err(self.unknown(t, &format!("its {} row", kind.name())));
            }
            for d in row.all() {
                match d.solved() {
                    Some(s) => out[i].push(s),
                    None => return Err(self.unsolved_axis(t, kind, d)),
                }
            }
        }
        Ok(out)
    }

    /// An axis left unsolved: a basis conflict between its parts, or an unknown.
    fn unsolved_axis(&mut self, t: TensorId, kind: RowKind, d: &Dim) -> InferError {
        let what = format!("the {} axis `{}`", kind.name(), self.solver.env.show_dim(*d));
        match self.solver.env.basis_conflict(*d) {
            Some((parts, a, b)) => {
                let name = self.name(t);
                let (a, b) = (self.basis_name(a), self.basis_name(b));
                let msg = format!(
                    "`{name}`: {what}: {parts} have conflicting dimension bases `{a}` and `{b}`"
                );
                InferError::shape(ErrorCode::Mismatch, msg)
            }
            None => self.unknown(t, &what),
        }
    }

    fn unknown(&self, t: TensorId, what: &str) -> InferError {
        let name = self.name(t);
        InferError::shape(
            ErrorCode::Unresolved,
            format!("the shape of `{name}` is not known: {what} is unresolved"),
        )
    }

    /// The shape as a FORMAT.md shape string (`2|4->3`, `rgb=3`, `1!`).
    pub fn shape_string(&mut self, t: TensorId) -> Result<String, InferError> {
        let [b, i, o] = self.dims(t)?;
        let show =
            |v: &[Solved]| v.iter().map(|&s| self.solved_text(s)).collect::<Vec<_>>().join(",");
        Ok(rows_text(&show(&b), &show(&i), &show(&o)))
    }

    /// The solved size of a dim (after [`Graph::solve`]), e.g. of a step's label.
    pub fn dim_size(&mut self, d: Dim) -> Option<u64> {
        self.solver.env.dim(&d).solved().map(|s| s.size)
    }

    /// The name of a basis.
    pub fn basis_name(&self, b: Basis) -> &str {
        self.solver.bases.name(b)
    }

    /// A solved dim as a shape string writes it (`3`, `rgb=3`, `1!`; see [`Solved::text`]).
    pub fn solved_text(&self, s: Solved) -> String {
        s.text(&self.solver.bases)
    }
}
