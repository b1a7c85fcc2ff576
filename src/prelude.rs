//! The names most programs use, in one import.
//!
//! ```
//! use einrow::prelude::*;
//!
//! let mut g = Graph::new();
//! let x = g.input("x", &ShapeBuilder::new().batch([4]).output([3]))?;
//! let w = g.parameter("w", &ShapeBuilder::new().input_open().output([2]))?;
//! let y = g.compose(w, x)?;
//! g.solve()?;
//! assert_eq!(g.shape_string(y)?, "4|2");
//! let step = g.producer(y)?.expect("a step's result");
//! let plan: IndexPlan = derive_plan(&g, step, Compute::default_for(OpKind::Compose, 2), 0)?;
//! assert_eq!(plan.result_dims, [4, 2]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

pub use crate::code::{Coded, ErrorCode};
pub use crate::ids::{StepId, TensorId};
pub use crate::infer::{Graph, InferError, Leaf, OpKind, Scheme, ShapeBuilder, Warning};
pub use crate::kernel::{Accum, Combine};
pub use crate::project::{derive_plan, Compute, GradientPlan, IndexPlan, ProjectError};
pub use crate::spec::SpecError;

#[cfg(feature = "kernel")]
pub use crate::einsum;
#[cfg(feature = "kernel")]
pub use crate::kernel::RunOptions;
#[cfg(feature = "kernel")]
pub use crate::project::{
    Activation, Activations, CompiledGraph, Executable, Hooks, Training, Workspace,
};
#[cfg(feature = "kernel")]
pub use crate::tensor::{DType, Tensor};
