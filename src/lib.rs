//! einrow: a shape engine for tensor programs.
//!
//! A framework declares tensors (fully, partly or not at all known), adds operations, solves,
//! and reads back every shape; each operation's indexing plan can then be inspected, compiled
//! and run on the framework's own buffers.
//!
//! ```
//! use einrow::infer::{Graph, OpKind, ShapeBuilder};
//! use einrow::project::{derive_plan, Compute};
//!
//! let mut g = Graph::new();
//! // A batch of 32 with 784 features, and a parameter whose input row inference sizes.
//! let x = g.input("x", &ShapeBuilder::new().batch([32]).output([784]))?;
//! let w = g.parameter("w", &ShapeBuilder::new().input_open().output([128]))?;
//! let h = g.compose(w, x)?;
//! let y = g.einsum("...|o; ...|o => ...|0", &[h, h])?;
//! g.solve()?;
//! assert_eq!(g.sizes(w)?.input, [784]);
//! assert_eq!(g.shape_string(h)?, "32|128");
//! // A result axis written only at index 0 has size 1 and broadcasts, like numpy's keepdims.
//! assert_eq!(g.shape_string(y)?, "32|1!");
//!
//! // The plan of the step that made `y`, printed as loops, then compiled and run in f32.
//! let step = g.producer(y).expect("y is a step's result");
//! let plan = derive_plan(&mut g, step, Compute::default_for(OpKind::Einsum, 2), 0)?;
//! assert!(plan.to_string().contains("for batch[0] in 0..32, o in 0..128"));
//! let (hs, mut ys) = (vec![0.5f32; 32 * 128], vec![0.0f32; 32]);
//! plan.compile()?.run(&[&hs, &hs], &mut ys)?;
//! assert_eq!(ys[0], 32.0);
//!
//! // numpy einsum on einrow tensors.
//! let a = einrow::tensor::Tensor::from_vec(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0])?;
//! let c = einrow::einsum("ij,jk->ik", &[&a, &a])?;
//! assert_eq!(c.to_f64_vec(), vec![7.0, 10.0, 15.0, 22.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The pipeline, one module per stage: [`spec`] (parsing, with spans), [`infer`] (shape
//! inference over a graph), [`project`] (indexing plans, compiled and run), [`kernel`] (a
//! strided CPU kernel over [`tensor`]s). [`numpy`] implements numpy's einsum; [`formats`]
//! speaks Vespa and TensorStore; [`check`] runs conformance case files. Every error has an
//! [`ErrorCode`].
//!
//! # For frameworks
//!
//! `examples/framework.rs` walks through it end to end: a transformer block declared with the
//! typed API ([`infer::ShapeBuilder`], [`infer::Leaf`]), solved once as a [`infer::Scheme`]
//! with the batch symbolic, instantiated for two batch shapes, every step compiled
//! ([`project::CompiledGraph`]) and run in f32 on buffers the framework owns.
//!
//! - Sizes are `u64` in every shape, plan and scheme (they are checked against 2^62, which a
//!   32-bit `usize` cannot hold); buffers are Rust slices, indexed by `usize`.
//! - Rows are named (`batch`, `input`, `output`: [`infer::TensorSizes`]); a tensor's memory
//!   layout is row-major over its batch axes, then its output axes, then its input axes.
//! - Dimension handles ([`infer::Handle`]) capture labels and row variables of a step
//!   ([`infer::Graph::add_step_capturing`]) to set or read their sizes.
//! - Solving reports legal but surprising outcomes as values ([`infer::Warning`]).
//! - With the `ndarray` feature, compiled plans run on `ndarray` views too.

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
