//! Errors of the parsing stage. Every variant carries the span of the offending text.

use super::ast::Name;
use crate::code::{Coded, ErrorCode};
use crate::diagnostic::{Diagnostic, Location};
use crate::span::Span;

/// A spec that does not parse, or that breaks a rule checkable without solving.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SpecError {
    /// A character no token starts with.
    #[error("unexpected character {ch:?}")]
    BadChar {
        /// The character.
        ch: char,
        /// Where it is.
        span: Span,
    },
    /// An integer above 2^62.
    #[error("integer too large: sizes and indices are at most 2^62")]
    IntTooLarge {
        /// The integer's text.
        span: Span,
    },
    /// A token the grammar cannot take here.
    #[error("unexpected {found}; expected {expected}")]
    Unexpected {
        /// The token found, described.
        found: String,
        /// What would have been accepted.
        expected: String,
        /// The token's span.
        span: Span,
    },
    /// The spec ends too early.
    #[error("unexpected end of spec; expected {expected}")]
    UnexpectedEnd {
        /// What would have been accepted.
        expected: String,
        /// The end of the spec.
        span: Span,
    },
    /// Two axes without a comma between them (multichar mode).
    #[error("missing `,` between two axes (this spec is in multichar mode, where axes are separated by commas)")]
    MissingComma {
        /// Where the comma is missing.
        span: Span,
    },
    /// A comma with no axis before it.
    #[error("stray `,`: commas separate axes")]
    StrayComma {
        /// The comma.
        span: Span,
    },
    /// A second row variable in one row.
    #[error("a row has at most one row variable (`...` or `..name..`)")]
    TwoEllipses {
        /// The first row variable.
        first: Span,
        /// The second one.
        second: Span,
    },
    /// A name used both as an axis label and as a row variable.
    #[error("`{name}` is used both as an axis label and as a row variable")]
    NameClash {
        /// The name.
        name: Name,
        /// Where it is used as a label.
        label: Span,
        /// Where it is used as a row variable.
        row_var: Span,
    },
    /// A stride or dilation of 0.
    #[error("a stride or dilation must be at least 1")]
    ZeroCoefficient {
        /// The coefficient.
        span: Span,
    },
    /// A fixed-size concatenation component in a result slot.
    #[error("a fixed-size concatenation component can only be read (in an operand slot): in the result it would leave elements unwritten")]
    ConcatSizeInResult {
        /// The component's axis.
        span: Span,
    },
    /// A numpy subscript that is not a letter.
    #[error("invalid subscript {ch:?}: numpy subscripts are letters")]
    NumpySubscript {
        /// The character.
        ch: char,
        /// Where it is.
        span: Span,
    },
    /// A `.` that does not belong to a `...`.
    #[error("invalid ellipsis: write exactly `...`")]
    NumpyEllipsis {
        /// The dots.
        span: Span,
    },
    /// Two `->` in numpy subscripts.
    #[error("numpy subscripts have at most one `->`")]
    NumpyArrow {
        /// The second arrow.
        span: Span,
    },
    /// An output label that no input has.
    #[error("output subscript `{label}` does not appear in any input")]
    OutputLabelUnknown {
        /// The label.
        label: char,
        /// Its place in the output.
        span: Span,
    },
    /// einops-style grouping of axes, `(h w)`: a spec gives each axis one label.
    #[error(
        "axes cannot be grouped: `(...)` is einops syntax, and a spec gives each axis one label"
    )]
    Grouping {
        /// From the `(` to its `)` (or to the end of the spec).
        span: Span,
    },
    /// A flattened axis written otherwise than `(h*w)`: einops' `(h w)`, one label, or an
    /// unclosed `(`.
    #[error("a flattened axis is two or more labels between parentheses, joined by `*`: `(h*w)`")]
    Flattening {
        /// From the `(` to its `)` (or to the end of the spec).
        span: Span,
    },
    /// `->` where an einsum spec's `=>` is expected: the result follows `=>`, while `->`
    /// separates a row's input axes from its output axes.
    #[error("`->` where `=>` is expected: an einsum spec's result follows `=>` (`->` separates a row's input axes from its output axes)")]
    ResultArrow {
        /// The `->`.
        arrow: Span,
    },
    /// An output label written twice.
    #[error("output subscript `{label}` is repeated")]
    OutputLabelRepeated {
        /// The label.
        label: char,
        /// Its first place in the output.
        first: Span,
        /// Its second place.
        second: Span,
    },
}

impl SpecError {
    /// The primary span: where a caret should point.
    pub fn span(&self) -> Span {
        match self {
            SpecError::BadChar { span, .. }
            | SpecError::IntTooLarge { span }
            | SpecError::Unexpected { span, .. }
            | SpecError::UnexpectedEnd { span, .. }
            | SpecError::MissingComma { span }
            | SpecError::StrayComma { span }
            | SpecError::ZeroCoefficient { span }
            | SpecError::ConcatSizeInResult { span }
            | SpecError::NumpySubscript { span, .. }
            | SpecError::NumpyEllipsis { span }
            | SpecError::NumpyArrow { span }
            | SpecError::OutputLabelUnknown { span, .. }
            | SpecError::Grouping { span }
            | SpecError::Flattening { span } => *span,
            SpecError::ResultArrow { arrow } => *arrow,
            SpecError::TwoEllipses { second, .. } => *second,
            SpecError::NameClash { row_var, .. } => *row_var,
            SpecError::OutputLabelRepeated { second, .. } => *second,
        }
    }

    /// Secondary spans with a short note each (e.g. the first of two clashing uses).
    pub fn related(&self) -> Vec<(Span, &'static str)> {
        match self {
            SpecError::TwoEllipses { first, .. } => vec![(*first, "first row variable here")],
            SpecError::NameClash { label, .. } => vec![(*label, "used as an axis label here")],
            SpecError::OutputLabelRepeated { first, .. } => vec![(*first, "first written here")],
            _ => Vec::new(),
        }
    }
}

impl SpecError {
    /// A hint for fixing the spec `spec` (the text the error's spans point into), when the
    /// error suggests one: the spec with `=>` in place of a misplaced `->`, the merged label
    /// of an einops group, the separators of the other einsum notation.
    ///
    /// ```
    /// let spec = "ij;jk->ik";
    /// let e = einrow::spec::parse_einsum(spec).unwrap_err();
    /// assert_eq!(e.help(spec).as_deref(), Some("did you mean `ij;jk=>ik`?"));
    /// ```
    pub fn help(&self, spec: &str) -> Option<String> {
        match self {
            SpecError::ResultArrow { arrow } => {
                let (head, tail) = (spec.get(..arrow.start as usize)?, spec.get(arrow.end as usize..)?);
                Some(format!("did you mean `{head}=>{tail}`?"))
            }
            SpecError::Flattening { span } => {
                let inner = spec.get(span.range())?.trim_matches(|c| c == '(' || c == ')');
                let labels: Vec<&str> = inner.split(|c: char| c.is_whitespace() || c == ',' || c == '*').filter(|w| !w.is_empty()).collect();
                (labels.len() >= 2).then(|| format!("did you mean `({})`?", labels.join("*")))
            }
            SpecError::Grouping { span } => {
                let inner = spec.get(span.range())?.trim_matches(|c| c == '(' || c == ')');
                let merged: String = inner.split(|c: char| c.is_whitespace() || c == ',').collect();
                Some(format!(
                    "reshape the tensor so that the grouped axes are one, and give it one label \
                     (`{merged}` for `{}`)",
                    spec.get(span.range())?
                ))
            }
            SpecError::NumpySubscript { ch: ';', .. } => Some(
                "numpy subscripts separate operands with `,` (`ij,jk->ik`); an OCANNL einsum spec \
                 separates them with `;` and puts `=>` before the result (`ij;jk=>ik`)"
                    .into(),
            ),
            SpecError::NumpySubscript { ch: '=', .. } => Some(
                "numpy subscripts put `->` before the output (`ij,jk->ik`); `=>` belongs to OCANNL \
                 einsum specs (`ij;jk=>ik`)"
                    .into(),
            ),
            _ => None,
        }
    }
}

impl SpecError {
    /// The error as a [`Diagnostic`] about `spec` (the text its spans point into): carets under
    /// the offending text and the related places, and the [hint](SpecError::help).
    pub fn to_diagnostic(&self, spec: &str) -> Diagnostic {
        let mut d = Diagnostic::error(self.code(), self.to_string())
            .at(Location::in_text(spec, self.span()));
        for (span, note) in self.related() {
            d = d.related(Location::in_text(spec, span).with_note(note));
        }
        d.help.extend(self.help(spec));
        d
    }
}

impl Coded for SpecError {
    fn code(&self) -> ErrorCode {
        match self {
            SpecError::NameClash { .. }
            | SpecError::OutputLabelUnknown { .. }
            | SpecError::OutputLabelRepeated { .. } => ErrorCode::Label,
            SpecError::ZeroCoefficient { .. } => ErrorCode::Value,
            _ => ErrorCode::Syntax,
        }
    }
}
