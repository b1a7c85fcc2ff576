//! Errors of numpy einsum: numpy's error classes mapped to crate codes, each with the span of
//! the spec text at fault and a message that names the operand, label and sizes.

use super::path::PathError;
use super::sublist::SublistError;
use crate::code::{Coded, ErrorCode};
#[cfg(feature = "kernel")]
use crate::kernel::KernelError;
use crate::span::Span;
use crate::spec::SpecError;
use crate::tensor::TensorError;

/// Why an einsum cannot be evaluated.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum EinsumError {
    /// The subscripts do not parse (invalid label, bad ellipsis, two arrows) or repeat / name
    /// an unknown output label.
    #[error(transparent)]
    Spec(#[from] SpecError),
    /// More iteration dimensions (output axes plus summed labels) than numpy's limit of 64
    /// (numpy: too many subscripts / too many distinct labels).
    #[error("the einsum iterates over {dims} dimensions ({output} output axes and {summed} summed labels); numpy allows at most {max}")]
    TooManyDims {
        /// Output axes plus summed labels.
        dims: usize,
        /// Output axes.
        output: usize,
        /// Summed labels.
        summed: usize,
        /// The limit.
        max: usize,
    },
    /// An operand with more axes than numpy's limit of 64 on an array's dimensions.
    #[error("operand {operand} has {axes} axes; numpy arrays have at most {max}")]
    OperandRank {
        /// The operand (from 0).
        operand: usize,
        /// Its axes.
        axes: usize,
        /// The limit.
        max: usize,
        /// The operand's term.
        span: Span,
    },
    /// A different number of terms and operands (numpy: operand count).
    #[error("the spec has {terms} input terms but {operands} operands were given")]
    Arity {
        /// Input terms in the spec.
        terms: usize,
        /// Operands given.
        operands: usize,
    },
    /// A term with more labels than its operand has axes, or (without `...`) fewer
    /// (numpy: too many / too few subscripts).
    #[error("operand {operand} has {dims} axes but its term has {labels} labels{}", if *.ellipsis { " and `...`" } else { " and no `...`" })]
    Rank {
        /// The operand.
        operand: usize,
        /// Labels written in its term.
        labels: usize,
        /// Its number of axes.
        dims: usize,
        /// Whether the term has an ellipsis.
        ellipsis: bool,
        /// The term.
        span: Span,
    },
    /// A label repeated inside one term over axes of different sizes (numpy does not
    /// broadcast within one operand).
    #[error(
        "label '{label}' is repeated in operand {operand} over axes of sizes {first} and {second}"
    )]
    Diagonal {
        /// The label.
        label: char,
        /// The operand.
        operand: usize,
        /// Size at the first occurrence.
        first: usize,
        /// Size at the other occurrence.
        second: usize,
        /// The other occurrence.
        span: Span,
    },
    /// A label whose sizes in two operands are different and neither is 1.
    #[error("dimension mismatch: `{label}` is {earlier_size} in operand {earlier} but {size} in operand {operand}")]
    Mismatch {
        /// The label.
        label: char,
        /// The operand where the conflict shows.
        operand: usize,
        /// Its size there.
        size: usize,
        /// The operand that fixed the size before.
        earlier: usize,
        /// The size it fixed.
        earlier_size: usize,
        /// The label's occurrence in `operand`'s term.
        span: Span,
    },
    /// Ellipsis dimensions that do not broadcast (sizes differ and neither is 1).
    #[error("the `...` of operand {operand} has size {size} where another operand's has {other} (broadcast dimension {dim} from the right)")]
    EllipsisMismatch {
        /// The operand.
        operand: usize,
        /// Its size.
        size: usize,
        /// The conflicting size.
        other: usize,
        /// Position counted from the right of the ellipsis (1 = last).
        dim: usize,
        /// The operand's ellipsis.
        span: Span,
    },
    /// An explicit output without `...` while the inputs' `...` cover dimensions (numpy's
    /// default `optimize=False` behaviour; write `...` in the output or sum explicitly).
    #[error("the inputs' `...` covers {dims} dimensions but the output has no `...`; add `...` to the output to keep them")]
    EllipsisDropped {
        /// Dimensions the ellipsis covers.
        dims: usize,
        /// The output term.
        span: Span,
    },
    /// A term axis that is not a single-letter label (not produced by the numpy parser).
    #[error("numpy subscripts are single letters")]
    NotALabel {
        /// The axis.
        span: Span,
    },
    /// An array given by the caller whose shape is not the one expected: an output that is
    /// not the result's shape, or an operand of another shape than a plan was made for.
    #[error("{} has shape {got:?} but {} {expected:?}", match operand { Some(k) => format!("operand {k}"), None => "the output".to_string() }, if operand.is_some() { "the plan was made for" } else { "the result has shape" })]
    WrongShape {
        /// The operand (`None`: the output).
        operand: Option<usize>,
        /// The shape expected.
        expected: Vec<usize>,
        /// The shape given.
        got: Vec<usize>,
    },
    /// An output whose elements overlap (two result elements would be written to one place,
    /// e.g. a stride 0 along an axis of more than one element).
    #[error("the output's axis {axis} (size {size}, stride {stride}) overlaps its other axes: two results would share an element")]
    OutputOverlap {
        /// The axis.
        axis: usize,
        /// Its size.
        size: usize,
        /// Its element stride.
        stride: isize,
    },
    /// An operand or result that is too large, or another tensor-layer error.
    #[error(transparent)]
    Tensor(#[from] TensorError),
    /// A failure inside the kernel (a bug if it happens: the nests built here are valid).
    #[cfg(feature = "kernel")]
    #[error(transparent)]
    Kernel(#[from] KernelError),
    /// An invalid contraction path or planner option, or a memory limit no path meets.
    #[error(transparent)]
    Path(#[from] PathError),
    /// A sublist label outside numpy's range, or a sublist with two ellipses.
    #[error(transparent)]
    Sublist(#[from] SublistError),
}

impl EinsumError {
    /// The span of the spec text at fault, when there is one.
    pub fn span(&self) -> Option<Span> {
        match self {
            EinsumError::Spec(e) => Some(e.span()),
            EinsumError::Path(e) => e.span(),
            EinsumError::Rank { span, .. }
            | EinsumError::Diagonal { span, .. }
            | EinsumError::Mismatch { span, .. }
            | EinsumError::EllipsisMismatch { span, .. }
            | EinsumError::EllipsisDropped { span, .. }
            | EinsumError::OperandRank { span, .. }
            | EinsumError::NotALabel { span } => Some(*span),
            _ => None,
        }
    }
}

impl Coded for EinsumError {
    fn code(&self) -> ErrorCode {
        match self {
            EinsumError::Spec(e) => e.code(),
            EinsumError::Arity { .. } => ErrorCode::Arity,
            EinsumError::Rank { .. }
            | EinsumError::TooManyDims { .. }
            | EinsumError::OperandRank { .. } => ErrorCode::Rank,
            EinsumError::Diagonal { .. }
            | EinsumError::Mismatch { .. }
            | EinsumError::EllipsisMismatch { .. } => ErrorCode::Mismatch,
            EinsumError::EllipsisDropped { .. } => ErrorCode::Label,
            EinsumError::WrongShape { .. } => ErrorCode::Mismatch,
            EinsumError::OutputOverlap { .. } => ErrorCode::Value,
            EinsumError::NotALabel { .. } => ErrorCode::Syntax,
            EinsumError::Tensor(e) => e.code(),
            #[cfg(feature = "kernel")]
            EinsumError::Kernel(e) => e.code(),
            EinsumError::Path(e) => e.code(),
            EinsumError::Sublist(e) => e.code(),
        }
    }
}
