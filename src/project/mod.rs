//! Stage 3 — projections: per operation, an inspectable indexing plan ([`IndexPlan`]) derived
//! from the solved shapes (or from a scheme instance: [`instance_plan`]), compiled onto the
//! kernel's loop nests ([`Executable`], a whole graph: [`CompiledGraph`]) and run on a caller's
//! buffers, contiguous or strided ([`View`], [`ViewMut`]), in any storage type ([`Storage`]).
//!
//! Without the `kernel` feature the module derives plans and does not run them: plans of
//! steps, of scheme instances, of numpy einsum and of gradients, their text and JSON, and
//! arena layouts. Compiling, running, views, storage and training are left out.

// The summary above names the types that run plans; without `kernel` they are absent and
// their links are plain text.
#![cfg_attr(not(feature = "kernel"), allow(rustdoc::broken_intra_doc_links))]

#[cfg(feature = "kernel")]
mod activation;
#[cfg(feature = "kernel")]
mod any_view;
mod arena;
#[cfg(feature = "kernel")]
mod compiled;
#[cfg(feature = "kernel")]
mod compiled_graph;
mod components;
mod concrete;
mod derive;
mod eager;
mod error;
mod gradient;
mod instance;
#[cfg(feature = "ndarray")]
mod ndarray;
mod numpy_part;
mod plan;
mod plan_json;
mod positional;
#[cfg(feature = "kernel")]
mod run;
#[cfg(feature = "serde")]
mod serde_form;
mod sizes;
mod spec;
#[cfg(feature = "kernel")]
mod storage;
#[cfg(feature = "kernel")]
mod training;
#[cfg(feature = "kernel")]
mod training_run;
#[cfg(feature = "kernel")]
mod view;
#[cfg(feature = "kernel")]
mod vjp;

#[cfg(feature = "kernel")]
pub use activation::{Activation, Activations};
#[cfg(feature = "kernel")]
pub use any_view::{AnyView, AnyViewMut};
pub use arena::{plan_arena, Arena, Life};
#[cfg(feature = "kernel")]
pub use compiled::Executable;
#[cfg(feature = "kernel")]
pub use compiled_graph::CompiledGraph;
pub use concrete::{Concrete, ConcreteRow};
pub use derive::{derive_plan, Compute};
pub use eager::{operand_name, plan_einsum, EinsumPlanner};
pub use error::ProjectError;
pub use gradient::{GradInput, GradientPlan};
pub use instance::{instance_plan, instance_plans};
pub use numpy_part::plan_numpy;
pub use plan::{Index, IndexPlan, Loop, PartOperand, PlanPart};
pub use plan_json::PlanJsonError;
#[cfg(feature = "kernel")]
pub use run::{run_graph, run_plan};
#[cfg(feature = "kernel")]
pub use storage::Storage;
#[cfg(feature = "kernel")]
pub use training::Training;
#[cfg(feature = "kernel")]
pub use training_run::{Hooks, Workspace};
#[cfg(feature = "kernel")]
pub use view::{View, ViewMut};
#[cfg(feature = "kernel")]
pub use vjp::einsum_vjp;
