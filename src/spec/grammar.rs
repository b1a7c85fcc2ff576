//! The generated parser and the one place that maps lalrpop's errors to [`SpecError`].

use lalrpop_util::ParseError;

use super::error::SpecError;
use super::lexer::Token;
use crate::span::Span;

lalrpop_util::lalrpop_mod!(
    #[allow(clippy::all, clippy::pedantic, unused_parens, missing_docs)]
    generated,
    "/spec.rs"
);

pub use generated::{EinsumParser, LabelsParser};

/// Turns a lalrpop error into a spec error with a span and a readable "expected" list.
pub fn from_lalrpop(err: ParseError<usize, Token<'_>, SpecError>) -> SpecError {
    match err {
        ParseError::InvalidToken { location } => SpecError::Unexpected {
            found: "input".into(),
            expected: "a token".into(),
            span: Span::point(location),
        },
        ParseError::UnrecognizedEof { location, expected } => {
            SpecError::UnexpectedEnd { expected: describe(&expected), span: Span::point(location) }
        }
        ParseError::UnrecognizedToken { token: (l, tok, r), expected } => SpecError::Unexpected {
            found: tok.to_string(),
            expected: describe(&expected),
            span: Span::new(l, r),
        },
        ParseError::ExtraToken { token: (l, tok, r) } => SpecError::Unexpected {
            found: tok.to_string(),
            expected: "the end of the spec".into(),
            span: Span::new(l, r),
        },
        ParseError::User { error } => error,
    }
}

/// Renders lalrpop's terminal names (`"\",\""`, `INT`) as a user-facing list.
fn describe(expected: &[String]) -> String {
    let mut names: Vec<String> = expected
        .iter()
        .map(|t| match t.as_str() {
            "INT" => "an integer".to_string(),
            "IDENT" => "a label".to_string(),
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
