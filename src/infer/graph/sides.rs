//! Side constraints on tensors, beside the steps: equal shapes, and a total element count
//! (OCANNL's `Total_elems`).

use super::events::Event;
use super::steps::usage;
use super::Graph;
use crate::code::ErrorCode;
use crate::ids::TensorId;
use crate::infer::error::InferError;
use crate::infer::solve::constraint::{Constraint, Count, Origin, Part};
use crate::spec::ast::RowKind;

impl Graph {
    /// Requires two tensors to have equal shapes (all three rows).
    pub fn equal_shapes(&mut self, a: TensorId, b: TensorId) -> Result<(), InferError> {
        self.check_tensor(a)?;
        self.check_tensor(b)?;
        let events = self.events.len();
        self.events.push(Event::Equal(a, b));
        let (sa, sb) = (self.tensors[a.index()].shape, self.tensors[b.index()].shape);
        let o = self.solver.origin(Origin {
            step: None,
            tensor: Some(a),
            part: Part::Side,
            span: None,
        });
        for k in RowKind::ALL {
            self.solver.push_with(Constraint::RowEq(sa.row(k), sb.row(k)), o);
        }
        self.touch(a);
        self.touch(b);
        let result = self.solver.run();
        self.failed_side(result, events)
    }

    /// Requires `t` to hold `n` elements in all rows together (OCANNL's `Total_elems`), e.g. a
    /// parameter sized by its initial data. A single unknown axis takes the quotient of `n`
    /// by the known axes; unknown axes are the broadcast top when the known ones already make
    /// `n`; at closing, an open row (the output row first) takes what is left as one axis and
    /// the other open rows close empty. A count the known axes cannot make is an `elems`
    /// error.
    ///
    /// ```
    /// use einrow::infer::Graph;
    /// let mut g = Graph::new();
    /// let w = g.declare("w", Some("3,..."), true).unwrap();
    /// g.total_elems(w, 12).unwrap();
    /// g.solve().unwrap();
    /// assert_eq!(g.shape_string(w).unwrap(), "3,4");
    /// ```
    pub fn total_elems(&mut self, t: TensorId, n: u64) -> Result<(), InferError> {
        self.check_tensor(t)?;
        if n > crate::spec::lexer::MAX_INT {
            return Err(usage(ErrorCode::Value, format!("{n} elements is above the limit 2^62")));
        }
        let events = self.events.len();
        self.events.push(Event::TotalElems(t, n));
        let shape = self.tensors[t.index()].shape;
        let o = self.solver.origin(Origin {
            step: None,
            tensor: Some(t),
            part: Part::Side,
            span: None,
        });
        self.solver.push_with(Constraint::TotalElems(shape, Count(n)), o);
        self.touch(t);
        let result = self.solver.run();
        self.failed_side(result, events)
    }

    /// A side constraint's result: on an error, named, and the graph as it was before the
    /// constraint (its first `events` events).
    fn failed_side(
        &mut self,
        result: Result<(), InferError>,
        events: usize,
    ) -> Result<(), InferError> {
        let Err(e) = result else { return Ok(()) };
        let e = self.named(e);
        self.roll_back_to(events);
        Err(e)
    }
}
