//! Tensor types: a cell type and dimensions kept in canonical (ASCII) order.

use std::fmt;

use super::cell::CellType;
use super::error::{Result, VespaError};
use crate::span::Span;

/// The largest bound size a dimension may have (Java's `Integer.MAX_VALUE`).
pub const MAX_DIMENSION_SIZE: u64 = i32::MAX as u64;

/// The most dimensions a type may have (nested literals and printing recurse once per
/// dimension).
pub const MAX_RANK: usize = 256;

/// Whether a dimension is mapped (sparse labels) or indexed (dense `0..size`).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum DimKind {
    /// `x{}`: any string label.
    Mapped,
    /// `x[N]` (bound, `Some(N)`) or `x[]` (unbound, `None`): labels are indices.
    Indexed(Option<u64>),
}

/// One dimension of a tensor type.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct Dimension {
    name: String,
    kind: DimKind,
}

impl Dimension {
    /// A mapped dimension.
    pub fn mapped(name: impl Into<String>) -> Dimension {
        Dimension { name: name.into(), kind: DimKind::Mapped }
    }

    /// An indexed dimension, bound when `size` is given.
    pub fn indexed(name: impl Into<String>, size: Option<u64>) -> Dimension {
        Dimension { name: name.into(), kind: DimKind::Indexed(size) }
    }

    /// The dimension's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Mapped or indexed, with the size of a bound indexed dimension.
    pub fn kind(&self) -> DimKind {
        self.kind
    }

    /// Whether this is a mapped dimension.
    pub fn is_mapped(&self) -> bool {
        self.kind == DimKind::Mapped
    }

    /// Whether this is an indexed dimension (bound or not).
    pub fn is_indexed(&self) -> bool {
        !self.is_mapped()
    }

    /// The size of a bound indexed dimension.
    pub fn size(&self) -> Option<u64> {
        match self.kind {
            DimKind::Indexed(size) => size,
            DimKind::Mapped => None,
        }
    }
}

impl fmt::Display for Dimension {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            DimKind::Mapped => write!(f, "{}{{}}", self.name),
            DimKind::Indexed(Some(n)) => write!(f, "{}[{n}]", self.name),
            DimKind::Indexed(None) => write!(f, "{}[]", self.name),
        }
    }
}

/// A tensor type: `tensor<cell>(dims)`, dimensions sorted by name in ASCII order.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct TensorType {
    cell: CellType,
    dims: Vec<Dimension>,
}

impl TensorType {
    /// Builds a type from dimensions in any order. Duplicate names are a `label` error and
    /// bound sizes must lie in `1..=2^31-1` (`value` error); `span` locates the culprit.
    /// Every name must be a [dimension name](is_dimension_name) (`syntax` error).
    pub fn new(cell: CellType, dims: Vec<Dimension>, span: Span) -> Result<TensorType> {
        check_rank(dims.len(), span)?;
        let mut sorted: Vec<Dimension> = Vec::with_capacity(dims.len());
        for d in dims {
            check_name(&d.name, span)?;
            check_size(&d, span)?;
            match sorted.binary_search_by(|e| e.name.as_str().cmp(d.name.as_str())) {
                Ok(_) => {
                    return Err(VespaError::label(
                        span,
                        format!(
                            "could not add dimension {d}: a dimension '{}' is already present",
                            d.name
                        ),
                    ))
                }
                Err(at) => sorted.insert(at, d),
            }
        }
        Ok(TensorType { cell, dims: sorted })
    }

    /// The rank-0 type of the given cell type.
    pub fn scalar(cell: CellType) -> TensorType {
        TensorType { cell, dims: Vec::new() }
    }

    /// The cell type.
    pub fn cell_type(&self) -> CellType {
        self.cell
    }

    /// The dimensions, in canonical order.
    pub fn dims(&self) -> &[Dimension] {
        &self.dims
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// The position of a dimension in canonical order.
    pub fn index_of(&self, name: &str) -> Option<usize> {
        self.dims.binary_search_by(|d| d.name.as_str().cmp(name)).ok()
    }

    /// Whether some dimension is mapped.
    pub fn has_mapped(&self) -> bool {
        self.dims.iter().any(Dimension::is_mapped)
    }

    /// Whether some dimension is indexed.
    pub fn has_indexed(&self) -> bool {
        self.dims.iter().any(Dimension::is_indexed)
    }

    /// Whether some indexed dimension is unbound.
    pub fn has_unbound(&self) -> bool {
        self.dims.iter().any(|d| d.kind == DimKind::Indexed(None))
    }

    /// The same dimensions with another cell type.
    pub fn with_cell_type(&self, cell: CellType) -> TensorType {
        TensorType { cell, dims: self.dims.clone() }
    }

    /// Java's `TensorType.equals`: every rank-0 type equals every other, whatever its cell type.
    pub fn same_as(&self, other: &TensorType) -> bool {
        (self.dims.is_empty() && other.dims.is_empty()) || self == other
    }

    /// Replaces the dimensions' kinds keeping names (used when unbound sizes become known).
    pub(crate) fn with_dims_unchecked(&self, dims: Vec<Dimension>) -> TensorType {
        TensorType { cell: self.cell, dims }
    }
}

/// Whether `name` is a valid dimension name: one or more ASCII letters, digits and `_`
/// (`[A-Za-z0-9_]+`, Java's type-spec rule `\w+`, so a leading digit is allowed).
///
/// This one rule holds for every dimension einrow reads or writes: type specs, the dimensions
/// a general-form literal infers from its first address, and names given to
/// [`TensorType::new`]. Java's literal reader also accepts `-`, `@` and `$` in inferred names
/// (its label rule), but then prints types its own type parser rejects; einrow refuses such
/// names so that every tensor it prints reads back.
///
/// ```
/// use einrow::formats::vespa::is_dimension_name;
/// assert!(is_dimension_name("x") && is_dimension_name("0d_1") && is_dimension_name("_"));
/// assert!(!is_dimension_name("") && !is_dimension_name("@") && !is_dimension_name("a b"));
/// ```
pub fn is_dimension_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A `syntax` error at `span` unless `name` is a [dimension name](is_dimension_name).
pub(crate) fn check_name(name: &str, span: Span) -> Result<()> {
    if is_dimension_name(name) {
        return Ok(());
    }
    Err(VespaError::syntax(
        span,
        format!("a dimension name is one or more letters, digits and '_', not '{name}'"),
    ))
}

/// Checks that a type of `rank` dimensions is allowed.
pub(crate) fn check_rank(rank: usize, span: Span) -> Result<()> {
    if rank > MAX_RANK {
        return Err(VespaError::value(
            span,
            format!("a tensor type may have at most {MAX_RANK} dimensions"),
        ));
    }
    Ok(())
}

/// Checks a bound size lies in `1..=2^31-1`.
pub(crate) fn check_size(d: &Dimension, span: Span) -> Result<()> {
    match d.size() {
        Some(0) => Err(VespaError::value(
            span,
            format!("size of bound dimension '{}' must be at least 1", d.name),
        )),
        Some(n) if n > MAX_DIMENSION_SIZE => Err(VespaError::value(
            span,
            format!("size of bound dimension '{}' must be at most {MAX_DIMENSION_SIZE}", d.name),
        )),
        _ => Ok(()),
    }
}

impl fmt::Display for TensorType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("tensor")?;
        if self.cell != CellType::Double {
            write!(f, "<{}>", self.cell)?;
        }
        f.write_str("(")?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{d}")?;
        }
        f.write_str(")")
    }
}

/// Vespa's label rule (`[-_@A-Za-z0-9][_@$A-Za-z0-9]*`): such labels print bare (dimension
/// names follow the stricter [`is_dimension_name`]).
pub fn is_bare_label(s: &str) -> bool {
    let mut bytes = s.bytes();
    match bytes.next() {
        Some(b) if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'@') => {}
        _ => return false,
    }
    bytes.all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'@' | b'$'))
}
