//! Fuzzing shape rules (feature `fuzzing`): proptest strategies for specs, shapes and
//! operation graphs, and invariant checkers that are independent of the solver.
//!
//! - [`model`]: concrete shapes (sizes with bases, rows with their flank split);
//! - [`rules`], [`spec_rules`], [`checker`]: the constraints of every operation re-checked on
//!   concrete shapes, written from the specification rather than from the solver;
//! - [`solution`]: a solved graph read back as concrete shapes;
//! - [`gen`]: random programs that are well-formed by construction, with a witness (and
//!   malformed ones); [`fit`]: operand shapes that fit a given spec;
//! - [`props`]: the properties (solutions check, determinism, order independence, round trips,
//!   no panics) as functions returning a [`props::Failure`];
//! - [`shrink`] and [`case_file`]: shrinking a failing program and writing it as a case file
//!   ([`check::format`](crate::check::format)) to keep as a test;
//! - [`specs`] and [`numpy`]: spec text (valid and near-valid) and numpy einsum cases;
//! - [`exec`] and [`execution`]: a naive evaluator of solved programs, compared with
//!   einrow's projections and kernel;
//! - [`views`]: random strided views, and numpy einsum on them against the naive reference;
//! - [`campaign`]: seeded fuzzing loops over all of the above (what `einrow fuzz` runs).

pub mod campaign;
pub mod case_file;
pub mod checker;
pub mod exec;
mod exec_spec;
pub mod execution;
pub mod fit;
pub mod gen;
pub mod model;
pub mod numpy;
pub mod numpy_rules;
pub mod props;
pub mod rules;
pub mod shrink;
pub mod solution;
pub mod spec_rules;
pub mod specs;
pub mod views;

pub use checker::{check_solution, Violation};
pub use gen::{programs, GenConfig, Generated};
pub use model::{ConcreteBasis, ConcreteDim, ConcreteRow, ConcreteShape};
pub use props::{Failure, FailureKind};
pub use solution::Solution;
