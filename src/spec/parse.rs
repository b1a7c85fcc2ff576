//! The entry points of the parsing stage.

use super::ast::{EinsumSpec, LabelsSpec};
use super::error::SpecError;
use super::grammar::{from_lalrpop, EinsumParser, LabelsParser};
use super::lexer::{is_multichar, lex};
use super::validate::check_slots;

/// Parses a labels spec (one tensor's shape, `batch|input->output`).
///
/// ```
/// let spec = einrow::spec::parse_labels("2|3->4").unwrap();
/// assert_eq!(spec.to_string(), "2|3->4");
/// ```
pub fn parse_labels(spec: &str) -> Result<LabelsSpec, SpecError> {
    let multichar = is_multichar(spec);
    let tokens = lex(spec, multichar)?;
    let shape = LabelsParser::new().parse(tokens).map_err(from_lalrpop)?;
    check_slots(std::iter::once(&*shape), None)?;
    Ok(LabelsSpec { shape: *shape, multichar })
}

/// Parses an einsum spec in OCANNL syntax (`rhs1;rhs2=>lhs`, one or more operand slots).
///
/// ```
/// let spec = einrow::spec::parse_einsum("ij;jk=>ik").unwrap();
/// assert_eq!(spec.rhs.len(), 2);
/// ```
pub fn parse_einsum(spec: &str) -> Result<EinsumSpec, SpecError> {
    let multichar = is_multichar(spec);
    let tokens = lex(spec, multichar)?;
    let (rhs, lhs) = EinsumParser::new().parse(tokens).map_err(from_lalrpop)?;
    check_slots(rhs.iter().chain(std::iter::once(&*lhs)), Some(&lhs))?;
    Ok(EinsumSpec { rhs, lhs: *lhs, multichar })
}
