//! The tensor value: a type, the sizes of its indexed dimensions, and dense blocks keyed by the
//! labels of the mapped dimensions (kept in insertion order, as Vespa iterates them).

use super::builder::Builder;
use super::cell::CellType;
use super::error::{Result, VespaError};
use super::types::{Dimension, TensorType};
use crate::span::Span;

/// One dense subspace: the labels of the mapped dimensions (canonical order) and the cells of the
/// indexed dimensions in row-major canonical order.
#[derive(Clone, Debug)]
pub(crate) struct Block {
    pub labels: Vec<String>,
    pub values: Vec<f64>,
}

/// How a tensor is stored, decided by its type.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum TensorKind {
    /// Only indexed dimensions (or none): one dense block.
    Indexed,
    /// Only mapped dimensions: one cell per address.
    Mapped,
    /// Both: one dense block per mapped address.
    Mixed,
}

/// A Vespa tensor whose cells hold values of its cell type (narrowed when they were set).
#[derive(Clone, Debug)]
pub struct Tensor {
    ty: TensorType,
    sizes: Vec<usize>,
    blocks: Vec<Block>,
}

impl Tensor {
    pub(crate) fn from_parts(ty: TensorType, sizes: Vec<usize>, blocks: Vec<Block>) -> Tensor {
        Tensor { ty, sizes, blocks }
    }

    /// Builds a tensor from cells: each address lists one label per dimension in canonical
    /// order (decimal indices for indexed dimensions); values are narrowed to the cell type.
    /// Dense cells not given are 0; unbound dimensions are sized by the largest index. An
    /// address given twice is a `label` error.
    pub fn from_cells<I>(ty: &TensorType, cells: I) -> Result<Tensor>
    where
        I: IntoIterator<Item = (Vec<String>, f64)>,
    {
        let span = Span::default();
        let mut b = Builder::new(ty, span)?;
        for (address, value) in cells {
            if address.len() != ty.rank() {
                return Err(VespaError::label(
                    span,
                    format!("an address of {ty} needs {} labels, not {}", ty.rank(), address.len()),
                ));
            }
            b.cell(address.into_iter().map(Some).collect(), ty.cell_type().narrow(value), span)?;
        }
        b.build(span)
    }

    /// A purely indexed tensor of a bound type from its cells in row-major canonical order
    /// (dimensions sorted by name), each narrowed to the cell type. A type with a mapped or
    /// unbound dimension is a `type` error, a count of values other than the type's cells an
    /// `elems` error, a type of more than [`MAX_CELLS`](super::MAX_CELLS) cells a `value` error.
    ///
    /// ```
    /// use einrow::formats::vespa::{Tensor, TensorType};
    /// let ty = TensorType::parse("tensor<float>(x[2],y[1])").unwrap();
    /// let t = Tensor::from_dense(&ty, [1.0, 2.5]).unwrap();
    /// assert_eq!(t.to_text(), "tensor<float>(x[2],y[1]):[[1.0], [2.5]]");
    /// ```
    pub fn from_dense<I>(ty: &TensorType, values: I) -> Result<Tensor>
    where
        I: IntoIterator<Item = f64>,
    {
        let span = Span::default();
        if ty.has_mapped() || ty.has_unbound() {
            return Err(VespaError::type_error(
                span,
                format!("dense cells need bound indexed dimensions only, not {ty}"),
            ));
        }
        let mut b = Builder::new(ty, span)?;
        let cells = b.dense_size();
        let mut given = 0;
        for v in values {
            b.direct(given, ty.cell_type().narrow(v), span)?;
            given += 1;
        }
        if given != cells {
            return Err(VespaError::elems(
                span,
                format!("{ty} has {cells} cells, but {given} values were given"),
            ));
        }
        b.build(span)
    }

    /// The tensor's type (unbound indexed dimensions stay unbound in a purely indexed tensor).
    pub fn tensor_type(&self) -> &TensorType {
        &self.ty
    }

    /// The dimensions in canonical order.
    pub fn dims(&self) -> &[Dimension] {
        self.ty.dims()
    }

    /// The cell type.
    pub fn cell_type(&self) -> CellType {
        self.ty.cell_type()
    }

    /// Indexed, mapped or mixed.
    pub fn kind(&self) -> TensorKind {
        match (self.ty.has_mapped(), self.ty.has_indexed()) {
            (true, true) => TensorKind::Mixed,
            (true, false) => TensorKind::Mapped,
            _ => TensorKind::Indexed,
        }
    }

    /// The actual sizes of the indexed dimensions, in canonical order.
    pub fn dense_sizes(&self) -> &[usize] {
        &self.sizes
    }

    /// The number of cells per dense block (1 without indexed dimensions).
    pub fn dense_size(&self) -> usize {
        self.sizes.iter().product()
    }

    /// The number of cells.
    pub fn len(&self) -> usize {
        self.blocks.len() * self.dense_size()
    }

    /// Whether the tensor has no cells (only a mapped or mixed tensor can be empty).
    pub fn is_empty(&self) -> bool {
        self.blocks.is_empty()
    }

    pub(crate) fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Every cell as (labels per dimension in canonical order, value): blocks in insertion
    /// order, dense cells in row-major order.
    pub fn cells(&self) -> impl Iterator<Item = (Vec<String>, f64)> + '_ {
        let dense = self.dense_size();
        self.blocks.iter().flat_map(move |b| {
            (0..dense).map(move |offset| (self.address(&b.labels, offset), b.values[offset]))
        })
    }

    /// The full address of the cell at `offset` of the block with mapped labels `labels`.
    pub(crate) fn address(&self, labels: &[String], offset: usize) -> Vec<String> {
        let indices = self.unravel(offset);
        let mut mapped = labels.iter();
        let mut dense = indices.iter();
        self.ty
            .dims()
            .iter()
            .map(|d| {
                if d.is_mapped() {
                    mapped.next().cloned().unwrap_or_default()
                } else {
                    dense.next().map(usize::to_string).unwrap_or_default()
                }
            })
            .collect()
    }

    /// The indices of the dense cell at a row-major offset.
    pub(crate) fn unravel(&self, mut offset: usize) -> Vec<usize> {
        let mut indices = vec![0; self.sizes.len()];
        for (i, s) in self.sizes.iter().enumerate().rev() {
            if *s > 0 {
                indices[i] = offset % s;
                offset /= s;
            }
        }
        indices
    }

    /// For a purely indexed tensor: the sizes and the values in row-major canonical order,
    /// ready for a strided kernel. `None` when the tensor has a mapped dimension.
    pub fn to_dense(&self) -> Option<(Vec<usize>, Vec<f64>)> {
        if self.ty.has_mapped() {
            return None;
        }
        let values = self.blocks.first().map(|b| b.values.clone()).unwrap_or_default();
        Some((self.sizes.clone(), values))
    }

    /// Converts the cells to another cell type (`cell_cast`): float32 rounding, bfloat16 by
    /// truncating the float32 bits, int8 by truncating toward zero and wrapping mod 256.
    pub fn cast(&self, to: CellType) -> Tensor {
        let blocks = self
            .blocks
            .iter()
            .map(|b| Block {
                labels: b.labels.clone(),
                values: b.values.iter().map(|v| to.narrow(*v)).collect(),
            })
            .collect();
        Tensor { ty: self.ty.with_cell_type(to), sizes: self.sizes.clone(), blocks }
    }
}

/// Equal when types, sizes and cells agree; block order does not matter, values compare by bit
/// pattern (any NaN equals any NaN).
impl PartialEq for Tensor {
    fn eq(&self, other: &Tensor) -> bool {
        if self.ty != other.ty
            || self.sizes != other.sizes
            || self.blocks.len() != other.blocks.len()
        {
            return false;
        }
        let mine: std::collections::HashMap<&[String], &[f64]> =
            self.blocks.iter().map(|b| (b.labels.as_slice(), b.values.as_slice())).collect();
        mine.len() == self.blocks.len()
            && other.blocks.iter().all(|b| {
                mine.get(b.labels.as_slice()).is_some_and(|v| {
                    v.len() == b.values.len()
                        && v.iter().zip(&b.values).all(|(x, y)| same_bits(*x, *y))
                })
            })
    }
}

fn same_bits(x: f64, y: f64) -> bool {
    x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan())
}
