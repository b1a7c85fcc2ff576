//! The errors of the TensorStore layer and their stable codes.
//!
//! Every error carries the JSON pointer (RFC 6901) of the offending value when a JSON document
//! was the input (empty otherwise), and a message that names the numbers involved.

use std::fmt;

use crate::code::{Coded, ErrorCode};

/// A JSON pointer into the input document, e.g. `/output/0/stride` (empty for the root or when
/// no document is involved).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct JsonPath(String);

impl JsonPath {
    /// The root pointer.
    pub fn root() -> JsonPath {
        JsonPath(String::new())
    }

    /// The pointer to member `key` of the value at `self`.
    pub fn key(&self, key: &str) -> JsonPath {
        let escaped = key.replace('~', "~0").replace('/', "~1");
        JsonPath(format!("{}/{escaped}", self.0))
    }

    /// The pointer to element `index` of the array at `self`.
    pub fn index(&self, index: usize) -> JsonPath {
        JsonPath(format!("{}/{index}", self.0))
    }

    /// The pointer `rel` (relative to `self`) made absolute.
    pub fn join(&self, rel: &JsonPath) -> JsonPath {
        JsonPath(format!("{}{}", self.0, rel.0))
    }

    /// The pointer text (`""` for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Whether this is the root pointer.
    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }
}

impl fmt::Display for JsonPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            f.write_str("/")
        } else {
            f.write_str(&self.0)
        }
    }
}

/// Where an error happened: nowhere in particular, or at a JSON pointer.
fn at(path: &JsonPath) -> String {
    if path.is_root() {
        String::new()
    } else {
        format!("at {path}: ")
    }
}

/// An error of the TensorStore index-space layer.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum TsError {
    /// Malformed JSON: wrong JSON type, missing or extra members, conflicting members.
    #[error("{}{message}", at(path))]
    Syntax {
        /// Pointer to the offending value.
        path: JsonPath,
        /// What is wrong.
        message: String,
    },
    /// A number that is not allowed (not an integer, out of its member's range).
    #[error("{}{message}", at(path))]
    Value {
        /// Pointer to the offending value.
        path: JsonPath,
        /// What is wrong.
        message: String,
    },
    /// An index, interval or bound out of range, or integer overflow in index arithmetic.
    #[error("{}{message}", at(path))]
    Bounds {
        /// Pointer to the offending value.
        path: JsonPath,
        /// What is wrong.
        message: String,
    },
    /// A wrong number of dimensions (array length, rank limit, rank mismatch).
    #[error("{}{message}", at(path))]
    Rank {
        /// Pointer to the offending value.
        path: JsonPath,
        /// What is wrong.
        message: String,
    },
    /// Label misuse: duplicate labels, unknown labels, labels where indices are required.
    #[error("{}{message}", at(path))]
    Label {
        /// Pointer to the offending value.
        path: JsonPath,
        /// What is wrong.
        message: String,
    },
    /// Shapes or domains that cannot be matched or broadcast.
    #[error("{}{message}", at(path))]
    Mismatch {
        /// Pointer to the offending value.
        path: JsonPath,
        /// What is wrong.
        message: String,
    },
    /// A count of values that does not match the count of selected dimensions.
    #[error("{}{message}", at(path))]
    Arity {
        /// Pointer to the offending value.
        path: JsonPath,
        /// What is wrong.
        message: String,
    },
}

macro_rules! ctor {
    ($name:ident, $variant:ident) => {
        #[doc = concat!("A [`TsError::", stringify!($variant), "`] without a location.")]
        pub fn $name(message: impl Into<String>) -> TsError {
            TsError::$variant { path: JsonPath::root(), message: message.into() }
        }
    };
}

impl TsError {
    ctor!(syntax, Syntax);
    ctor!(value, Value);
    ctor!(bounds, Bounds);
    ctor!(rank, Rank);
    ctor!(label, Label);
    ctor!(mismatch, Mismatch);
    ctor!(arity, Arity);

    fn parts_mut(&mut self) -> (&mut JsonPath, &mut String) {
        match self {
            TsError::Syntax { path, message }
            | TsError::Value { path, message }
            | TsError::Bounds { path, message }
            | TsError::Rank { path, message }
            | TsError::Label { path, message }
            | TsError::Mismatch { path, message }
            | TsError::Arity { path, message } => (path, message),
        }
    }

    /// The JSON pointer of the offending value (the root when there is none).
    pub fn path(&self) -> &JsonPath {
        match self {
            TsError::Syntax { path, .. }
            | TsError::Value { path, .. }
            | TsError::Bounds { path, .. }
            | TsError::Rank { path, .. }
            | TsError::Label { path, .. }
            | TsError::Mismatch { path, .. }
            | TsError::Arity { path, .. } => path,
        }
    }

    /// The message without the location.
    pub fn message(&self) -> &str {
        match self {
            TsError::Syntax { message, .. }
            | TsError::Value { message, .. }
            | TsError::Bounds { message, .. }
            | TsError::Rank { message, .. }
            | TsError::Label { message, .. }
            | TsError::Mismatch { message, .. }
            | TsError::Arity { message, .. } => message,
        }
    }

    /// Sets the location, unless a more precise one is already set.
    pub fn at(mut self, location: &JsonPath) -> TsError {
        let (path, _) = self.parts_mut();
        if path.is_root() {
            *path = location.clone();
        }
        self
    }

    /// Re-roots the location at `base` (the error was located relative to `base`).
    pub fn under(mut self, base: &JsonPath) -> TsError {
        let (path, _) = self.parts_mut();
        *path = base.join(path);
        self
    }

    /// Prefixes the message with `context: `.
    pub fn context(mut self, context: impl fmt::Display) -> TsError {
        let (_, message) = self.parts_mut();
        *message = format!("{context}: {message}");
        self
    }
}

impl Coded for TsError {
    fn code(&self) -> ErrorCode {
        match self {
            TsError::Syntax { .. } => ErrorCode::Syntax,
            TsError::Value { .. } => ErrorCode::Value,
            TsError::Bounds { .. } => ErrorCode::Bounds,
            TsError::Rank { .. } => ErrorCode::Rank,
            TsError::Label { .. } => ErrorCode::Label,
            TsError::Mismatch { .. } => ErrorCode::Mismatch,
            TsError::Arity { .. } => ErrorCode::Arity,
        }
    }
}

/// The result type of this layer.
pub type TsResult<T> = Result<T, TsError>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pointer_escapes_and_display() {
        let p = JsonPath::root().key("a/b").key("c~d").index(3);
        assert_eq!(p.as_str(), "/a~1b/c~0d/3");
        let e = TsError::bounds("bad").at(&p).context("ctx");
        assert_eq!(e.to_string(), "at /a~1b/c~0d/3: ctx: bad");
        assert_eq!(e.code(), ErrorCode::Bounds);
        assert_eq!(TsError::label("x").to_string(), "x");
    }

    #[test]
    fn inner_location_wins() {
        let inner = JsonPath::root().key("x").index(0);
        let e = TsError::value("v").at(&inner).at(&JsonPath::root().key("x"));
        assert_eq!(e.path(), &inner);
    }
}
