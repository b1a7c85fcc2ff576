//! Provenance: where each size of a dimension mismatch came from.
//!
//! Nothing is recorded while solving. When an error is reported, the graph as solved so far is
//! read as a graph of axes: each step relates axes of its operands and result (a broadcast
//! aligns rows, a compose contracts one row against another, a spec's label or row variable
//! ties its occurrences). From the axes where a size shows at the failing step, a breadth-first
//! walk through axes of that same size finds the nearest declaration that writes it (or
//! [`set_dim`](crate::infer::Graph::set_dim) that sets it), and the
//! steps on the way are the chain that carried it. The failing step's own links are not
//! walked: the two sizes meet there.

mod declared;
mod derive;
mod links;
mod rows;
mod rows_walk;
mod settings;
mod walk;

pub use declared::Declared;
pub use links::{axis_span, Link, StepInfo};
pub use rows::RowView;
pub use rows_walk::{step_rows, RowHop, RowRef, RowTrace, RowWalk};
pub use walk::Walker;
