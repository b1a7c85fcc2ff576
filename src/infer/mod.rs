//! Stage 2 — shape inference: constraints per operation, solved by union-find over dim and row
//! variables (ena), with OCANNL's broadcast order, row templates, caps and staged closing.

mod arith;
pub(crate) mod bindings;
mod broadcast;
mod careful;
mod close;
mod concat;
mod conflict;
pub(crate) mod constraint;
mod deferred;
mod dims;
mod elaborate;
mod elems;
pub(crate) mod env;
mod error;
pub mod explain;
mod graph;
mod guesses;
mod info;
mod join;
mod keys;
pub(crate) mod latest;
mod link_index;
mod lower;
mod names;
mod nodes;
mod numpy;
mod op;
mod peek;
mod product;
pub mod program;
pub mod provenance;
mod row_links;
mod rows;
mod scheme;
mod show;
mod solver;
pub mod source;
mod store;
mod subst;
mod visit;
mod walk;
mod warnings;

pub use careful::CAREFUL_COPIES;
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
