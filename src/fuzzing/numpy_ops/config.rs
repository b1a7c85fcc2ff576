//! What numpy-semantics generators draw: the operations and their weights, program length,
//! ranks, sizes (size-0 axes included by default) and element types.

use serde_json::Value;

use super::dtypes::{dtype_name, DTYPES};
use super::op::NpKind;

/// The most steps a generated program may have ([`NpConfig::max_steps`] is clamped to it).
pub const MAX_NP_STEPS: usize = 64;

/// The most axes of a drawn shape ([`NpConfig::max_rank`] is clamped to it).
pub const MAX_NP_RANK: usize = 8;

/// The most operands of an einsum, concatenation or stack ([`NpConfig::max_operands`] is
/// clamped to it).
pub const MAX_NP_OPERANDS: usize = 12;

/// The most elements a drawn value may have: a step whose result would have more is not
/// drawn (frameworks under test may compute values).
pub const MAX_ELEMENTS: u128 = 1 << 16;

/// The most loop points of a drawn einsum (the product of every label's size): numpy's
/// einsum without `optimize` visits all of them.
pub const MAX_EINSUM_POINTS: u128 = 1 << 20;

/// Sizes of fresh axes, each equally likely, simplest first: 2, then the edge cases 1
/// (broadcasts; listed twice, as most broadcasting rules break there) and 0 (empty), then
/// larger ones.
pub const SIZES: [usize; 10] = [2, 1, 3, 0, 4, 1, 5, 6, 7, 8];

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

    /// A configuration from JSON: the default with any of `ops` (a list of numpy function
    /// names, or an object of names and weights), `max_steps`, `max_rank`, `max_size`,
    /// `zero_sizes`, `dtypes` (numpy names) and `max_operands` replaced.
    ///
    /// ```
    /// use einrow::fuzzing::numpy_ops::NpConfig;
    /// let cfg = NpConfig::from_json(&serde_json::json!({"ops": ["matmul"], "max_rank": 3})).unwrap();
    /// assert_eq!((cfg.ops.len(), cfg.max_rank), (1, 3));
    /// assert!(NpConfig::from_json(&serde_json::json!({"ops": ["conv"]})).is_err());
    /// ```
    pub fn from_json(v: &Value) -> Result<NpConfig, String> {
        let mut cfg = NpConfig::default();
        let Some(map) = v.as_object() else { return Err("a configuration is an object".into()) };
        for (key, val) in map {
            let num = || {
                val.as_u64()
                    .map(|n| n.min(1 << 20) as usize)
                    .ok_or(format!("{key} is a natural number"))
            };
            match key.as_str() {
                "ops" => cfg.ops = ops_of(val)?,
                "max_steps" => cfg.max_steps = num()?,
                "max_rank" => cfg.max_rank = num()?,
                "max_size" => cfg.max_size = num()?,
                "max_operands" => cfg.max_operands = num()?,
                "zero_sizes" => {
                    cfg.zero_sizes = val.as_bool().ok_or("zero_sizes is true or false")?
                }
                "dtypes" => {
                    let names = val.as_array().ok_or("dtypes is a list of numpy names")?;
                    cfg.dtypes = names
                        .iter()
                        .map(|n| {
                            n.as_str().and_then(dtype_name).ok_or(format!("unknown dtype {n}"))
                        })
                        .collect::<Result<_, _>>()?;
                }
                _ => return Err(format!("unknown setting {key:?}")),
            }
        }
        if cfg.ops.is_empty() {
            return Err("ops names no operation".into());
        }
        Ok(cfg)
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

/// `ops` of a JSON configuration: names (weight 1 each) or names with weights.
fn ops_of(v: &Value) -> Result<Vec<(NpKind, u32)>, String> {
    let kind = |n: &str| NpKind::from_name(n).ok_or(format!("unknown operation {n:?}"));
    match v {
        Value::Array(names) => {
            names.iter().map(|n| Ok((kind(n.as_str().ok_or("ops lists names")?)?, 1))).collect()
        }
        Value::Object(m) => m
            .iter()
            .map(|(n, w)| {
                let w = w
                    .as_u64()
                    .and_then(|w| u32::try_from(w).ok())
                    .ok_or("weights are natural numbers")?;
                Ok((kind(n)?, w))
            })
            .collect(),
        _ => Err("ops is a list of names or an object of weights".into()),
    }
}
