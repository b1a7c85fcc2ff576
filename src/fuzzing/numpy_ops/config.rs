//! What numpy-semantics generators draw: the operations and their weights, program length,
//! ranks, sizes (size-0 axes included by default) and element types.

use super::dtypes::DTYPES;
use super::op::NpKind;

/// The most steps a generated program may have ([`NpConfig::max_steps`] is clamped to it).
pub const MAX_NP_STEPS: usize = 64;

/// The most axes of a drawn shape ([`NpConfig::max_rank`] is clamped to it).
pub const MAX_NP_RANK: usize = 8;

/// The most operands of an einsum, concatenation or stack ([`NpConfig::max_operands`] is
/// clamped to it).
pub const MAX_NP_OPERANDS: usize = 12;

/// Sizes of fresh axes, simplest first: 2, then the edge cases 1 (broadcasts) and 0 (empty),
/// then larger ones.
pub const SIZES: [usize; 9] = [2, 1, 3, 0, 4, 5, 6, 7, 8];

/// What numpy-semantics programs and cases to draw.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NpConfig {
    /// The operations drawn from, each with a weight.
    pub ops: Vec<(NpKind, u32)>,
    /// Most steps per program (1 to [`MAX_NP_STEPS`]).
    pub max_steps: usize,
    /// Most axes of a drawn shape (up to [`MAX_NP_RANK`]).
    pub max_rank: usize,
    /// Largest size of a drawn axis (sizes come from [`SIZES`]; at least 2).
    pub max_size: usize,
    /// Whether axes of size 0 are drawn.
    pub zero_sizes: bool,
    /// The element types leaves are drawn from (numpy names; empty: `float64`).
    pub dtypes: Vec<&'static str>,
    /// Most operands of an einsum, concatenation or stack (2 to [`MAX_NP_OPERANDS`]).
    pub max_operands: usize,
}

impl Default for NpConfig {
    fn default() -> NpConfig {
        NpConfig {
            ops: vec![
                (NpKind::Add, 3),
                (NpKind::Matmul, 3),
                (NpKind::Einsum, 3),
                (NpKind::Concatenate, 2),
                (NpKind::Stack, 1),
                (NpKind::Transpose, 2),
                (NpKind::Sum, 2),
                (NpKind::ExpandDims, 1),
                (NpKind::Squeeze, 1),
                (NpKind::Reshape, 2),
            ],
            max_steps: 6,
            max_rank: 4,
            max_size: 5,
            zero_sizes: true,
            dtypes: DTYPES.to_vec(),
            max_operands: 4,
        }
    }
}

impl NpConfig {
    /// The default configuration restricted to these operations (equal weights).
    ///
    /// ```
    /// use einrow::fuzzing::numpy_ops::{NpConfig, NpKind};
    /// let cfg = NpConfig::only(&[NpKind::Concatenate, NpKind::Stack]);
    /// assert_eq!(cfg.ops.len(), 2);
    /// ```
    pub fn only(kinds: &[NpKind]) -> NpConfig {
        NpConfig { ops: kinds.iter().map(|k| (*k, 1)).collect(), ..NpConfig::default() }
    }

    /// Steps per program, within 1 to [`MAX_NP_STEPS`].
    pub fn steps(&self) -> usize {
        self.max_steps.clamp(1, MAX_NP_STEPS)
    }

    /// Axes per shape, within 0 to [`MAX_NP_RANK`].
    pub fn rank(&self) -> usize {
        self.max_rank.min(MAX_NP_RANK)
    }

    /// Operands per variadic operation, within 2 to [`MAX_NP_OPERANDS`].
    pub fn operands(&self) -> usize {
        self.max_operands.clamp(2, MAX_NP_OPERANDS)
    }

    /// The sizes drawn, simplest first.
    pub fn sizes(&self) -> Vec<usize> {
        let max = self.max_size.max(2);
        SIZES.iter().copied().filter(|&s| s <= max && (s > 0 || self.zero_sizes)).collect()
    }

    /// The operation a raw choice selects, by weight (the first one for choice 0).
    pub fn op(&self, raw: usize) -> NpKind {
        let total: u64 = self.ops.iter().map(|(_, w)| u64::from(*w)).sum();
        let mut x = if total == 0 { 0 } else { raw as u64 % total };
        for (op, w) in &self.ops {
            if x < u64::from(*w) {
                return *op;
            }
            x -= u64::from(*w);
        }
        NpKind::Add
    }

    /// The sum of the weights (at least 1).
    pub fn total_weight(&self) -> usize {
        self.ops.iter().map(|(_, w)| u64::from(*w)).sum::<u64>().clamp(1, 1 << 20) as usize
    }
}
