//! einrow: a shape engine for tensor programs.
//!
//! A framework declares tensors (fully, partly or not at all known), adds operations, solves,
//! and reads back every shape; each operation's indexing plan can then be inspected or run.
//!
//! ```
//! use einrow::infer::Graph;
//!
//! let mut g = Graph::new();
//! // A batch of unknown rank with 784 features, and a parameter sized by inference.
//! let x = g.declare("x", Some("32|784"), false)?;
//! let w = g.declare("w", Some("...->128"), true)?;
//! let h = g.compose(w, x)?;
//! let y = g.einsum("...|o; ...|o => ...|0", &[h, h])?;
//! g.solve()?;
//! assert_eq!(g.shape_string(w)?, "784->128");
//! assert_eq!(g.shape_string(h)?, "32|128");
//! // A result axis written only at index 0 has size 1 and broadcasts, like numpy's keepdims.
//! assert_eq!(g.shape_string(y)?, "32|1!");
//!
//! // The plan of the second step, printed as loops.
//! let plan = einrow::project::derive_plan(&mut g, einrow::ids::StepId(1),
//!     einrow::project::Compute::default_for(einrow::infer::OpKind::Einsum, 2), 0)?;
//! assert!(plan.to_string().contains("for batch[0] in 0..32, o in 0..128"));
//!
//! // numpy einsum on einrow tensors.
//! let a = einrow::tensor::Tensor::from_vec(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0])?;
//! let c = einrow::einsum("ij,jk->ik", &[&a, &a])?;
//! assert_eq!(c.to_f64_vec(), vec![7.0, 10.0, 15.0, 22.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The pipeline, one module per stage: [`spec`] (parsing, with spans), [`infer`] (shape
//! inference over a graph), [`project`] (indexing plans), [`kernel`] (a strided CPU kernel
//! over [`tensor`]s). [`numpy`] implements numpy's einsum; [`formats`] speaks Vespa and
//! TensorStore; [`check`] runs conformance case files. Every error has an [`ErrorCode`].

pub mod check;
pub mod code;
pub mod diagnostic;
pub mod formats;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod ids;
pub mod infer;
pub mod kernel;
pub mod numpy;
pub mod project;
pub mod shape;
pub mod span;
pub mod spec;
pub mod tensor;

pub use code::{Coded, ErrorCode};
pub use numpy::einsum;
pub use span::Span;
