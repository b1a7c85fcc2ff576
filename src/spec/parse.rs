//! The entry points of the parsing stage.

use super::assemble::Builder;
use super::ast::{EinsumSpec, LabelsSpec};
use super::error::SpecError;
use super::grammar::{from_lalrpop, EinsumParser, LabelsParser};
use super::lexer::{first_error, is_multichar, Lexer};
use super::validate::check_slots;

/// Parses a labels spec (one tensor's shape, `batch|input->output`).
///
/// ```
/// let spec = einrow::spec::parse_labels("2|3->4").unwrap();
/// assert_eq!(spec.to_string(), "2|3->4");
/// ```
pub fn parse_labels(spec: &str) -> Result<LabelsSpec, SpecError> {
    let multichar = is_multichar(spec);
    let mut b = Builder::labels(multichar);
    let mut lexer = Lexer::new(spec, multichar);
    let parsed = LabelsParser::new().parse(&mut b, &mut lexer);
    // A lexing error anywhere in the spec is reported before any parse error (the lexer ends
    // the tokens at its error, so the parser may have stopped before it or accepted a prefix).
    if let Some(e) = lexer.into_error() {
        return Err(e);
    }
    if let Err(e) = parsed {
        return Err(first_error(spec, multichar).unwrap_or_else(|| from_lalrpop(e)));
    }
    let seen = b.seen;
    let (_, shape) = b.into_slots();
    check_slots(std::iter::once(&shape), None, seen)?;
    Ok(LabelsSpec { shape, multichar })
}

/// Parses an einsum spec in OCANNL syntax (`rhs1;rhs2=>lhs`, one or more operand slots).
///
/// ```
/// let spec = einrow::spec::parse_einsum("ij;jk=>ik").unwrap();
/// assert_eq!(spec.rhs.len(), 2);
/// ```
pub fn parse_einsum(spec: &str) -> Result<EinsumSpec, SpecError> {
    let multichar = is_multichar(spec);
    let operands = spec.bytes().filter(|&c| c == b';').count() + 1;
    let mut b = Builder::einsum(operands, multichar);
    let mut lexer = Lexer::new(spec, multichar);
    let parsed = EinsumParser::new().parse(&mut b, &mut lexer);
    // A lexing error anywhere in the spec is reported before any parse error (the lexer ends
    // the tokens at its error, so the parser may have stopped before it or accepted a prefix).
    if let Some(e) = lexer.into_error() {
        return Err(e);
    }
    if let Err(e) = parsed {
        return Err(first_error(spec, multichar).unwrap_or_else(|| from_lalrpop(e)));
    }
    let seen = b.seen;
    let (rhs, lhs) = b.into_slots();
    check_slots(rhs.iter().chain(std::iter::once(&lhs)), Some(&lhs), seen)?;
    Ok(EinsumSpec { rhs, lhs, multichar })
}
