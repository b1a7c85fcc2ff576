//! The typed sides of a dimension mismatch, as the solver knows them when it fails: each
//! size, the label it is, and the constraint it came from. Built only when a mismatch is
//! reported.

use super::constraint::{AxisAt, OriginId, Part};
use super::solver::Solver;
use crate::infer::error::{Conflict, Place, Side};
use crate::shape::{Dim, Solved};

impl Solver {
    /// The sides of the mismatch `a = b` (or `a ⊑ b`) whose values are `p` and `q`.
    pub(in crate::infer) fn conflict_of(
        &mut self,
        a: &Dim,
        b: &Dim,
        p: Solved,
        q: Solved,
    ) -> Conflict {
        let at = self.place(self.current, self.current_axis);
        let mut side = |d: &Dim, s: Solved| {
            let (label, from) = match d {
                Dim::Var(v) => {
                    let root = self.env.dim_root(*v);
                    let bound = self.env.dim_info[root.index()].bound_by();
                    (self.env.dim_name(*v).map(String::from), self.place(bound, AxisAt::NONE))
                }
                _ => (None, at.clone()),
            };
            let size = self.show_solved(s);
            Side { size, value: s.size, label, from: Some(from), trace: None }
        };
        let sides = [side(a, p), side(b, q)];
        Conflict { sides, at }
    }

    /// The place an origin names, at an axis.
    fn place(&self, origin: Option<OriginId>, axis: AxisAt) -> Place {
        let Some(o) = origin.and_then(|o| self.origins.get(o)) else { return Place::default() };
        let (operand, kind) = match o.part {
            Part::Result(k) => (None, Some(k)),
            Part::Operand(i, k) => (usize::try_from(i).ok(), Some(k)),
            Part::Declaration | Part::Side | Part::Setting => (None, None),
        };
        let axis = axis.get().and_then(|a| i16::try_from(a).ok());
        Place { step: o.step, tensor: o.tensor, operand, kind, axis }
    }
}
