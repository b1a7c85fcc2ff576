//! `einrow run --named`: Vespa operands joined on their dimension names. SPEC lists the
//! output's dimension names; every error speaks of those names and of the operands as given
//! (counted from 0), with carets into SPEC or into the operands' types.

use einrow::diagnostic::{Diagnostic, Location};
use einrow::formats::convert::{read_vespa, ConvertError};
use einrow::formats::named::{named_einsum, NamedError};
use einrow::formats::vespa::{is_dimension_name, Tensor as VespaTensor};
use einrow::{ErrorCode, Span};

use crate::run_cmd::Args;
use crate::run_errors::{coded, with_causes};
use crate::run_output::{Done, Outcome};

type Failure = Box<Diagnostic>;

/// Runs `--named`: reads the operands, joins them, returns the Vespa result.
pub fn run_named(args: &Args) -> Result<Outcome, Failure> {
    let mut vs = Vec::new();
    for (i, text) in args.operands.iter().enumerate() {
        let text = crate::run_cmd::operand_text(i, text)?;
        let v = read_vespa(&text).map_err(|e| {
            Box::new(Diagnostic::error(einrow::Coded::code(&e), format!("operand {i}: {e}")))
        })?;
        vs.push(v);
    }
    let spec = args.spec.as_str();
    // An empty SPEC is a scalar result: every dimension summed.
    let written =
        if spec.trim().is_empty() { Vec::new() } else { dimension_names(spec, "output names")? };
    let names: Vec<&str> = written.iter().map(|(n, _)| n.as_str()).collect();
    let refs: Vec<&VespaTensor> = vs.iter().collect();
    let r = named_einsum(&names, &refs).map_err(|e| named_error(e, spec, &written, &vs))?;
    Ok(Outcome { plan: None, timing: None, result: Some(Done::Named(r)) })
}

/// The comma-separated names of `text`, each with its span, each a Vespa dimension name
/// (letters, digits and `_`): else a `syntax` error with carets under the first bad one.
/// `what` names the list in the message (`--vespa-names`, `output names`).
pub fn dimension_names(text: &str, what: &str) -> Result<Vec<(String, Span)>, Failure> {
    let mut names = Vec::new();
    let mut at = 0;
    for part in text.split(',') {
        let name = part.trim();
        let start = at + (part.len() - part.trim_start().len());
        let span = Span::new(start, start + name.len());
        if !is_dimension_name(name) {
            let message = format!(
                "{what}: '{name}' is not a dimension name (one or more letters, digits and '_')"
            );
            let d = Diagnostic::error(ErrorCode::Syntax, message).at(Location::in_text(
                text,
                if name.is_empty() { Span::point(start) } else { span },
            ));
            return Err(Box::new(d));
        }
        names.push((name.to_string(), span));
        at += part.len() + 1;
    }
    Ok(names)
}

/// A named einsum's error as a diagnostic: carets under the output names in SPEC, or under
/// a dimension in the types of the operands that disagree.
fn named_error(
    e: ConvertError,
    spec: &str,
    written: &[(String, Span)],
    operands: &[VespaTensor],
) -> Failure {
    let ConvertError::Named(n) = &e else { return coded(e) };
    let at_output =
        |position: usize| written.get(position).map(|(_, s)| Location::in_text(spec, *s));
    let mut d = Diagnostic::error(einrow::Coded::code(&e), with_causes(n));
    match n {
        NamedError::Size { name, operand, size, earlier, earlier_size, .. } => {
            let here = in_type(operands, *operand, name);
            d.primary = here.map(|l| l.with_note(format!("size {size} in operand {operand}")));
            if let Some(there) = in_type(operands, *earlier, name) {
                d = d.related(there.with_note(format!("size {earlier_size} in operand {earlier}")));
            }
            d = d.help(
                "a dimension's sizes must be equal in every operand, or 1 (which broadcasts)",
            );
        }
        NamedError::RepeatedOutput { first, second, .. } => {
            d.primary = at_output(*second);
            if let Some(first) = at_output(*first) {
                d = d.related(first.with_note("first named here"));
            }
        }
        NamedError::UnknownOutput { position, .. } => {
            d.primary = at_output(*position);
            d = d.help(known_names(operands));
        }
        _ => {}
    }
    Box::new(d)
}

/// Where dimension `name` is in the type of operand `k` (its canonical text).
fn in_type(operands: &[VespaTensor], k: usize, name: &str) -> Option<Location> {
    let ty = operands.get(k)?.tensor_type().to_string();
    let open = ty.find('(')?;
    let mut at = open + 1;
    for part in ty[open + 1..].trim_end_matches(')').split(',') {
        let dim = part.trim_start();
        let start = at + part.len() - dim.len();
        let end = start + dim.find(['[', '{']).unwrap_or(dim.len());
        if &ty[start..end] == name {
            let location = Location::in_text(&ty, Span::new(start, end));
            return Some(location.with_tensor(format!("operand {k}")));
        }
        at += part.len() + 1;
    }
    None
}

/// The help for an output name no operand has: the names the operands have.
fn known_names(operands: &[VespaTensor]) -> String {
    let mut names: Vec<&str> = Vec::new();
    for v in operands {
        for d in v.dims() {
            if !names.contains(&d.name()) {
                names.push(d.name());
            }
        }
    }
    match names.as_slice() {
        [] => "the operands have no dimensions: an empty SPEC sums everything".to_string(),
        _ => format!("the operands' dimensions are {}", names.join(", ")),
    }
}
