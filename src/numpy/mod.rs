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

mod any_strided;
mod converting;
#[cfg(test)]
mod converting_tests;
mod einsum;
mod error;
mod last_nest;
mod lower;
mod optimized;
mod path;
mod recent;
mod shapes;
mod step_view;
mod sublist;
#[cfg(test)]
mod tests;
mod timing;
mod views;

pub use any_strided::{AnyStridedMut, AnyStridedRef, Stored};
pub use converting::{einsum_converting, CONVERT_BLOCK};
pub use einsum::{einsum, einsum_shape, einsum_with};
pub use error::EinsumError;
pub use optimized::{einsum_optimized, einsum_optimized_with};
pub use path::{
    einsum_path, greedy, Contraction, MemoryLimit, Optimize, PathError, PathOptions, PathReport,
    PathStep, Planner, Step, AUTO_DP_BUDGET, AUTO_OPTIMAL_MAX_OPERANDS, CAPPED_PARTNERS, DP_BUDGET,
    GREEDY_BUDGET, MAX_REMAINING_TERMS, OPTIMAL_MAX_OPERANDS,
};
pub use shapes::{analyze, Analysis, Label};
pub use sublist::{
    einsum_sublist, einsum_sublist_with, Sublist, SublistError, Subscript, SUBLIST_LABELS,
};
pub use timing::{time_runs, Timing};
pub use views::{einsum_into, EinsumPlan, StridedMut, StridedRef};
