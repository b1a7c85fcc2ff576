//! numpy-semantics operations for fuzzing a framework's own shape rules without translation.
//!
//! Frameworks mostly follow numpy: flat shapes, integer axes (negative ones count from the
//! end), broadcasting, matmul's 1-D promotion, einsum subscripts. This module draws programs
//! of such operations ([`NpOp`]: `add`, `matmul`, `einsum`, `concatenate`, `stack`,
//! `transpose`, `sum`, `expand_dims`, `squeeze`, `reshape`), each step with einrow's verdict
//! ([`verdict`]: the result's shape and element type, or numpy's error as a code), so that a
//! framework's function of the same name can be called on each step and judged:
//!
//! - [`draw_program`] and [`draw_einsum_case`]: valid programs and einsum cases (size-0 and
//!   size-1 axes, diagonals, `...`, many operands, negative axes, every element type), from
//!   any source of choices ([`Draw`](crate::fuzzing::gen::Draw)); [`strategies`] wraps them as
//!   proptest strategies;
//! - [`near_valid`]: one mutation away from valid, with einrow's verdict after it;
//! - [`BroadcastCase`]: shapes that broadcast, with row variables shared between them;
//! - [`check_framework`]: runs a program through a framework's own functions ([`Framework`])
//!   and reports the first step where it disagrees with einrow; [`replay`] does the same for a
//!   saved case (JSON);
//! - [`shrink_np_program`]: fewer steps, fewer and smaller axes, narrower einsum subscripts.
//!
//! The verdicts are numpy 2's (checked against numpy itself by the Python package's tests).

mod axis_rules;
mod broadcast_case;
mod builder;
mod config;
mod dtypes;
mod einsum_draw;
mod einsum_edit;
mod framework;
mod generate;
mod mutate;
mod op;
mod program;
mod shrink;
mod steps;
pub mod strategies;
mod verdict;

pub use axis_rules::normalize_axis;
pub use broadcast_case::{Broadcast, BroadcastCase, SigItem, Signature};
pub use config::{
    NpConfig, MAX_EINSUM_POINTS, MAX_ELEMENTS, MAX_NP_OPERANDS, MAX_NP_RANK, MAX_NP_STEPS, SIZES,
};
pub use dtypes::{dtype_name, result_type, sum_type, DTYPES, UINT64};
pub use framework::{check_framework, replay, Disagreement, Framework};
pub use generate::{draw_einsum_case, draw_program};
pub use mutate::{edit_rank, edit_shape, edit_size, is_valid, near_valid, Mutated};
pub use op::{tuple_text, Axes, NpKind, NpOp};
pub use program::{first_rejection, outcome_json, outcome_text, NpProgram, NpValue, Outcome};
pub use shrink::shrink_np_program;
pub use verdict::{broadcast_shapes, shape_text, verdict, Rejection, Typed, Verdict};

#[cfg(test)]
mod tests;
