//! What a [`Scheme`](crate::infer::Scheme) needs of a graph: a copy to solve with its row
//! variables bound to marker axes (a probe), and the solved sizes with their bases.

use smallvec::SmallVec;

use super::events::Event;
use super::handles::HandleKind;
use super::Graph;
use crate::ids::{StepId, TensorId};
use crate::infer::error::InferError;
use crate::infer::solve::constraint::{Constraint, Origin, Part, RowArg};
use crate::shape::{Basis, Dim, Row, Solved};
use crate::spec::ast::RowKind;

/// A tensor's solved sizes with their bases, in [`RowKind::ALL`] order, and each row's length
/// and leading flank.
pub(crate) type SolvedAxes = (SmallVec<[Solved; 8]>, [(usize, usize); 3]);

impl Graph {
    /// A copy of this graph (same identity: its handles are valid on the copy).
    pub(crate) fn fork(&self) -> Graph {
        Graph {
            solver: self.solver.clone(),
            tensors: self.tensors.clone(),
            steps: self.steps.clone(),
            pending: self.pending.clone(),
            in_pending: self.in_pending.clone(),
            declared: self.declared.clone(),
            events: self.events.clone(),
            next_name: None,
            names: self.names.clone(),
            labels: self.labels.clone(),
            numpy_texts: self.numpy_texts.clone(),
            specs: self.specs.clone(),
            shape_texts: self.shape_texts.clone(),
            direct: self.direct,
            id: self.id,
            handles: self.handles.clone(),
            capture: None,
            captured_rows: SmallVec::new(),
            axis_limit: self.axis_limit,
        }
    }

    /// The basis named `name` (interned).
    pub(crate) fn intern_basis(&mut self, name: &str) -> Basis {
        self.solver.bases.intern(name)
    }

    /// Binds a row handle to these axes (recorded, so that careful solving replays it).
    pub(crate) fn bind_probe(
        &mut self,
        h: super::Handle,
        axes: &[Solved],
    ) -> Result<(), InferError> {
        let v = self.handle_var(h, HandleKind::Row)?.row();
        self.events.push(Event::Probe(Box::new((self.handle_index(h), axes.to_vec()))));
        let row = Row::closed(axes.iter().map(|s| Dim::Solved(*s)));
        let stored = self.solver.env.store.push(&row);
        let o = self.solver.origin(Origin {
            step: None,
            tensor: None,
            part: Part::Setting,
            span: None,
        });
        self.solver.push_with(Constraint::RowEq(RowArg::Var(v), RowArg::Stored(stored)), o);
        self.solver.run()
    }

    /// A tensor's solved sizes with their bases; `None` while something is unknown.
    pub(crate) fn solved_axes(&self, t: TensorId) -> Option<SolvedAxes> {
        let mut axes = SmallVec::new();
        let rows = self.solved_shape(t, RowKind::ALL, &mut |s| axes.push(s))?;
        Some((axes, rows))
    }

    /// The solved sizes (with bases) of a step's labels, in the order of its labels; `None`
    /// for a label still unknown.
    pub(crate) fn label_axes(&self, step: StepId) -> SmallVec<[Option<Solved>; 8]> {
        let dims = self.step_label_dims(step);
        dims.iter().map(|d| self.solver.env.peek_dim(d).solved()).collect()
    }
}
