//! numpy einsum: `numpy.einsum` semantics (results of the default `optimize=False`) on
//! einrow tensors.
//!
//! - shape inference from parsed subscripts ([`crate::spec::parse_numpy`]) and operand shapes
//!   ([`analyze`]) — broadcasting of size-1 dimensions, ellipsis broadcasting, diagonals, the
//!   implicit output — with numpy's errors mapped to crate codes ([`EinsumError`]);
//! - one contraction step as a kernel [`Nest`](crate::kernel::Nest);
//! - contraction paths — greedy, optimal, dp, auto and explicit — with [`einsum_path`]'s
//!   report; the greedy order ([`greedy`]) is [`einsum`]'s default for three or more operands;
//! - the analyses of a thread's last calls (a loop parses its subscripts once);
//! - the public [`einsum`], [`einsum_with`] and [`einsum_shape`]; [`einsum_optimized`], einsum
//!   along a planned path;
//! - numpy's sublist format ([`Sublist`], [`einsum_sublist`]);
//! - einsum over a caller's strided arrays, written into a caller's output, planned once per
//!   shapes ([`EinsumPlan`], [`einsum_into`]): what bindings to array libraries run;
//! - repeated-run timing used by benchmarks ([`time_runs`]).
//!
//! Without the `kernel` feature the module keeps what needs no values: subscripts and
//! sublists parsed, shapes solved ([`analyze`], [`einsum_shape`]) and contraction paths
//! planned ([`einsum_path`]).

// The list above names the einsum functions on values; without `kernel` they are absent and
// their links are plain text.
#![cfg_attr(not(feature = "kernel"), allow(rustdoc::broken_intra_doc_links))]

#[cfg(feature = "kernel")]
mod any_strided;
#[cfg(feature = "kernel")]
mod converting;
#[cfg(all(test, feature = "kernel"))]
mod converting_tests;
#[cfg(feature = "kernel")]
mod einsum;
mod error;
#[cfg(feature = "kernel")]
mod last_nest;
#[cfg(feature = "kernel")]
mod lower;
#[cfg(feature = "kernel")]
mod optimized;
mod path;
#[cfg(feature = "kernel")]
mod recent;
mod shapes;
#[cfg(feature = "kernel")]
mod step_view;
mod sublist;
#[cfg(all(test, feature = "kernel"))]
mod tests;
mod timing;
#[cfg(feature = "kernel")]
mod views;

#[cfg(feature = "kernel")]
pub use any_strided::{AnyStridedMut, AnyStridedRef, Stored};
#[cfg(feature = "kernel")]
pub use converting::{einsum_converting, CONVERT_BLOCK};
#[cfg(feature = "kernel")]
pub use einsum::{einsum, einsum_sublist, einsum_sublist_with, einsum_with};
pub use error::EinsumError;
#[cfg(feature = "kernel")]
pub use optimized::{einsum_optimized, einsum_optimized_with};
pub use path::{
    einsum_path, greedy, Contraction, MemoryLimit, Optimize, PathError, PathOptions, PathReport,
    PathStep, Planner, Step, AUTO_DP_BUDGET, AUTO_OPTIMAL_MAX_OPERANDS, CAPPED_PARTNERS, DP_BUDGET,
    GREEDY_BUDGET, MAX_REMAINING_TERMS, OPTIMAL_MAX_OPERANDS,
};
pub use shapes::{analyze, einsum_shape, Analysis, Label};
pub use sublist::{Sublist, SublistError, Subscript, SUBLIST_LABELS};
pub use timing::{time_runs, Timing};
#[cfg(feature = "kernel")]
pub use views::{einsum_into, EinsumPlan, StridedMut, StridedRef};
