//! Reading shapes back: substituted shapes, solved sizes, shape strings, and the errors that
//! name what is still unknown.

use super::Graph;
use crate::code::ErrorCode;
use crate::ids::TensorId;
use crate::infer::error::InferError;
use crate::shape::{rows_text, Basis, Dim, Shape, Solved};
use crate::spec::ast::RowKind;

impl Graph {
    /// The current shape of a tensor, with the bindings substituted (an affine or
    /// concatenation axis whose parts are not all solved is shown as written). Errors
    /// (`name`): an id of another graph, or past this graph's tensors.
    pub fn shape(&self, t: TensorId) -> Result<Shape, InferError> {
        let i = self.check_tensor(t)?;
        Ok(self.solver.env.peek_shape(self.tensors[i].shape))
    }

    /// [`Graph::shape`] of a tensor of this graph (an id it made itself); a tensor that is
    /// no longer there (the result of a failing step, taken back) has no axes.
    pub(crate) fn shape_of(&self, t: TensorId) -> Shape {
        match self.tensors.get(t.index()) {
            Some(e) => self.solver.env.peek_shape(e.shape),
            None => Shape::default(),
        }
    }

    /// The solved sizes of a tensor's rows, in [`RowKind::ALL`] order (batch, input, output;
    /// memory order is batch, output, input: [`Graph::sizes`] names the rows), or an error
    /// naming what is still unknown.
    pub fn dims(&self, t: TensorId) -> Result<[Vec<Solved>; 3], InferError> {
        self.check_tensor(t)?;
        let shape = self.shape_of(t);
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

    /// An axis left unsolved: a size above 2^62 among its parts, a basis conflict between
    /// them, or an unknown.
    fn unsolved_axis(&self, t: TensorId, kind: RowKind, d: &Dim) -> InferError {
        if let Some(node) = self.solver.env.peek_overflow(*d) {
            return self.solver.overflow_at(node);
        }
        let what = format!("the {} axis `{}`", kind.name(), self.solver.env.show_dim(*d));
        match self.solver.env.peek_conflict(*d) {
            Some((parts, a, b)) => {
                let name = self.name_or_id(t);
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
        let name = self.name_or_id(t);
        InferError::shape(
            ErrorCode::Unresolved,
            format!("the shape of `{name}` is not known: {what} is unresolved"),
        )
    }

    /// The shape as a shape string (`2|4->3`, `rgb=3`, `1!`; see the
    /// [case format](crate::check::format#shared-notations)).
    pub fn shape_string(&self, t: TensorId) -> Result<String, InferError> {
        let [b, i, o] = self.dims(t)?;
        let show =
            |v: &[Solved]| v.iter().map(|&s| self.solved_text(s)).collect::<Vec<_>>().join(",");
        Ok(rows_text(&show(&b), &show(&i), &show(&o)))
    }

    /// The solved size of a dim (after [`Graph::solve`]), e.g. of a step's label.
    pub fn dim_size(&self, d: Dim) -> Option<u64> {
        self.solver.env.peek_dim(&d).solved().map(|s| s.size)
    }

    /// The name of a basis.
    pub fn basis_name(&self, b: Basis) -> &str {
        self.solver.bases.name(b)
    }

    /// A solved dim as a shape string writes it (`3`, `rgb=3`, `1!`; see [`Solved::text`]).
    pub fn solved_text(&self, s: Solved) -> String {
        s.text(&self.solver.bases)
    }

    /// A dim with the current bindings substituted.
    pub(crate) fn peek(&self, d: Dim) -> Dim {
        self.solver.env.peek_dim(&d)
    }

    /// Whether a tensor's batch row was declared open with no axis written (no shape at all,
    /// or only a row variable).
    pub(crate) fn batch_undeclared(&self, t: TensorId) -> bool {
        let batch = self.raw_shape(t).batch;
        batch.var.is_some() && batch.explicit_len() == 0
    }
}
