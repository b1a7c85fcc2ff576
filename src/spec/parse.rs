//! The entry points of the parsing stage.
//!
//! A spec is parsed with the tokens as written first ([`Lexer`]). A spec that fails for any
//! reason is parsed again with OCANNL's token stream ([`CommaLexer`], see `spec::commas`),
//! which decides the error reported: lexing errors first, then parse errors, then the checks.

use std::iter::once;

use super::assemble::Builder;
use super::ast::{EinsumSpec, LabelsSpec, ShapeSpec};
use super::commas::{first_error, CommaLexer};
use super::error::SpecError;
use super::grammar::{from_lalrpop, EinsumParser, LabelsParser, LalrpopError};
use super::hints;
use super::lexer::{is_multichar, Lexer, Spanned};
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
    let mut tokens = Lexer::new(spec, multichar);
    match labels(spec, &mut out, &mut tokens) {
        Ok(()) if !tokens.failed() => Ok(out),
        _ => exact(spec, multichar, |tokens| {
            let mut out = LabelsSpec { shape: ShapeSpec::default(), multichar };
            labels(spec, &mut out, tokens).map(|()| out)
        })
        .map_err(|e| hints::refine(spec, e)),
    }
}

/// Parses an einsum spec in OCANNL syntax (`rhs1;rhs2=>lhs`, one or more operand slots).
///
/// ```
/// let spec = einrow::spec::parse_einsum("ij;jk=>ik").unwrap();
/// assert_eq!(spec.rhs.len(), 2);
/// ```
pub fn parse_einsum(spec: &str) -> Result<EinsumSpec, SpecError> {
    let mut out = EinsumSpec::default();
    parse_einsum_into(spec, &mut out)?;
    Ok(out)
}

/// Parses an einsum spec into `out`, reusing its buffers: the tree [`parse_einsum`] returns,
/// written in place (what a caller parsing spec after spec saves is the allocation and the
/// move of the tree). After an error, `out` holds no meaningful spec.
///
/// ```
/// let mut spec = einrow::spec::ast::EinsumSpec::default();
/// einrow::spec::parse_einsum_into("ij;jk=>ik", &mut spec).unwrap();
/// einrow::spec::parse_einsum_into("i=>", &mut spec).unwrap();
/// assert_eq!(spec, einrow::spec::parse_einsum("i=>").unwrap());
/// ```
pub fn parse_einsum_into(spec: &str, out: &mut EinsumSpec) -> Result<(), SpecError> {
    let multichar = is_multichar(spec);
    empty_slots(out, spec, multichar);
    let mut tokens = Lexer::new(spec, multichar);
    match einsum(spec, out, &mut tokens) {
        Ok(()) if !tokens.failed() => Ok(()),
        _ => exact(spec, multichar, |tokens| {
            empty_slots(out, spec, multichar);
            einsum(spec, out, tokens)
        })
        .map_err(|e| hints::refine_einsum(spec, e)),
    }
}

/// Why parsing with a given token stream failed (a lexing error is kept by the lexer).
enum Failure {
    /// The grammar or the builder rejected the tokens.
    Parse(LalrpopError),
    /// The parsed tree breaks a rule of `spec::validate`.
    Check(SpecError),
}

/// Parses `spec` again with OCANNL's token stream and reports its first error.
#[cold]
fn exact<'s, T>(
    spec: &'s str,
    multichar: bool,
    parse: impl FnOnce(&mut CommaLexer<'s>) -> Result<T, Failure>,
) -> Result<T, SpecError> {
    let mut lexer = CommaLexer::new(spec, multichar);
    let parsed = parse(&mut lexer);
    // A lexing error anywhere in the spec is reported before any parse error (the lexer ends
    // the tokens at its error, so the parser may have stopped before it or accepted a prefix).
    if let Some(e) = lexer.into_error() {
        return Err(e);
    }
    parsed.map_err(|failure| match failure {
        Failure::Parse(e) => first_error(spec, multichar).unwrap_or_else(|| from_lalrpop(e, spec)),
        Failure::Check(e) => e,
    })
}

/// Parses the labels spec `spec` from `tokens` into `out` (written in place: the tree is
/// large, and moving it costs more than parsing short specs).
fn labels(
    spec: &str,
    out: &mut LabelsSpec,
    tokens: impl Iterator<Item = Spanned>,
) -> Result<(), Failure> {
    let mut none = Vec::new();
    let mut b = Builder::labels(spec, &mut none, &mut out.shape, out.multichar);
    LabelsParser::new().parse(&mut b, tokens).map_err(Failure::Parse)?;
    let seen = b.seen;
    check_slots(once(&out.shape), None, seen).map_err(Failure::Check)
}

/// Empties `out` into an empty slot per operand of `spec` (one more than its `;`s).
fn empty_slots(out: &mut EinsumSpec, spec: &str, multichar: bool) {
    let operands = spec.bytes().filter(|&c| c == b';').count() + 1;
    out.rhs.clear();
    if out.rhs.capacity() == 0 {
        // A fresh spec: allocated at its size (growing an empty vector costs more).
        out.rhs = (0..operands).map(|_| ShapeSpec::default()).collect();
    } else {
        out.rhs.resize_with(operands, ShapeSpec::default);
    }
    out.lhs = ShapeSpec::default();
    out.multichar = multichar;
}

/// Parses the einsum spec `spec` from `tokens` into `out`, which holds an empty slot per
/// operand.
fn einsum(
    spec: &str,
    out: &mut EinsumSpec,
    tokens: impl Iterator<Item = Spanned>,
) -> Result<(), Failure> {
    let mut b = Builder::einsum(spec, &mut out.rhs, &mut out.lhs, out.multichar);
    EinsumParser::new().parse(&mut b, tokens).map_err(Failure::Parse)?;
    let (seen, operands) = (b.seen, b.operands());
    out.rhs.truncate(operands);
    check_slots(out.rhs.iter().chain(once(&out.lhs)), Some(&out.lhs), seen).map_err(Failure::Check)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Parses `spec` with the tokens as written and with OCANNL's token stream: both must give
    /// the same tree, spans included, or both fail.
    fn check(front: &str, spec: &str) {
        let multichar = is_multichar(spec);
        let mut tokens = Lexer::new(spec, multichar);
        let (fast, exact) = if front == "labels" {
            let mut out = LabelsSpec { shape: ShapeSpec::default(), multichar };
            let fast = labels(spec, &mut out, &mut tokens).map(|()| format!("{out:?}"));
            let exact = exact(spec, multichar, |tokens| {
                let mut out = LabelsSpec { shape: ShapeSpec::default(), multichar };
                labels(spec, &mut out, tokens).map(|()| format!("{out:?}"))
            });
            (fast.ok(), exact.ok())
        } else {
            let mut out = EinsumSpec::default();
            empty_slots(&mut out, spec, multichar);
            let fast = einsum(spec, &mut out, &mut tokens).map(|()| format!("{out:?}"));
            let exact = exact(spec, multichar, |tokens| {
                let mut out = EinsumSpec::default();
                empty_slots(&mut out, spec, multichar);
                einsum(spec, &mut out, tokens).map(|()| format!("{out:?}"))
            });
            (fast.ok(), exact.ok())
        };
        let fast = fast.filter(|_| !tokens.failed());
        assert_eq!(fast, exact, "{front} {spec:?}");
    }

    #[test]
    fn tokens_as_written_parse_like_ocannl_tokens() {
        let specs = [
            ("labels", "...|...->..."),
            ("labels", "ab1c_2|..v..->x"),
            ("labels", "..ab.."),
            ("labels", "..a1.."),
            ("labels", "a b|c"),
            ("labels", "99999999999999999999"),
            ("labels", "a..b..c"),
            ("labels", "...,16|1000"),
            ("einsum", "ij;jk=>ik"),
            ("einsum", "b|i->o => o|b->i"),
            ("einsum", "a^b;c=>a"),
            ("einsum", "..x..a;b=>a..x.."),
            ("einsum", "2*o+1+k;k=>o"),
            ("einsum", "...|2*oh<+kh, 2*ow<+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ...|oh, ow"),
            ("einsum", "i;j;=>ij"),
            ("einsum", "i=>"),
            ("einsum", "ij;jk=>ik$"),
        ];
        for (front, spec) in specs {
            check(front, spec);
        }
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/parse");
        for sub in ["ok", "err"] {
            let Ok(files) = std::fs::read_dir(format!("{dir}/{sub}")) else { continue };
            for file in files.flatten().filter(|f| f.path().extension() == Some("spec".as_ref())) {
                let text = std::fs::read_to_string(file.path()).unwrap_or_default();
                if let Some((front, spec)) = text.split_once('\n') {
                    if front != "numpy" {
                        check(front, spec.trim_end_matches('\n'));
                    }
                }
            }
        }
    }
}
