//! Stage 3 — projections: per operation, an inspectable indexing plan ([`IndexPlan`]) derived
//! from the solved shapes (or from a scheme instance: [`instance_plan`]), compiled onto the
//! kernel's loop nests ([`Executable`], a whole graph: [`CompiledGraph`]) and run on a caller's
//! buffers, contiguous or strided ([`View`], [`ViewMut`]), in any storage type ([`Storage`]).

mod activation;
mod any_view;
mod arena;
mod compiled;
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
mod run;
#[cfg(feature = "serde")]
mod serde_form;
mod sizes;
mod spec;
mod storage;
mod training;
mod training_run;
mod view;
mod vjp;

pub use activation::{Activation, Activations};
pub use any_view::{AnyView, AnyViewMut};
pub use arena::{plan_arena, Arena, Life};
pub use compiled::Executable;
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
pub use run::{run_graph, run_plan};
pub use storage::Storage;
pub use training::Training;
pub use training_run::{Hooks, Workspace};
pub use view::{View, ViewMut};
pub use vjp::einsum_vjp;
