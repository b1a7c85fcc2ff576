//! Stage 2 — shape inference: constraints per operation, solved by union-find over dim and row
//! variables (ena), with OCANNL's broadcast order, row templates, caps and staged closing.
//!
//! The folders, lowest first: a folder imports only those before it and the shared files
//! `op.rs` and `error.rs` (`tests/layering.rs` checks it; one known exception: closing reads
//! the graph's `TensorEntry`):
//!
//! - `solve/`: the union-find solver and its state (variables, rows, constraints, the rules
//!   that decide them); `solve/read/` reads its bindings without changing them.
//! - `close/`: closing the world once the operations are in (staged, then carefully).
//! - `lower/`: turning operations and specs into constraints.
//! - `graph/`, `scheme/`, [`provenance`]: the graph API, shape schemes, and where each size
//!   came from.
//! - [`program`], [`source`], `latest.rs`: programs as text; [`explain`]: their diagnostics.

mod close;
mod error;
pub mod explain;
mod graph;
pub(crate) mod latest;
pub(crate) mod lower;
mod op;
pub mod program;
pub mod provenance;
mod scheme;
mod solve;
pub mod source;
mod warnings;

// `warnings.rs` names the guesses as `super::guesses`.
use solve::guesses;

pub use close::careful::CAREFUL_COPIES;
pub use error::{
    AxisRef, Conflict, Derivation, DerivedFrom, Hop, InferError, Place, RankConflict, SetBy,
    ShapeError, Side, Trace,
};
pub use graph::{
    Captured, Graph, GraphId, Handle, HandleKind, Leaf, RecordedTexts, ShapeBuilder, Step,
    StepLabels, StepSpec, TensorEntry, TensorSizes, MAX_GRAPH_AXES,
};
pub use op::OpKind;
pub use scheme::{Instance, Scheme, SymDim, SymShape};
pub use warnings::Warning;
