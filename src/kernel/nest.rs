//! [`Nest`]: an affine strided loop nest, the one thing the kernel executes.
//!
//! # Model
//!
//! A nest iterates a product space `extents[0] × … × extents[r-1]` (iterators `i_0 … i_{r-1}`).
//! Every operand — the inputs and the output — is an [`Access`]: the element it touches at a
//! point is at buffer address `offset + Σ_d i_d · strides[d]`. At each point the kernel computes
//!
//! ```text
//! out[addr_out] = out[addr_out] ⊕ (in_0[addr_0] ⊗ in_1[addr_1] ⊗ …)
//! ```
//!
//! with `⊕` the [`Accum`] and `⊗` the [`Combine`] (folded left to right). Points are visited
//! in an order the kernel chooses; only `Store` into a non-injective output depends on it
//! (and is unspecified). [`Init`] optionally sets outputs to the accumulation's neutral element
//! first (`0` for `+`, `1` for `*`, `-∞` for max, `+∞` for min).
//!
//! # Lowering an indexing plan onto a nest
//!
//! OCANNL projections (`product_space`, `project_lhs`, `project_rhs`) map directly; so does a
//! numpy einsum. For an operand whose tensor has a [`Layout`] (shape, strides `σ_a`, offset),
//! each tensor axis `a` has an index expression ([`AxisIndex`]):
//!
//! | index of axis `a` | contribution to the [`Access`] |
//! |---|---|
//! | iterator `s` (`Iterator s`) | `strides[s] += σ_a` — an iterator absent from an operand leaves its stride 0 (broadcast / reduction); an iterator used by two axes adds both strides (diagonal) |
//! | fixed `n` (`Fixed_idx n`, size-1 broadcast = fixed 0) | `offset += n·σ_a` |
//! | affine `Σ c_k·s_k + c₀` (strided / convolution) | `strides[s_k] += c_k·σ_a`, `offset += c₀·σ_a` |
//! | affine with padding (`use_padding`, index may leave `0..len`) | as affine, plus a [`Guard`] `0 ≤ Σ c_k·s_k + c₀ < len`; where it fails an input reads its `fill` value and an output point is skipped |
//!
//! [`Access::project`] does exactly this from a layout and one [`AxisIndex`] per axis. A
//! reduction is emergent: an iterator with output stride 0 accumulates. A `Concat` axis is
//! lowered as one nest per component (sibling loops), each with its component's offset.
//! The output's `init` is `Init::Touched` for OCANNL's `initialize_neutral` on a surjective
//! map, `Init::Whole` otherwise.

use super::error::KernelError;
use super::operator::{Accum, Combine};
use crate::tensor::Layout;

/// One operand's addressing: `offset + Σ i_d·strides[d]`, optionally guarded.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    /// Address at the origin of the product space (may be outside the buffer only when a
    /// guard excludes every point that would read there).
    pub offset: isize,
    /// One stride per loop of the nest (0: the operand does not move along that loop).
    pub strides: Vec<isize>,
    /// Index-range guards: the operand takes part at a point only where all hold.
    pub guards: Vec<Guard>,
    /// The value an input reads where a guard fails (padding); ignored for the output.
    pub fill: f64,
}

/// A per-operand index-range guard: `0 ≤ offset + Σ coeffs[d]·i_d < len`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Guard {
    /// One coefficient per loop.
    pub coeffs: Vec<isize>,
    /// Constant term.
    pub offset: isize,
    /// The exclusive upper bound of the index.
    pub len: usize,
}

/// Whether and how the output is set to the accumulation's neutral element first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Init {
    /// The output keeps its contents; the nest accumulates into them.
    No,
    /// Every element the nest writes is first set to the neutral element. A nest with no
    /// points writes nothing: an output that a reduction over an empty loop must set (a sum
    /// over nothing is 0) needs [`Init::Whole`], or the caller's own fill.
    Touched,
    /// The whole output buffer is first set to the neutral element.
    Whole,
}

/// An affine strided loop nest (see the module documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct Nest {
    /// The product space, one extent per loop (outermost first, as a hint).
    pub extents: Vec<usize>,
    /// The output operand.
    pub output: Access,
    /// The input operands, combined left to right.
    pub inputs: Vec<Access>,
    /// How values accumulate into the output.
    pub accum: Accum,
    /// How input values are combined.
    pub combine: Combine,
    /// Output initialisation.
    pub init: Init,
}

/// The index expression of one tensor axis in terms of the nest's iterators.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AxisIndex {
    /// The axis follows loop `d`.
    Iter(usize),
    /// The axis is fixed at this index.
    Fixed(i64),
    /// `Σ coeff·i_iter + offset`; `padded` adds a guard keeping the index inside the axis.
    Affine {
        /// `(coefficient, loop)` terms.
        terms: Vec<(isize, usize)>,
        /// The constant term.
        offset: isize,
        /// Whether the index may leave `0..len` (padding): then a guard is added.
        padded: bool,
    },
}

impl Access {
    /// An unguarded access.
    pub fn new(offset: isize, strides: Vec<isize>) -> Access {
        Access { offset, strides, guards: Vec::new(), fill: 0.0 }
    }

    /// The access of a tensor with `layout` whose axis `a` has index `index[a]`, in a nest of
    /// `loops` loops (see the lowering table in the module documentation).
    pub fn project(
        layout: &Layout,
        index: &[AxisIndex],
        loops: usize,
    ) -> Result<Access, KernelError> {
        if index.len() != layout.rank() {
            let (expected, got) = (layout.rank(), index.len());
            return Err(KernelError::Rank {
                what: "an operand's axis index list".into(),
                expected,
                got,
            });
        }
        let ovf = |what| KernelError::Overflow { what };
        let mut acc = Access::new(to_isize(layout.offset())?, vec![0; loops]);
        for ((ix, &sigma), &len) in index.iter().zip(layout.strides()).zip(layout.shape()) {
            match ix {
                AxisIndex::Iter(d) => add_stride(&mut acc.strides, *d, sigma)?,
                AxisIndex::Fixed(n) => {
                    let n = isize::try_from(*n).map_err(|_| ovf("a fixed index"))?;
                    let delta = n.checked_mul(sigma).ok_or(ovf("an offset"))?;
                    acc.offset = acc.offset.checked_add(delta).ok_or(ovf("an offset"))?;
                }
                AxisIndex::Affine { terms, offset, padded } => {
                    for &(c, d) in terms {
                        add_stride(
                            &mut acc.strides,
                            d,
                            c.checked_mul(sigma).ok_or(ovf("a stride"))?,
                        )?;
                    }
                    let delta = offset.checked_mul(sigma).ok_or(ovf("an offset"))?;
                    acc.offset = acc.offset.checked_add(delta).ok_or(ovf("an offset"))?;
                    if *padded {
                        let mut coeffs = vec![0; loops];
                        for &(c, d) in terms {
                            add_stride(&mut coeffs, d, c)?;
                        }
                        acc.guards.push(Guard { coeffs, offset: *offset, len });
                    }
                }
            }
        }
        Ok(acc)
    }

    /// The lowest and highest address over the product space (unguarded view), `None` when
    /// the space is empty.
    pub fn address_range(&self, extents: &[usize]) -> Option<(i128, i128)> {
        crate::tensor::address_range(extents, &self.strides, self.offset as i128)
    }
}

fn add_stride(strides: &mut [isize], d: usize, s: isize) -> Result<(), KernelError> {
    let n = strides.len();
    let slot = strides.get_mut(d).ok_or_else(|| KernelError::Rank {
        what: format!("loop {d}"),
        expected: n,
        got: d + 1,
    })?;
    *slot = slot.checked_add(s).ok_or(KernelError::Overflow { what: "a stride" })?;
    Ok(())
}

fn to_isize(x: usize) -> Result<isize, KernelError> {
    isize::try_from(x).map_err(|_| KernelError::Overflow { what: "an offset" })
}

impl Nest {
    /// Number of points of the product space (checked).
    pub fn points(&self) -> Result<usize, KernelError> {
        crate::tensor::numel(&self.extents)
            .map_err(|_| KernelError::Overflow { what: "the product space size" })
    }

    /// Checks list lengths, the input count and that every unguarded address lies inside its
    /// buffer (`input_lens[k]` elements for input `k`, `output_len` for the output).
    pub fn validate(&self, input_lens: &[usize], output_len: usize) -> Result<(), KernelError> {
        self.points()?;
        if input_lens.len() != self.inputs.len() {
            return Err(KernelError::Arity { expected: self.inputs.len(), got: input_lens.len() });
        }
        if self.inputs.is_empty() {
            return Err(KernelError::Unsupported {
                message: "a nest needs at least one input".into(),
            });
        }
        let r = self.extents.len();
        // Operands by position (output first), named only in an error: validating a nest
        // allocates nothing.
        let ops = std::iter::once((&self.output, output_len))
            .chain(self.inputs.iter().zip(input_lens.iter().copied()))
            .enumerate();
        for (k, (acc, len)) in ops {
            let name = || match k {
                0 => "output".to_string(),
                k => format!("input {}", k - 1),
            };
            if acc.strides.len() != r {
                return Err(KernelError::Rank {
                    what: format!("{}'s strides", name()),
                    expected: r,
                    got: acc.strides.len(),
                });
            }
            if let Some(g) = acc.guards.iter().find(|g| g.coeffs.len() != r) {
                return Err(KernelError::Rank {
                    what: format!("{}'s guard", name()),
                    expected: r,
                    got: g.coeffs.len(),
                });
            }
            if !acc.guards.is_empty() {
                continue; // guarded operands are bounds-checked point by point
            }
            if let Some((lo, hi)) = acc.address_range(&self.extents) {
                if lo < 0 || hi >= len as i128 {
                    let reach = if lo < 0 { lo } else { hi };
                    return Err(KernelError::OutOfBounds { operand: name(), reach, len });
                }
            }
        }
        Ok(())
    }

    /// Whether any operand has a guard.
    pub fn has_guards(&self) -> bool {
        !self.output.guards.is_empty() || self.inputs.iter().any(|a| !a.guards.is_empty())
    }
}
