//! Assembling a tensor cell by cell or block by block, with Vespa's checks: every dimension
//! labelled, indices inside bound dimensions, no address given twice (a cell set twice, or a
//! dense block set twice, in any type). Unbound indexed dimensions are sized from the largest
//! index seen.

use std::collections::HashMap;
use std::hash::{BuildHasher, BuildHasherDefault, Hasher, RandomState};

use smallvec::SmallVec;

use super::error::{Result, VespaError};
use super::tensor::{Block, Tensor};
use super::types::{DimKind, Dimension, TensorType};
use crate::span::Span;

/// The most cells a tensor may hold (dense cells included); larger tensors are a `value` error
/// instead of an allocation failure.
pub const MAX_CELLS: usize = 1 << 24;

/// The most subspaces (distinct combinations of mapped labels) a tensor may hold. Each costs
/// about a hundred bytes apart from its cells (its labels and their lookup), so a sparse tensor
/// of [`MAX_CELLS`] one-cell subspaces would need a few GB: more subspaces are a `value` error
/// instead.
pub const MAX_SUBSPACES: usize = 1 << 22;

/// A tensor under construction.
pub(crate) struct Builder {
    ty: TensorType,
    mapped: Vec<usize>,
    indexed: Vec<usize>,
    /// Sizes of the indexed dimensions when all are bound.
    sizes: Option<Vec<usize>>,
    dense_size: usize,
    blocks: Vec<Block>,
    /// Blocks by the hash of their labels (kept once, in the block): the first block of each
    /// hash here, any later one with the same hash in `collided`.
    index: HashMap<u64, u32, BuildHasherDefault<Prehashed>>,
    collided: HashMap<u64, Vec<u32>>,
    hasher: RandomState,
    /// Cells set one by one: a bit per cell, at `block * dense_size + offset`.
    filled: Vec<u64>,
    /// Per block: whether some cell of it was set one by one, or all of it by [`Builder::block`].
    partly: Vec<bool>,
    whole: Vec<bool>,
    /// Cells waiting for the unbound sizes.
    pending: Vec<Pending>,
    /// The most cells `pending` may hold ([`MAX_CELLS`]).
    max_pending: usize,
    /// The most blocks ([`MAX_SUBSPACES`]).
    max_blocks: usize,
}

/// A cell given before the sizes of the unbound dimensions are known.
struct Pending {
    labels: Vec<String>,
    indices: SmallVec<[u64; 2]>,
    value: f64,
    span: Span,
}

impl Builder {
    /// A builder for `ty`; `span` is reported if even one dense block would be too large.
    pub fn new(ty: &TensorType, span: Span) -> Result<Builder> {
        let dims = ty.dims();
        let mapped: Vec<usize> = (0..dims.len()).filter(|&i| dims[i].is_mapped()).collect();
        let indexed: Vec<usize> = (0..dims.len()).filter(|&i| dims[i].is_indexed()).collect();
        let sizes: Option<Vec<usize>> =
            indexed.iter().map(|&i| dims[i].size().and_then(|s| usize::try_from(s).ok())).collect();
        let dense_size = match &sizes {
            Some(s) => checked_product(s).ok_or_else(|| too_large(ty, span))?,
            None => 0,
        };
        let mut b = Builder {
            ty: ty.clone(),
            mapped,
            indexed,
            sizes,
            dense_size,
            blocks: Vec::new(),
            index: HashMap::default(),
            collided: HashMap::new(),
            hasher: RandomState::new(),
            filled: Vec::new(),
            partly: Vec::new(),
            whole: Vec::new(),
            pending: Vec::new(),
            max_pending: MAX_CELLS,
            max_blocks: MAX_SUBSPACES,
        };
        if b.mapped.is_empty() && b.sizes.is_some() {
            b.block_at(Vec::new(), span)?;
        }
        Ok(b)
    }

    /// The same builder with lower limits on cells given before the unbound sizes are known and
    /// on blocks, so that tests reach them with small inputs.
    #[cfg(test)]
    pub fn with_limits(mut self, pending: usize, blocks: usize) -> Builder {
        self.max_pending = pending;
        self.max_blocks = blocks;
        self
    }

    /// The type being built.
    pub fn ty(&self) -> &TensorType {
        &self.ty
    }

    /// The number of cells in one dense block (0 while unbound sizes are unknown).
    pub fn dense_size(&self) -> usize {
        self.dense_size
    }

    /// Whether all indexed dimensions are bound.
    pub fn is_bound(&self) -> bool {
        self.sizes.is_some()
    }

    /// Sets one cell. `address` has one entry per dimension in canonical order. An address
    /// given before (in a cell or a whole block) is a `label` error at `span`.
    pub fn cell(&mut self, address: Vec<Option<String>>, value: f64, span: Span) -> Result<()> {
        let mut labels = Vec::with_capacity(self.mapped.len());
        let mut indices = SmallVec::with_capacity(self.indexed.len());
        for (dim, label) in self.ty.dims().iter().zip(address) {
            let Some(label) = label else {
                return Err(VespaError::label(
                    span,
                    format!("missing a label for dimension '{}' for {}", dim.name(), self.ty),
                ));
            };
            match dim.kind() {
                DimKind::Mapped => labels.push(label),
                DimKind::Indexed(size) => indices.push(parse_index(dim, &label, size, span)?),
            }
        }
        if self.sizes.is_none() {
            // Every cell of a valid tensor is distinct, so more cells than a tensor may hold
            // are too many (or repeat an address), whatever the unbound sizes turn out to be.
            if self.pending.len() >= self.max_pending {
                return Err(VespaError::value(
                    span,
                    format!(
                        "more than {} cells given for a tensor of type {}",
                        self.max_pending, self.ty
                    ),
                ));
            }
            self.pending.push(Pending { labels, indices, value, span });
            return Ok(());
        }
        self.set_cell(labels, &indices, value, span)
    }

    /// Sets one cell of a bound tensor, rejecting an address that was set before.
    fn set_cell(
        &mut self,
        labels: Vec<String>,
        indices: &[u64],
        value: f64,
        span: Span,
    ) -> Result<()> {
        let offset = self.offset(indices);
        let taken =
            self.find(&labels).is_some_and(|at| self.whole[at] || self.is_filled(at, offset));
        if taken {
            return Err(self.duplicate(&labels, indices, span));
        }
        let at = self.block_at(labels, span)?;
        self.fill(at, offset);
        if let Some(slot) = self.blocks[at].values.get_mut(offset) {
            *slot = value;
        }
        Ok(())
    }

    /// Sets a whole dense block (bound types only); `values` in row-major canonical order, any
    /// missing tail left zero. A block set before (whole or in part) is a `label` error.
    pub fn block(&mut self, labels: Vec<String>, values: &[f64], span: Span) -> Result<()> {
        let taken = self.find(&labels).is_some_and(|at| self.whole[at] || self.partly[at]);
        if taken {
            return Err(self.duplicate(&labels, &[], span));
        }
        let at = self.block_at(labels, span)?;
        self.whole[at] = true;
        for (slot, v) in self.blocks[at].values.iter_mut().zip(values) {
            *slot = *v;
        }
        Ok(())
    }

    /// Sets the cell at a row-major position of a purely indexed bound tensor.
    pub fn direct(&mut self, position: usize, value: f64, span: Span) -> Result<()> {
        let size = self.dense_size;
        match self.blocks.first_mut().and_then(|b| b.values.get_mut(position)) {
            Some(slot) => {
                *slot = value;
                Ok(())
            }
            None => Err(VespaError::elems(
                span,
                format!(
                    "cannot set the cell at position {position} of {}: it has {size} cells",
                    self.ty
                ),
            )),
        }
    }

    /// Whether the cell at `offset` of block `at` was set one by one.
    fn is_filled(&self, at: usize, offset: usize) -> bool {
        let bit = at * self.dense_size + offset;
        self.filled.get(bit / 64).is_some_and(|w| w & (1 << (bit % 64)) != 0)
    }

    fn fill(&mut self, at: usize, offset: usize) {
        let bit = at * self.dense_size + offset;
        if self.filled.len() <= bit / 64 {
            // The blocks hold at most MAX_CELLS cells, and so the bits.
            self.filled.resize((self.blocks.len() * self.dense_size).div_ceil(64), 0);
        }
        if let Some(w) = self.filled.get_mut(bit / 64) {
            *w |= 1 << (bit % 64);
        }
        self.partly[at] = true;
    }

    /// The position of the block with these labels, if there is one.
    fn find(&self, labels: &[String]) -> Option<usize> {
        let hash = self.hasher.hash_one(labels);
        let same = |&&at: &&u32| self.blocks[at as usize].labels == labels;
        let first = self.index.get(&hash).filter(same);
        let at = first.or_else(|| self.collided.get(&hash)?.iter().find(same))?;
        Some(*at as usize)
    }

    fn offset(&self, indices: &[u64]) -> usize {
        let sizes = self.sizes.as_deref().unwrap_or(&[]);
        indices.iter().zip(sizes).fold(0, |acc, (i, s)| acc * s + *i as usize)
    }

    /// The error for an address given twice: the mapped labels and, for a cell, the indices,
    /// in canonical dimension order (`{k:a,x:0}`; a whole block shows its mapped labels).
    fn duplicate(&self, labels: &[String], indices: &[u64], span: Span) -> VespaError {
        let mut labels = labels.iter();
        let mut indices = indices.iter();
        let parts: Vec<String> = self
            .ty
            .dims()
            .iter()
            .filter_map(|d| {
                let label = if d.is_mapped() {
                    labels.next()?.clone()
                } else {
                    indices.next()?.to_string()
                };
                Some(format!("{}:{label}", d.name()))
            })
            .collect();
        VespaError::label(
            span,
            format!("the address {{{}}} appears more than once", parts.join(",")),
        )
    }

    /// The position of the block with these mapped labels, added (zero-filled) if new.
    fn block_at(&mut self, labels: Vec<String>, span: Span) -> Result<usize> {
        if let Some(at) = self.find(&labels) {
            return Ok(at);
        }
        let total = (self.blocks.len() + 1).checked_mul(self.dense_size);
        if total.is_none_or(|t| t > MAX_CELLS) {
            return Err(too_large(&self.ty, span));
        }
        if self.blocks.len() >= self.max_blocks {
            return Err(VespaError::value(
                span,
                format!(
                    "a tensor of type {} may hold at most {} combinations of mapped labels",
                    self.ty, self.max_blocks
                ),
            ));
        }
        // At most MAX_SUBSPACES blocks, so the position fits a u32.
        let at = self.blocks.len() as u32;
        let hash = self.hasher.hash_one(&labels);
        if let Some(first) = self.index.get(&hash).copied() {
            self.collided.entry(hash).or_default().push(at);
            debug_assert_ne!(self.blocks[first as usize].labels, labels);
        } else {
            self.index.insert(hash, at);
        }
        self.blocks.push(Block { labels, values: vec![0.0; self.dense_size] });
        self.partly.push(false);
        self.whole.push(false);
        Ok(at as usize)
    }

    /// Finishes the tensor; unbound dimensions get the largest index seen plus one (a mixed
    /// tensor's type becomes bound, a purely indexed one keeps `x[]` in its type).
    pub fn build(mut self, span: Span) -> Result<Tensor> {
        if let Some(sizes) = self.sizes.take() {
            return Ok(Tensor::from_parts(self.ty, sizes, self.blocks));
        }
        if self.mapped.is_empty() && self.pending.is_empty() {
            return Err(VespaError::elems(
                span,
                format!("a tensor of type {} needs at least one value", self.ty),
            ));
        }
        let sizes = self.unbound_sizes(span)?;
        let pending = std::mem::take(&mut self.pending);
        let mut bound = Builder::new(&self.bound_type(&sizes), span)?;
        for cell in pending {
            bound.set_cell(cell.labels, &cell.indices, cell.value, cell.span)?;
        }
        let ty = if self.mapped.is_empty() { self.ty } else { bound.ty };
        Ok(Tensor::from_parts(ty, sizes, bound.blocks))
    }

    fn unbound_sizes(&self, span: Span) -> Result<Vec<usize>> {
        let dims = self.ty.dims();
        let mut sizes = Vec::with_capacity(self.indexed.len());
        for (k, &d) in self.indexed.iter().enumerate() {
            let size = match dims[d].size() {
                Some(s) => s,
                None => {
                    self.pending.iter().map(|p| p.indices[k]).max().unwrap_or(0).saturating_add(1)
                }
            };
            sizes.push(usize::try_from(size).map_err(|_| too_large(&self.ty, span))?);
        }
        Ok(sizes)
    }

    fn bound_type(&self, sizes: &[usize]) -> TensorType {
        let mut k = 0;
        let dims = self
            .ty
            .dims()
            .iter()
            .map(|d| {
                if d.is_mapped() {
                    d.clone()
                } else {
                    k += 1;
                    Dimension::indexed(d.name(), Some(sizes[k - 1] as u64))
                }
            })
            .collect();
        self.ty.with_dims_unchecked(dims)
    }
}

fn parse_index(dim: &Dimension, label: &str, size: Option<u64>, span: Span) -> Result<u64> {
    if label.is_empty() || !label.bytes().all(|b| b.is_ascii_digit()) {
        return Err(VespaError::type_error(
            span,
            format!("label '{label}' of indexed dimension '{}' is not an index", dim.name()),
        ));
    }
    let limit = size.unwrap_or(MAX_CELLS as u64);
    match label.parse::<u64>() {
        Ok(i) if i < limit => Ok(i),
        _ => Err(VespaError::bounds(
            span,
            match size {
                Some(n) => format!("index {label} is outside dimension {}[{n}]", dim.name()),
                None => format!("index {label} of dimension {}[] is too large", dim.name()),
            },
        )),
    }
}

fn checked_product(sizes: &[usize]) -> Option<usize> {
    sizes.iter().try_fold(1usize, |acc, s| acc.checked_mul(*s)).filter(|n| *n <= MAX_CELLS)
}

fn too_large(ty: &TensorType, span: Span) -> VespaError {
    VespaError::value(span, format!("a tensor of type {ty} would hold more than {MAX_CELLS} cells"))
}

/// A hasher for keys that are already hashes: it passes the `u64` through.
#[derive(Default)]
struct Prehashed(u64);

impl Hasher for Prehashed {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}
