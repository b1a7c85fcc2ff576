//! The strided CPU kernel: executes an affine strided loop nest ([`Nest`]).
//!
//! - the plan type ([`Nest`], [`Access`], [`Guard`], [`AxisIndex`]) and how index plans lower
//!   onto it;
//! - the accumulation and combine operators ([`Accum`], [`Combine`]);
//! - validation, initialisation and the choice of path ([`RunOptions`]);
//! - loop dropping, ordering and merging;
//! - the strided executor and its vectorisable inner loops;
//! - fresh outputs written in address order, straight into uninitialised memory by the
//!   threads that compute them;
//! - GEMM-shaped nests: core detection, how threads share them, one core call (direct loops
//!   for small ones, else the `gemm` crate);
//! - splitting across rayon workers;
//! - stepping through outer loops with every operand's address kept current;
//! - the slow path for guarded (padded) operands;
//! - plans prepared once and run many times on caller buffers ([`Prepared`]);
//! - a naive evaluator defining the semantics, used by the tests ([`run_reference`]);
//! - strided-to-contiguous copies ([`copy_contiguous`], [`gather`]).

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
mod panel;
mod parallel;
mod prepared;
mod reference;
mod run;
mod scalar;
mod simplify;
mod small_avx;
#[cfg(test)]
mod small_tests;
#[cfg(test)]
mod split_tests;
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
