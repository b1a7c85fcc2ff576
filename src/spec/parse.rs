//! The entry points of the parsing stage.

use super::assemble::Builder;
use super::ast::{EinsumSpec, LabelsSpec, ShapeSpec};
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
    let mut out = LabelsSpec { shape: ShapeSpec::default(), multichar };
    let mut none = Vec::new();
    let mut b = Builder::labels(&mut none, &mut out.shape, multichar);
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
    check_slots(std::iter::once(&out.shape), None, seen)?;
    Ok(out)
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
    let rhs = (0..operands).map(|_| ShapeSpec::default()).collect();
    let mut out = EinsumSpec { rhs, lhs: ShapeSpec::default(), multichar };
    let mut b = Builder::einsum(&mut out.rhs, &mut out.lhs, multichar);
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
    let (seen, operands) = (b.seen, b.operands());
    out.rhs.truncate(operands);
    check_slots(out.rhs.iter().chain(std::iter::once(&out.lhs)), Some(&out.lhs), seen)?;
    Ok(out)
}
