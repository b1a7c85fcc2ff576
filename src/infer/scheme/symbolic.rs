//! A scheme's shapes as values: each axis a [`SymDim`] — a size, a variable's axes, or an
//! affine function of a variable's single axis — that a framework reads, prints and
//! evaluates for a binding of the variables.

use std::fmt;

use super::form::Item;
use super::Scheme;
use crate::ids::TensorId;
use crate::infer::error::InferError;
use crate::infer::graph::{Leaf, TensorSizes};
use crate::spec::ast::{Name, RowKind};

/// One axis (or, for a variable, the axes it stands for) of a scheme's shape. `Serialize`
/// and `Deserialize` with the `serde` feature.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub enum SymDim {
    /// A size.
    Size(u64),
    /// Every axis of the scheme's variable `var` (named `name`), spliced in.
    Var {
        /// The variable's position in [`Scheme::vars`].
        var: usize,
        /// Its name.
        name: Name,
    },
    /// One axis of size `scale·n + offset`, `n` the size of variable `var`'s single axis (a
    /// strided, convolution or concatenation axis computed from it).
    Affine {
        /// The variable's position in [`Scheme::vars`].
        var: usize,
        /// Its name.
        name: Name,
        /// The factor of the variable's size.
        scale: u64,
        /// The constant term.
        offset: i64,
    },
}

impl fmt::Display for SymDim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SymDim::Size(n) => write!(f, "{n}"),
            SymDim::Var { name, .. } => write!(f, "..{name}.."),
            SymDim::Affine { name, scale, offset, .. } => {
                if *scale != 1 {
                    write!(f, "{scale}*")?;
                }
                match offset {
                    0 => write!(f, "{name}"),
                    o => write!(f, "{name}{o:+}"),
                }
            }
        }
    }
}

/// A scheme tensor's shape: its three rows of [`SymDim`]s. `Serialize` and `Deserialize`
/// with the `serde` feature.
#[derive(Clone, Debug, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct SymShape {
    /// The batch row.
    pub batch: Vec<SymDim>,
    /// The input row.
    pub input: Vec<SymDim>,
    /// The output row.
    pub output: Vec<SymDim>,
}

impl SymShape {
    /// The sizes for `sizes[k]`, the axes of variable `k` (a rank-fixed variable's one axis):
    /// `None` where a computed axis would be empty or past 2^62.
    pub fn eval(&self, sizes: &[&[u64]]) -> Option<TensorSizes> {
        let row = |dims: &[SymDim]| -> Option<Vec<u64>> {
            let mut out = Vec::with_capacity(dims.len());
            for d in dims {
                match d {
                    SymDim::Size(n) => out.push(*n),
                    SymDim::Var { var, .. } => out.extend_from_slice(sizes.get(*var)?),
                    SymDim::Affine { var, scale, offset, .. } => {
                        let n = *sizes.get(*var)?.first()?;
                        out.push(super::form::affine(*scale, *offset, n)?);
                    }
                }
            }
            Some(out)
        };
        Some(TensorSizes {
            batch: row(&self.batch)?,
            input: row(&self.input)?,
            output: row(&self.output)?,
        })
    }
}

impl fmt::Display for SymShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let row =
            |dims: &[SymDim]| dims.iter().map(|d| d.to_string()).collect::<Vec<_>>().join(",");
        f.write_str(&crate::shape::rows_text(
            &row(&self.batch),
            &row(&self.input),
            &row(&self.output),
        ))
    }
}

impl Scheme {
    /// A tensor's shape as values ([`SymDim`]s). Errors (`name`): an id of another graph,
    /// or past its tensors.
    ///
    /// ```
    /// use einrow::infer::{Graph, ShapeBuilder, SymDim};
    /// let mut g = Graph::new();
    /// let batch = g.row_var("batch");
    /// let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([6]))?;
    /// let k = g.input("k", &ShapeBuilder::array([2]))?;
    /// let y = g.einsum("..b..|2*o<+k; k => ..b..|o", &[x, k])?;
    /// let scheme = g.solve_scheme(&[batch])?;
    /// let s = scheme.sym_shape(y)?;
    /// assert!(matches!(s.batch[..], [SymDim::Var { var: 0, .. }]));
    /// assert_eq!(s.output, [SymDim::Size(3)]);
    /// assert_eq!(s.eval(&[&[4, 5]]).expect("sizes").batch, [4, 5]);
    /// assert_eq!(s.to_string(), "..batch..|3");
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn sym_shape(&self, t: TensorId) -> Result<SymShape, InferError> {
        let i = self.data.check(t)?;
        let form = &self.data.tensors[i];
        let row = |kind: RowKind| {
            form.row_items(kind, &self.data.items).iter().map(|&it| self.sym(it)).collect()
        };
        Ok(SymShape {
            batch: row(RowKind::Batch),
            input: row(RowKind::Input),
            output: row(RowKind::Output),
        })
    }

    /// The leaves (inputs and parameters) with what they are and their symbolic shapes, in
    /// the order they were declared.
    pub fn leaves(&self) -> Vec<(TensorId, Leaf, SymShape)> {
        self.tensor_ids()
            .filter_map(|t| {
                let leaf = *self.data.leaves.get(t.index())?;
                Some((t, leaf?, self.sym_shape(t).ok()?))
            })
            .collect()
    }

    fn sym(&self, item: Item) -> SymDim {
        let name = |k: u32| {
            self.data.vars.get(k as usize).map_or_else(|| Name::new("?"), |v| v.name.clone())
        };
        match item {
            Item::Size(n) => SymDim::Size(n),
            Item::Var(k) => SymDim::Var { var: k as usize, name: name(k) },
            Item::Affine { var, scale, offset } => {
                SymDim::Affine { var: var as usize, name: name(var), scale, offset }
            }
        }
    }
}
