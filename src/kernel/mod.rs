//! The strided CPU kernel: executes an affine strided loop nest ([`Nest`]).
//!
//! - the plan type ([`Nest`], [`Access`], [`Guard`], [`AxisIndex`]) and how index plans lower
//!   onto it;
//! - the accumulation and combine operators ([`Accum`], [`Combine`]);
//! - validation, initialisation and the choice of path ([`RunOptions`]);
//! - loop dropping, ordering and merging;
//! - the strided executor and its vectorisable inner loops;
//! - dispatch of GEMM-shaped nests to the `gemm` crate (the only `unsafe`);
//! - splitting across rayon workers;
//! - the slow path for guarded (padded) operands;
//! - a naive evaluator defining the semantics, used by the tests ([`run_reference`]);
//! - strided-to-contiguous copies ([`copy_contiguous`], [`gather`]).

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
