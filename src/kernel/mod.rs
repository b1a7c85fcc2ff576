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
//! - strided-to-contiguous copies ([`copy_contiguous`], [`gather`]), and the tensor methods
//!   that copy through them (`Tensor::reshape` when no view fits, `flatten`, `contiguous`).
//!
//! Without the `kernel` feature the module holds only the two operators that indexing plans
//! name ([`Accum`], [`Combine`]); everything that runs is left out.

// The list above names the kernel's types; without `kernel` they are absent and its links are
// plain text.
#![cfg_attr(not(feature = "kernel"), allow(rustdoc::broken_intra_doc_links))]

#[cfg(feature = "kernel")]
mod block;
#[cfg(feature = "kernel")]
mod collect;
#[cfg(feature = "kernel")]
mod contiguous;
#[cfg(feature = "kernel")]
mod copy;
#[cfg(feature = "kernel")]
mod error;
#[cfg(feature = "kernel")]
mod exec;
#[cfg(feature = "kernel")]
mod fresh;
#[cfg(feature = "kernel")]
mod gemm;
#[cfg(feature = "kernel")]
mod gemm_core;
#[cfg(feature = "kernel")]
mod guarded;
#[cfg(feature = "kernel")]
mod nest;
#[cfg(feature = "kernel")]
mod odometer;
mod operator;
#[cfg(feature = "kernel")]
pub(crate) mod ops;
#[cfg(feature = "kernel")]
mod panel;
#[cfg(feature = "kernel")]
mod parallel;
#[cfg(feature = "kernel")]
mod prepared;
#[cfg(feature = "kernel")]
mod reference;
#[cfg(feature = "kernel")]
mod run;
#[cfg(feature = "kernel")]
mod scalar;
#[cfg(feature = "kernel")]
mod simplify;
#[cfg(feature = "kernel")]
mod small_avx;
#[cfg(all(test, feature = "kernel"))]
mod small_tests;
#[cfg(all(test, feature = "kernel"))]
mod split_tests;
#[cfg(all(test, feature = "kernel"))]
mod tests;

#[cfg(feature = "kernel")]
pub use copy::{copy_contiguous, gather};
#[cfg(feature = "kernel")]
pub use error::KernelError;
#[cfg(feature = "kernel")]
pub use nest::{Access, AxisIndex, Guard, Init, Nest};
pub use operator::{Accum, Combine};
#[cfg(feature = "kernel")]
pub use prepared::Prepared;
#[cfg(feature = "kernel")]
pub use reference::run_reference;
#[cfg(feature = "kernel")]
pub use run::RunOptions;
#[cfg(feature = "kernel")]
pub use scalar::Scalar;
