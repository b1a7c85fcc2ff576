//! Contraction paths: in which order to contract an einsum's operands pairwise, and what
//! that costs (numpy's `einsum_path`, opt_einsum's `contract_path`).
//!
//! A path follows numpy's convention: each step lists positions in the current operand list;
//! those operands are contracted and the result is appended at the end. FLOPs are counted as
//! opt_einsum counts them: per contraction, the product of the sizes of all labels involved,
//! times `max(1, operands - 1)`, plus one more product when a label is summed away.
//!
//! Strategies ([`Optimize`]):
//! - `greedy`: opt_einsum's greedy heuristic (same cost, ties and kept labels), its path
//!   unless more than [`GREEDY_BUDGET`] candidate pairs would be examined (then each tensor's
//!   partners are capped to [`CAPPED_PARTNERS`] per shared label);
//! - `optimal`: the cheapest pairwise path, by exhaustive dynamic programming over subsets
//!   (up to [`OPTIMAL_MAX_OPERANDS`] operands);
//! - `dp`: opt_einsum's dynamic programming over connected subgraphs, minimising FLOPs
//!   (bounded by [`DP_BUDGET`] subset pairs);
//! - `auto` (the default): the cheapest of greedy, `optimal` (up to
//!   [`AUTO_OPTIMAL_MAX_OPERANDS`] operands) and a dp bounded by [`AUTO_DP_BUDGET`];
//! - an explicit path from the caller, checked.
//!
//! Files: `problem.rs` (label sets, sizes, FLOPs), `ssa.rs` (path numberings), `greedy.rs`,
//! `optimal.rs`, `dp.rs`, `explicit.rs` (the strategies and path checks), `plan.rs`
//! (choosing), `live.rs` and `live_sets.rs` (the current operand list, O(log n) a position), `walk.rs` (each step's result labels), `report.rs` ([`einsum_path`]),
//! `display.rs` (the report as text and JSON), `options.rs`, `error.rs`, `pairwise.rs` (the
//! default order of [`einsum`](crate::numpy::einsum)).

mod display;
mod dp;
mod error;
mod explicit;
mod greedy;
mod live;
mod live_sets;
mod optimal;
mod options;
mod pairwise;
mod plan;
mod problem;
mod report;
mod ssa;
mod walk;

pub use error::PathError;
pub use greedy::{CAPPED_PARTNERS, GREEDY_BUDGET};
pub use optimal::OPTIMAL_MAX_OPERANDS;
pub use options::{MemoryLimit, Optimize, PathOptions};
pub use pairwise::{greedy, Step};
pub use plan::{Planner, AUTO_DP_BUDGET, AUTO_OPTIMAL_MAX_OPERANDS, DP_BUDGET};
pub use report::{einsum_path, Contraction, PathReport, MAX_REMAINING_TERMS};
pub use walk::PathStep;

#[cfg(feature = "kernel")]
pub(crate) use live::LiveList;
#[cfg(feature = "kernel")]
pub(crate) use report::planned_steps;
