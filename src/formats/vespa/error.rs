//! The error type of the Vespa layer: every failure has a stable code and a byte span.

use crate::code::{Coded, ErrorCode};
use crate::span::Span;

/// Why a Vespa type spec, literal or JSON document was rejected. The span is a byte range into
/// the text that was being read (the spec, the literal, or the JSON document).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum VespaError {
    /// Malformed type spec, literal or JSON.
    #[error("syntax error at {span}: {message}")]
    Syntax {
        /// What is wrong, in words a user can act on.
        message: String,
        /// Where in the text.
        span: Span,
    },
    /// A value or form that does not fit the (declared) tensor type.
    #[error("type error at {span}: {message}")]
    Type {
        /// What is wrong.
        message: String,
        /// Where in the text.
        span: Span,
    },
    /// A number that is not allowed (a dimension size of 0 or above 2^31-1, a tensor too large).
    #[error("value error at {span}: {message}")]
    Value {
        /// What is wrong.
        message: String,
        /// Where in the text.
        span: Span,
    },
    /// An index outside its dimension.
    #[error("bounds error at {span}: {message}")]
    Bounds {
        /// What is wrong.
        message: String,
        /// Where in the text.
        span: Span,
    },
    /// A form that needs a declared tensor type when none was given.
    #[error("unresolved at {span}: {message}")]
    Unresolved {
        /// What is wrong.
        message: String,
        /// Where in the text.
        span: Span,
    },
    /// Dimension or label misuse: a duplicate dimension or address, an unknown dimension, a
    /// missing label.
    #[error("label error at {span}: {message}")]
    Label {
        /// What is wrong.
        message: String,
        /// Where in the text.
        span: Span,
    },
    /// A wrong number of values for the shape (dense lists, hex strings, JSON values).
    #[error("element count error at {span}: {message}")]
    Elems {
        /// What is wrong.
        message: String,
        /// Where in the text.
        span: Span,
    },
}

impl VespaError {
    /// A syntax error.
    pub fn syntax(span: Span, message: impl Into<String>) -> VespaError {
        VespaError::Syntax { message: message.into(), span }
    }

    /// A type error.
    pub fn type_error(span: Span, message: impl Into<String>) -> VespaError {
        VespaError::Type { message: message.into(), span }
    }

    /// A value error.
    pub fn value(span: Span, message: impl Into<String>) -> VespaError {
        VespaError::Value { message: message.into(), span }
    }

    /// A bounds error.
    pub fn bounds(span: Span, message: impl Into<String>) -> VespaError {
        VespaError::Bounds { message: message.into(), span }
    }

    /// An unresolved error.
    pub fn unresolved(span: Span, message: impl Into<String>) -> VespaError {
        VespaError::Unresolved { message: message.into(), span }
    }

    /// A label error.
    pub fn label(span: Span, message: impl Into<String>) -> VespaError {
        VespaError::Label { message: message.into(), span }
    }

    /// An element count error.
    pub fn elems(span: Span, message: impl Into<String>) -> VespaError {
        VespaError::Elems { message: message.into(), span }
    }

    /// The byte range of the offending text.
    pub fn span(&self) -> Span {
        match self {
            VespaError::Syntax { span, .. }
            | VespaError::Type { span, .. }
            | VespaError::Value { span, .. }
            | VespaError::Bounds { span, .. }
            | VespaError::Unresolved { span, .. }
            | VespaError::Label { span, .. }
            | VespaError::Elems { span, .. } => *span,
        }
    }

    /// The message without code and position.
    pub fn message(&self) -> &str {
        match self {
            VespaError::Syntax { message, .. }
            | VespaError::Type { message, .. }
            | VespaError::Value { message, .. }
            | VespaError::Bounds { message, .. }
            | VespaError::Unresolved { message, .. }
            | VespaError::Label { message, .. }
            | VespaError::Elems { message, .. } => message,
        }
    }
}

impl Coded for VespaError {
    fn code(&self) -> ErrorCode {
        match self {
            VespaError::Syntax { .. } => ErrorCode::Syntax,
            VespaError::Type { .. } => ErrorCode::Type,
            VespaError::Value { .. } => ErrorCode::Value,
            VespaError::Bounds { .. } => ErrorCode::Bounds,
            VespaError::Unresolved { .. } => ErrorCode::Unresolved,
            VespaError::Label { .. } => ErrorCode::Label,
            VespaError::Elems { .. } => ErrorCode::Elems,
        }
    }
}

/// Shorthand for results of this layer.
pub type Result<T> = std::result::Result<T, VespaError>;
