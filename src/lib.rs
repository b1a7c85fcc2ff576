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
//! let step = g.producer(y)?.expect("y is a step's result");
//! let plan = derive_plan(&g, step, Compute::default_for(OpKind::Einsum, 2), 0)?;
//! assert!(plan.to_string().contains("for batch[0] in 0..32, o in 0..128"));
//! # #[cfg(feature = "kernel")] {
//! let (hs, mut ys) = (vec![0.5f32; 32 * 128], vec![0.0f32; 32]);
//! plan.compile()?.run(&[&hs, &hs], &mut ys)?;
//! assert_eq!(ys[0], 32.0);
//!
//! // numpy einsum on einrow tensors.
//! let a = einrow::tensor::Tensor::from_vec(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0])?;
//! let c = einrow::einsum("ij,jk->ik", &[&a, &a])?;
//! assert_eq!(c.to_f64_vec(), vec![7.0, 10.0, 15.0, 22.0]);
//! # }
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The pipeline, one module per stage: [`spec`] (parsing, with spans), [`infer`] (shape
//! inference over a graph), [`project`] (indexing plans, compiled and run), [`kernel`] (a
//! strided CPU kernel over [`tensor`]s). [`numpy`] implements numpy's einsum.
#![cfg_attr(
    feature = "kernel",
    doc = "[`formats`] speaks Vespa and TensorStore; [`check`] runs conformance case files."
)]
//! Every error has an [`ErrorCode`].
//!
//! # For frameworks
//!
//! `examples/framework.rs` walks through it end to end: a transformer block declared with the
//! typed API ([`infer::ShapeBuilder`], [`infer::Leaf`]), solved once as a [`infer::Scheme`]
//! with the batch symbolic, instantiated for two batch shapes, every step compiled
//! (`project::CompiledGraph`) and run in f32 on buffers the framework owns.
//!
//! - Sizes are `u64` in every shape, plan and scheme (they are checked against 2^62, which a
//!   32-bit `usize` cannot hold); buffers are Rust slices, indexed by `usize`.
//! - Rows are named (`batch`, `input`, `output`: [`infer::TensorSizes`]); a tensor's memory
//!   layout is row-major over its batch axes, then its output axes, then its input axes.
//! - Dimension handles ([`infer::Handle`]) capture labels and row variables of a step
//!   ([`infer::Graph::add_step_capturing`]) to set or read their sizes.
//! - Solving reports legal but surprising outcomes as values ([`infer::Warning`]).
//! - With the `ndarray` feature, compiled plans run on `ndarray` views too.
//! - With the `serde` feature, plans, schemes, compiled graphs and training steps serialise,
//!   to be cached: reading one back checks it and compiles it again.
//!
//! # Features
//!
//! - `kernel` (default): the strided CPU kernel and everything that holds element values:
//!   tensors, compiled plans and graphs, training, numpy einsum on values, `formats` and
//!   `check`. Without it (`einrow = { version = "0.1", default-features = false }`)
//!   einrow is the shape engine alone — parsing, shape inference, schemes, indexing and
//!   gradient plans (their text and JSON), numpy einsum shapes and contraction paths — and
//!   pulls in neither rayon, gemm nor half.
//! - `cli` (default): the `einrow` binary (clap); implies `kernel` and `fuzzing`.
//! - `fuzzing`: proptest strategies and checkers (see below); implies `kernel`.
//! - `ndarray`: compiled plans on `ndarray` views; implies `kernel`.
//!
//! # Where to read on
//!
//! - [`prelude`]: the names most programs use, in one import (`use einrow::prelude::*`).
//! - [`infer::program`]: the text format of `einrow infer` programs, every operation.
//! - [`check::format`]: the case format (case kinds, expectations, shape strings, error codes)
//!   and the contract of `einrow check`.
//! - `fuzzing` (feature `fuzzing`, on by default): fuzzing your own shape rules against
//!   einrow's generators and independent checker.
//! - [`architecture`]: the pipeline, the invariants the code keeps, and why each dependency is
//!   there.
//!
//! # Where einrow goes beyond OCANNL
//!
//! einrow follows OCANNL's shape semantics (its syntax, row variables, broadcasting and staged
//! closing), and goes beyond it where OCANNL fails on a valid program or reports less than it
//! could:
//!
//! - Each `_` is a fresh placeholder (OCANNL makes all `_` of a spec one variable; its own
//!   documentation describes an unconstrained placeholder). Integer concatenation components
//!   (`3^a => a`) are read, as OCANNL's documentation advertises and its grammar rejects; in a
//!   result they are a syntax error, since they would leave elements unwritten.
//! - When OCANNL's closing policy (leaves take their caps) makes a satisfiable program fail,
//!   [`Graph::solve`](infer::Graph::solve) replays it and decides carefully (each leaf: its
//!   cap, else the broadcast top, else open), then searches lengths of open leaf rows: the
//!   closing-order and periodic counterexamples of OCANNL's documentation solve. The search
//!   runs only after a contradiction: a program that leaves something undetermined
//!   (`unresolved`) keeps that error, since any chosen length would be a guess.
//! - A parameter's row closes empty only when the parameter was used pointwise only (a bias);
//!   any other row of a parameter that no operation determines is an `unresolved` error.
//! - numpy einsum is solved by the same engine (numpy's size-1 axes are the broadcast top
//!   `1!`), as the `numpy` operation of a graph.
//! - Errors name the step, the tensors and the rows, and put carets under both conflicting
//!   places of the spec; [`explain`](infer::explain) (`einrow infer --explain`) prints the
//!   chain of constraints. A dimension mismatch says where each size came from
//!   (`` `j` is 3 from … but 4 from … ``) and at which axis of the failing row, counted as
//!   numpy counts axes (`axis 0` is the first, `axis -1` the last). Only the constraints that
//!   an operation itself queued carry axis positions: a constraint derived through a row
//!   variable's links relates other rows than its origin names.

#![warn(missing_docs)]

pub mod architecture;
pub mod check;
pub mod code;
pub mod diagnostic;
#[cfg(feature = "kernel")]
pub mod formats;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod ids;
pub mod infer;
pub mod kernel;
pub mod lint;
pub mod numpy;
pub mod prelude;
pub mod project;
pub mod shape;
pub mod span;
pub mod spec;
pub mod tensor;

pub use code::{Coded, ErrorCode};

/// The README's Rust example, compiled and run by `cargo test --doc` (it runs a plan: the
/// `kernel` feature's).
#[cfg(all(doctest, feature = "kernel"))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
#[cfg(feature = "kernel")]
pub use numpy::einsum;
pub use span::Span;
