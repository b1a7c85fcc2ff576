//! Dimension expressions: one operation applied to selected dimensions of a transform, as
//! `transform[ts.d[DIMS].op]` does in TensorStore's Python API.

use super::array::{IndexArray, NdArray};
use super::dim_ops::{self, TranslateKind};
use super::error::{TsError, TsResult};
use super::indexing::{self, Mode, Term};
use super::select::{resolve, DimSelector};
use super::slice::SliceSpec;
use super::transform::IndexTransform;

/// A value given once for all selected dimensions, or once per selected dimension.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum PerDim<T> {
    /// The same value for every selected dimension.
    All(T),
    /// One value per selected dimension.
    Each(Vec<T>),
}

/// Indices for `translate_*`, `stride` and index slices; `None` means "unchanged" (for
/// translations) or 1 (for strides). As in TensorStore, a translation by or to `i64::MIN`
/// (its implicit value, what its Python API makes of `None`) also leaves the dimension alone.
pub type IndexVector = PerDim<Option<i64>>;

impl<T: Clone> PerDim<T> {
    /// One value per dimension of an `n`-dimension selection.
    pub fn expand(&self, n: usize, what: &str) -> TsResult<Vec<T>> {
        match self {
            PerDim::All(v) => Ok(vec![v.clone(); n]),
            PerDim::Each(vs) if vs.len() == n => Ok(vs.clone()),
            PerDim::Each(vs) => Err(TsError::arity(format!(
                "Number of dimensions ({n}) does not match number of {what} ({})",
                vs.len()
            ))),
        }
    }
}

/// One term of `oindex`/`vindex`.
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum IndexTerm {
    /// A single index: the dimension is removed.
    Index(i64),
    /// An integer index array.
    Array(IndexArray),
    /// A boolean mask; it consumes as many selected dimensions as its rank and stands for the
    /// coordinates of its `true` elements.
    Mask(NdArray<bool>),
}

/// A dimension-expression operation (the part after `ts.d[DIMS]`).
#[derive(Clone, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum DimOp {
    /// Shift so the origins become the given values.
    TranslateTo(IndexVector),
    /// Shift by the given offsets.
    TranslateBy(IndexVector),
    /// Shift by the negated offsets.
    TranslateBackwardBy(IndexVector),
    /// Set the labels (one per selected dimension).
    Label(Vec<String>),
    /// Move the selected dimensions to the target indices (indices or ranges; a single index
    /// `i` means `i, i+1, ...`, a negative one ends the block there).
    Transpose(Vec<DimSelector>),
    /// Move the selected dimensions to consecutive positions starting at the target.
    MoveTo(i64),
    /// Stride the domains: the new domain is `{x : x·s ∈ old}`.
    Stride(IndexVector),
    /// Half-open strided slices `[start:stop:step]` in each dimension's coordinates.
    IntervalSlice(PerDim<SliceSpec>),
    /// Fix the selected dimensions at the given indices (removing them).
    IndexSlice(IndexVector),
    /// Outer (orthogonal) indexing by index arrays.
    OIndex(Vec<IndexTerm>),
    /// Vectorized indexing: the broadcast array dimensions come first.
    VIndex(Vec<IndexTerm>),
    /// Merge the selected dimensions into one new first dimension.
    Diagonal,
    /// Insert singleton dimensions `[0*, 1*)` at the selected positions of the result.
    NewAxis,
    /// Mark bounds implicit (`Some(true)`), explicit (`Some(false)`) or leave them (`None`).
    MarkBoundsImplicit {
        /// New state of the lower bounds.
        lower: Option<bool>,
        /// New state of the upper bounds.
        upper: Option<bool>,
    },
}

/// A dimension selection and one operation on it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct DimExpr {
    /// The selected dimensions.
    pub dims: Vec<DimSelector>,
    /// The operation.
    pub op: DimOp,
}

impl DimExpr {
    /// `ts.d[dims].op`.
    pub fn new(dims: Vec<DimSelector>, op: DimOp) -> DimExpr {
        DimExpr { dims, op }
    }

    /// Applies the expression to `t`.
    pub fn apply(&self, t: &IndexTransform) -> TsResult<IndexTransform> {
        if self.op == DimOp::NewAxis {
            return indexing::add_new_axes(t, &self.dims);
        }
        let dims = resolve(&self.dims, t.domain().labels())?;
        let n = dims.len();
        match &self.op {
            DimOp::TranslateTo(v) => {
                dim_ops::translate(t, &dims, &v.expand(n, "indices")?, TranslateKind::To)
            }
            DimOp::TranslateBy(v) => {
                dim_ops::translate(t, &dims, &v.expand(n, "indices")?, TranslateKind::By)
            }
            DimOp::TranslateBackwardBy(v) => {
                dim_ops::translate(t, &dims, &v.expand(n, "indices")?, TranslateKind::BackwardBy)
            }
            DimOp::Label(labels) => dim_ops::label(t, &dims, labels),
            DimOp::Transpose(targets) => match targets.as_slice() {
                [DimSelector::Index(i)] => dim_ops::move_to(t, &dims, *i),
                _ => dim_ops::transpose_to(t, &dims, targets),
            },
            DimOp::MoveTo(i) => dim_ops::move_to(t, &dims, *i),
            DimOp::Stride(v) => dim_ops::stride(t, &dims, &v.expand(n, "strides")?),
            DimOp::Diagonal => dim_ops::diagonal(t, &dims),
            DimOp::MarkBoundsImplicit { lower, upper } => {
                dim_ops::mark_bounds_implicit(t, &dims, *lower, *upper)
            }
            DimOp::IntervalSlice(specs) => {
                let terms = specs.expand(n, "intervals")?.into_iter().map(Term::Slice);
                indexing::apply(t, &dims, terms.collect(), Mode::Outer)
            }
            DimOp::IndexSlice(v) => {
                let terms = v
                    .expand(n, "indices")?
                    .into_iter()
                    .map(|i| i.map(Term::Index).ok_or_else(|| TsError::value("missing index")))
                    .collect::<TsResult<Vec<_>>>()?;
                indexing::apply(t, &dims, terms, Mode::Outer)
            }
            DimOp::OIndex(terms) => indexing::apply(t, &dims, array_terms(terms), Mode::Outer),
            DimOp::VIndex(terms) => indexing::apply(t, &dims, array_terms(terms), Mode::Vectorized),
            DimOp::NewAxis => Err(TsError::syntax("newaxis")),
        }
    }
}

fn array_terms(terms: &[IndexTerm]) -> Vec<Term> {
    terms
        .iter()
        .map(|t| match t {
            IndexTerm::Index(i) => Term::Index(*i),
            IndexTerm::Array(a) => Term::Array(a.clone()),
            IndexTerm::Mask(m) => Term::Mask(m.clone()),
        })
        .collect()
}

impl IndexTransform {
    /// Applies a dimension expression (`self[ts.d[...].op]`).
    pub fn apply(&self, expr: &DimExpr) -> TsResult<IndexTransform> {
        expr.apply(self)
    }
}
