//! Errors of the path planner: bad path text, invalid explicit paths, memory limits no path
//! meets, and searches past their bounds.

use crate::code::{Coded, ErrorCode};
use crate::span::Span;

/// Why no contraction path can be given.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathError {
    /// An optimize name that is not a strategy.
    #[error("unknown optimize strategy `{name}`; expected greedy, optimal, dp, auto or a path such as [[0, 1], [0, 1]]")]
    UnknownStrategy {
        /// The name given.
        name: String,
        /// Where it is.
        span: Span,
    },
    /// Malformed text of a path or a memory limit.
    #[error("expected {expected}")]
    Syntax {
        /// What would have been valid here.
        expected: &'static str,
        /// Where the text goes wrong.
        span: Span,
    },
    /// A path without steps.
    #[error("the path has no steps; it must contract the {operands} operand(s) into one result, e.g. [[0{}]]", if *.operands > 1 { ", 1" } else { "" })]
    EmptyPath {
        /// The number of operands.
        operands: usize,
        /// The path text, when it was parsed.
        span: Option<Span>,
    },
    /// A step without positions.
    #[error("step {step} of the path contracts no operand")]
    EmptyStep {
        /// The step (from 0).
        step: usize,
        /// The step's text, when the path was parsed.
        span: Option<Span>,
    },
    /// A position past the current operand list.
    #[error("step {step} names operand position {position}, but only {operands} operand(s) are left at that step (positions are counted in the current list, results appended at the end)")]
    Position {
        /// The step (from 0).
        step: usize,
        /// The position given.
        position: usize,
        /// Operands left before the step.
        operands: usize,
        /// The step's text, when the path was parsed.
        span: Option<Span>,
    },
    /// A step that names one position twice.
    #[error("step {step} names operand position {position} twice")]
    RepeatedPosition {
        /// The step (from 0).
        step: usize,
        /// The repeated position.
        position: usize,
        /// The step's text, when the path was parsed.
        span: Option<Span>,
    },
    /// A path that stops with several operands left.
    #[error("the path leaves {remaining} operands uncontracted; its steps must contract every operand into one result")]
    Incomplete {
        /// Operands left after the last step.
        remaining: usize,
        /// The path text, when it was parsed.
        span: Option<Span>,
    },
    /// An explicit path with an intermediate over the memory limit.
    #[error("step {step} of the path builds an intermediate of {size} elements, over the memory limit of {limit}")]
    IntermediateTooLarge {
        /// The step (from 0).
        step: usize,
        /// Its result's elements.
        size: u128,
        /// The limit.
        limit: u128,
        /// The step's text, when the path was parsed.
        span: Option<Span>,
    },
    /// No path the strategy builds keeps every intermediate within the limit.
    #[error("{strategy} found no pairwise path whose intermediates all fit in {limit} elements; raise the limit, or use optimal, greedy or auto, which end with one step over the operands left")]
    NoPathWithinLimit {
        /// The strategy.
        strategy: &'static str,
        /// The limit.
        limit: u128,
    },
    /// A memory limit of zero elements.
    #[error("the memory limit must be at least 1 element")]
    ZeroMemoryLimit,
    /// More operands than a strategy searches.
    #[error("{strategy} searches at most {max} operands but the einsum has {operands}; use dp, greedy or auto")]
    TooManyOperands {
        /// The strategy.
        strategy: &'static str,
        /// The operand count.
        operands: usize,
        /// The strategy's bound.
        max: usize,
    },
    /// A search that reached its work bound.
    #[error("{strategy} stopped after examining {budget} pairs of subgraphs; use greedy or auto for this einsum")]
    SearchBudget {
        /// The strategy.
        strategy: &'static str,
        /// The bound reached.
        budget: u64,
    },
}

impl PathError {
    /// The span of the text at fault, when the path or option came as text.
    pub fn span(&self) -> Option<Span> {
        match self {
            PathError::UnknownStrategy { span, .. } | PathError::Syntax { span, .. } => Some(*span),
            PathError::EmptyPath { span, .. }
            | PathError::EmptyStep { span, .. }
            | PathError::Position { span, .. }
            | PathError::RepeatedPosition { span, .. }
            | PathError::Incomplete { span, .. }
            | PathError::IntermediateTooLarge { span, .. } => *span,
            _ => None,
        }
    }

    /// The error located in the text the path was parsed from: `spans` are the steps' spans
    /// from [`Optimize::parse_with_spans`](super::Optimize::parse_with_spans); `whole` is the
    /// path text's span, for errors about the whole path.
    pub fn at(mut self, spans: &[Span], whole: Span) -> PathError {
        match &mut self {
            PathError::EmptyStep { step, span }
            | PathError::Position { step, span, .. }
            | PathError::RepeatedPosition { step, span, .. }
            | PathError::IntermediateTooLarge { step, span, .. } => {
                *span = spans.get(*step).copied().or(Some(whole));
            }
            PathError::EmptyPath { span, .. } | PathError::Incomplete { span, .. } => {
                *span = Some(whole);
            }
            _ => {}
        }
        self
    }
}

impl Coded for PathError {
    fn code(&self) -> ErrorCode {
        match self {
            PathError::Syntax { .. } => ErrorCode::Syntax,
            PathError::UnknownStrategy { .. }
            | PathError::EmptyStep { .. }
            | PathError::RepeatedPosition { .. }
            | PathError::ZeroMemoryLimit => ErrorCode::Value,
            PathError::Position { .. } => ErrorCode::Bounds,
            PathError::EmptyPath { .. } | PathError::Incomplete { .. } => ErrorCode::Arity,
            PathError::IntermediateTooLarge { .. } | PathError::NoPathWithinLimit { .. } => {
                ErrorCode::Elems
            }
            PathError::TooManyOperands { .. } | PathError::SearchBudget { .. } => {
                ErrorCode::Unsupported
            }
        }
    }
}
