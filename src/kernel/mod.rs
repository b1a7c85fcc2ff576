//! The strided CPU kernel: executes an affine strided loop nest ([`Nest`]).
//!
//! - `nest.rs`: the plan type ([`Nest`], [`Access`], [`Guard`], [`AxisIndex`]) and how index
//!   plans lower onto it;
//! - `ops.rs`: the accumulation and combine operators;
//! - `run.rs`: validation, initialisation and the choice of path;
//! - `simplify.rs`: loop dropping, ordering and merging;
//! - `exec.rs` + `block.rs`: the strided executor and its vectorisable inner loops;
//! - `gemm.rs`: dispatch of GEMM-shaped nests to the `gemm` crate (the only `unsafe`);
//! - `parallel.rs`: splitting across rayon workers;
//! - `guarded.rs`: the slow path for guarded (padded) operands;
//! - `reference.rs`: a naive evaluator defining the semantics, used by the tests;
//! - `copy.rs`: strided-to-contiguous copies.

mod block;
mod copy;
mod error;
mod exec;
mod gemm;
mod guarded;
mod nest;
pub(crate) mod ops;
mod parallel;
mod prepared;
mod reference;
mod run;
mod scalar;
mod simplify;
#[cfg(test)]
mod tests;

pub use copy::{copy_contiguous, gather};
pub use error::KernelError;
pub use nest::{Access, AxisIndex, Guard, Init, Nest};
pub use ops::{Accum, Combine};
pub use prepared::Prepared;
pub use reference::run_reference;
pub use run::RunOptions;
pub use scalar::Scalar;
