//! Stage 1 — parsing: spec text to a syntax tree with spans.
//!
//! Two front ends share one tree family ([`ast`]): OCANNL labels and einsum specs (a logos
//! lexer with OCANNL's two modes and a lalrpop grammar), and numpy einsum subscripts. Checks
//! that need no solver (name clashes, repeated or unknown numpy output labels) happen here.

mod assemble;
pub mod ast;
mod commas;
mod error;
mod grammar;
mod hints;
mod json;
pub mod lexer;
mod numpy;
mod parse;
mod print;
mod spans;
mod validate;

pub use error::SpecError;
pub use numpy::parse_numpy;
pub use parse::{parse_einsum, parse_einsum_into, parse_labels};
#[cfg(feature = "serde")]
pub(crate) use validate::for_each_label;
