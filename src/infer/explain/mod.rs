//! Explaining inference errors: as [`Diagnostic`](crate::diagnostic::Diagnostic)s with the
//! failing statement and carets ([`diagnose`]), as text ([`render_error`]), and with where
//! each size of a dimension mismatch came from ([`trace`]); and the graph as a picture
//! ([`to_dot`], [`to_dot_marked`], and for a failed build [`to_dot_error`]).

mod context;
mod diagnose;
mod dot;
mod mismatch;
mod names;
mod rank;
mod render;
mod trace;
mod unresolved;
mod warned;

pub use context::Context;
pub use diagnose::diagnose;
pub use dot::{to_dot, to_dot_error, to_dot_marked};
pub use names::{shape_text, statement};
pub use render::render_error;
pub use trace::{conflict_of, trace};
pub use warned::solution_warnings;
