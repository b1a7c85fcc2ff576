//! Errors of shape inference: a code, a message, and the provenance that explains them.

use crate::code::{Coded, ErrorCode};
use crate::ids::{StepId, TensorId};
use crate::span::Span;
use crate::spec::SpecError;

/// A shape inference failure.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum InferError {
    /// A spec of an operation does not parse or breaks a rule checkable without solving.
    #[error("step {step}: {error}")]
    Spec {
        /// The operation.
        step: StepId,
        /// The spec text.
        spec: String,
        /// The parse error (spans into `spec`).
        error: SpecError,
    },
    /// The constraints cannot be satisfied, or leave something unresolved.
    #[error("{0}")]
    Shape(Box<ShapeError>),
    /// An operand that names no tensor (of the graph, or declared or defined above it in a
    /// program).
    #[error("unknown tensor `{name}`")]
    UnknownTensor {
        /// The name as written (for a graph: the id, `t12`).
        name: String,
    },
    /// The graph was used wrongly (wrong operand count…).
    #[error("{message}")]
    Usage {
        /// The class of the error (usually `arity`).
        code: ErrorCode,
        /// What is wrong.
        message: String,
    },
}

/// An unsatisfiable or underdetermined shape problem, with its explanation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShapeError {
    /// The class.
    pub code: ErrorCode,
    /// What went wrong, in one sentence.
    pub message: String,
    /// The operation whose constraint failed.
    pub step: Option<StepId>,
    /// The tensors involved.
    pub tensors: Vec<TensorId>,
    /// Spec spans involved (into the step's spec).
    pub spans: Vec<Span>,
    /// The chain of facts that led to the conflict, most recent last.
    pub chain: Vec<String>,
    /// The failing step's spec text (the spans point into it).
    pub spec: Option<String>,
    /// The failing step as a statement (`c = einsum a b`).
    pub statement: Option<String>,
}

impl std::fmt::Display for ShapeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(step) = self.step {
            write!(f, "{step}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl Coded for InferError {
    fn code(&self) -> ErrorCode {
        match self {
            InferError::Spec { error, .. } => error.code(),
            InferError::Shape(e) => e.code,
            InferError::Usage { code, .. } => *code,
            InferError::UnknownTensor { .. } => ErrorCode::Name,
        }
    }
}

impl InferError {
    /// A shape error without provenance yet (the solver adds it).
    pub fn shape(code: ErrorCode, message: impl Into<String>) -> InferError {
        InferError::Shape(Box::new(ShapeError {
            code,
            message: message.into(),
            step: None,
            tensors: Vec::new(),
            spans: Vec::new(),
            chain: Vec::new(),
            spec: None,
            statement: None,
        }))
    }
}
