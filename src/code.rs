//! The stable error codes shared by every layer (listed with their meaning in the
//! [case format](crate::check::format#error-codes)).

// Without the `kernel` feature the case format's module (`check`) is absent and the link above
// is plain text.
#![cfg_attr(not(feature = "kernel"), allow(rustdoc::broken_intra_doc_links))]

use std::fmt;

/// The class of an error. Every error einrow reports carries one; the names are stable and are
/// what users and tests match on.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum ErrorCode {
    /// Malformed spec, type, literal or JSON.
    Syntax,
    /// Wrong operand count.
    Arity,
    /// Label misuse: unknown or repeated output label, a name used as both axis and row variable.
    Label,
    /// A name that refers to nothing: an unknown tensor or operation of a program.
    Name,
    /// Sizes or bases that cannot be equal or broadcast.
    Mismatch,
    /// Wrong number of axes.
    Rank,
    /// Infinitely many axes: self-reference or a rank cycle.
    Cycle,
    /// Not enough information, e.g. a parameter's hidden dimension.
    Unresolved,
    /// Total-elements or exact-shape constraint violated.
    Elems,
    /// Index or bound out of range.
    Bounds,
    /// A number that is not allowed.
    Value,
    /// A value that does not fit the declared type.
    Type,
    /// A request einrow cannot serve (an unsupported kind or operation).
    Unsupported,
    /// Input/output failure (a file that cannot be read).
    Io,
    /// A limit einrow keeps on its own work was reached (the solver's guard against running
    /// forever): the input is not known to be wrong, only too costly to finish.
    Resource,
}

impl ErrorCode {
    /// The stable lowercase name, as printed in messages and matched by conformance cases.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::Syntax => "syntax",
            ErrorCode::Arity => "arity",
            ErrorCode::Label => "label",
            ErrorCode::Name => "name",
            ErrorCode::Mismatch => "mismatch",
            ErrorCode::Rank => "rank",
            ErrorCode::Cycle => "cycle",
            ErrorCode::Unresolved => "unresolved",
            ErrorCode::Elems => "elems",
            ErrorCode::Bounds => "bounds",
            ErrorCode::Value => "value",
            ErrorCode::Type => "type",
            ErrorCode::Unsupported => "unsupported",
            ErrorCode::Io => "io",
            ErrorCode::Resource => "resource",
        }
    }

    /// What the code means, in one line (the first line of `einrow explain CODE`).
    pub fn meaning(self) -> &'static str {
        match self {
            ErrorCode::Syntax => "malformed spec, shape string, literal or JSON",
            ErrorCode::Arity => "wrong operand count",
            ErrorCode::Label => {
                "label misuse: a repeated result label, a name used as both axis and row"
            }
            ErrorCode::Name => {
                "a name that refers to nothing: an unknown tensor, operation or lint"
            }
            ErrorCode::Mismatch => "sizes or bases that cannot be equal or broadcast",
            ErrorCode::Rank => "wrong number of axes",
            ErrorCode::Cycle => "infinitely many axes: self-reference or a rank cycle",
            ErrorCode::Unresolved => "not enough information, e.g. a parameter's hidden dimension",
            ErrorCode::Elems => "an element count that does not fit",
            ErrorCode::Bounds => "index or bound out of range",
            ErrorCode::Value => "a number that is not allowed",
            ErrorCode::Type => "a value that does not fit the declared type",
            ErrorCode::Unsupported => "a request einrow cannot serve",
            ErrorCode::Io => "input/output failure (a file that cannot be read)",
            ErrorCode::Resource => "a limit einrow keeps on its own work was reached",
        }
    }

    /// Parses a code name; `None` for names outside the list.
    pub fn from_name(name: &str) -> Option<ErrorCode> {
        ALL.iter().copied().find(|c| c.as_str() == name)
    }
}

/// Every code, in the order of the enum.
pub(crate) const ALL: [ErrorCode; 15] = [
    ErrorCode::Syntax,
    ErrorCode::Arity,
    ErrorCode::Label,
    ErrorCode::Name,
    ErrorCode::Mismatch,
    ErrorCode::Rank,
    ErrorCode::Cycle,
    ErrorCode::Unresolved,
    ErrorCode::Elems,
    ErrorCode::Bounds,
    ErrorCode::Value,
    ErrorCode::Type,
    ErrorCode::Unsupported,
    ErrorCode::Io,
    ErrorCode::Resource,
];

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Implemented by every error type of every layer: its stable code.
pub trait Coded {
    /// The error's class.
    fn code(&self) -> ErrorCode;
}
