//! The generated parser and the one place that maps lalrpop's errors to [`SpecError`].

use lalrpop_util::ParseError;

use super::assemble::span;
use super::error::SpecError;
use super::lexer::Token;
use crate::span::Span;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, missing_docs)]
    generated,
    "/spec.rs"
);

pub use generated::{EinsumParser, LabelsParser};

/// A parse error as the generated parser reports it.
pub type LalrpopError = ParseError<u32, Token, Box<SpecError>>;

/// Turns a lalrpop error on `spec` into a spec error with a span and a readable "expected"
/// list.
pub fn from_lalrpop(err: LalrpopError, spec: &str) -> SpecError {
    let found = |tok: Token, at: Span| tok.describe(spec.get(at.range()).unwrap_or_default());
    match err {
        ParseError::InvalidToken { location } => SpecError::Unexpected {
            found: "input".into(),
            expected: "a token".into(),
            span: span(location, location),
        },
        ParseError::UnrecognizedEof { location, expected } => SpecError::UnexpectedEnd {
            expected: describe(&expected),
            span: span(location, location),
        },
        ParseError::UnrecognizedToken { token: (l, tok, r), expected } => SpecError::Unexpected {
            found: found(tok, span(l, r)),
            expected: describe(&expected),
            span: span(l, r),
        },
        ParseError::ExtraToken { token: (l, tok, r) } => SpecError::Unexpected {
            found: found(tok, span(l, r)),
            expected: "the end of the spec".into(),
            span: span(l, r),
        },
        ParseError::User { error } => *error,
    }
}

/// Renders lalrpop's terminal names (`"\",\""`, `INT`) as a user-facing list.
fn describe(expected: &[String]) -> String {
    let mut names: Vec<String> = expected
        .iter()
        .map(|t| match t.as_str() {
            "INT" => "an integer".to_string(),
            "IDENT" | "IDENTS" => "a label".to_string(),
            quoted => format!("`{}`", quoted.trim_matches('"')),
        })
        .collect();
    names.dedup();
    match names.len() {
        0 => "nothing more".into(),
        1 => names.remove(0),
        _ => {
            let last = names.pop().unwrap_or_default();
            format!("{} or {last}", names.join(", "))
        }
    }
}
