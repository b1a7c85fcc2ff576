//! The public graph API a framework calls: declare tensors, add operations (each propagated at
//! once), solve (close the world), read shapes back.

mod core;
mod declare;
mod direct;
mod events;
mod handles;
mod history;
mod identity;
mod labels;
mod naming;
mod probe;
mod read;
mod search;
mod settings;
mod sides;
mod sizes;
mod solving;
mod steps;
mod typed;

// `core.rs` names `OpKind` as `super::op::OpKind`, the path rustdoc shows for `Step::op` in
// the public API snapshot (`tests/data/public-api.txt`).
use super::op;

pub(crate) use self::core::DeclaredShape;
pub use self::core::{Graph, Step, StepSpec, TensorEntry};
pub use handles::{Captured, Handle, HandleKind};
pub use history::RecordedTexts;
pub use identity::GraphId;
pub use labels::StepLabels;
pub(crate) use probe::SolvedAxes;
pub(crate) use settings::{SetDimAt, SetDimRecord};
pub use steps::MAX_GRAPH_AXES;
pub use typed::{Leaf, ShapeBuilder, TensorSizes};
