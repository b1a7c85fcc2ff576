//! The strided CPU kernel: executes an affine strided loop nest ([`Nest`]).
//!
//! - `nest.rs`: the plan type ([`Nest`], [`Access`], [`Guard`], [`AxisIndex`]) and how index
//!   plans lower onto it;
//! - `ops.rs`: the accumulation and combine operators;
//! - `run.rs`: validation, initialisation and the choice of path;
//! - `simplify.rs`: loop dropping, ordering and merging;
//! - `exec.rs` + `block.rs`: the strided executor and its vectorisable inner loops;
//! - `collect.rs` + `fresh.rs`: fresh outputs written in address order, straight into
//!   uninitialised memory by the threads that compute them;
//! - `gemm.rs` + `gemm_core.rs`: GEMM-shaped nests — core detection, how threads share them,
//!   one core call (direct loops for small ones, else the `gemm` crate);
//! - `parallel.rs`: splitting across rayon workers;
//! - `odometer.rs`: stepping through outer loops with every operand's address kept current;
//! - `guarded.rs`: the slow path for guarded (padded) operands;
//! - `reference.rs`: a naive evaluator defining the semantics, used by the tests;
//! - `copy.rs`: strided-to-contiguous copies.

mod block;
mod collect;
mod copy;
mod error;
mod exec;
mod fresh;
mod gemm;
mod gemm_core;
mod guarded;
mod nest;
mod odometer;
pub(crate) mod ops;
mod parallel;
mod reference;
mod run;
mod scalar;
mod simplify;
#[cfg(test)]
mod split_tests;
#[cfg(test)]
mod tests;

pub use copy::{copy_contiguous, gather};
pub use error::KernelError;
pub use nest::{Access, AxisIndex, Guard, Init, Nest};
pub use ops::{Accum, Combine};
pub use reference::run_reference;
pub use run::RunOptions;
pub use scalar::Scalar;
