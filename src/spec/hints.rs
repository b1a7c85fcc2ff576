//! Errors restated where the likely intent is recognisable: einops-style grouping `(h w)`
//! instead of an unexpected `(`, and `->` written where an einsum spec's `=>` belongs.

use super::error::SpecError;
use crate::span::Span;

/// The error of a labels spec or numpy subscripts, restated: a `(` or `)` is grouping.
pub(super) fn refine(spec: &str, e: SpecError) -> SpecError {
    match e {
        SpecError::BadChar { ch: '(' | ')', span }
        | SpecError::NumpySubscript { ch: '(' | ')', span } => {
            SpecError::Grouping { span: group(spec, span) }
        }
        other => other,
    }
}

/// The error of an einsum spec, restated: grouping as in [`refine`], and a spec that ends (or
/// goes on) where `=>` is expected while it has no `=>` but a `->` in its last slot is a
/// misplaced result arrow.
pub(super) fn refine_einsum(spec: &str, e: SpecError) -> SpecError {
    let wants_result = match &e {
        SpecError::UnexpectedEnd { expected, .. } | SpecError::Unexpected { expected, .. } => {
            expected.contains("`=>`")
        }
        _ => false,
    };
    if wants_result && !spec.contains("=>") {
        let last_slot = spec.rfind(';').map_or(0, |i| i + 1);
        if let Some(at) = spec[last_slot..].rfind("->") {
            let start = last_slot + at;
            return SpecError::ResultArrow { arrow: Span::new(start, start + 2) };
        }
    }
    refine(spec, e)
}

/// The group around the parenthesis at `at`: from the `(` before it (or itself) to the `)`
/// after it, or to the end of the spec.
fn group(spec: &str, at: Span) -> Span {
    let i = at.start as usize;
    let open = if spec[i..].starts_with('(') { i } else { spec[..i].rfind('(').unwrap_or(i) };
    let close = spec[open..].find(')').map_or(spec.len(), |j| open + j + 1);
    Span::new(open, close.max(at.end as usize))
}

#[cfg(test)]
mod tests {
    use crate::span::Span;
    use crate::spec::{parse_einsum, parse_labels, parse_numpy, SpecError};

    #[test]
    fn grouping_is_named() {
        let e = parse_labels("b, (h w), c").unwrap_err();
        assert_eq!(e, SpecError::Grouping { span: Span::new(3, 8) });
        assert!(e.help("b, (h w), c").unwrap().contains("`hw` for `(h w)`"));
        let e = parse_numpy("b(hw)->b").unwrap_err();
        assert_eq!(e, SpecError::Grouping { span: Span::new(1, 5) });
        let e = parse_einsum("(h w) c; c => c").unwrap_err();
        assert_eq!(e, SpecError::Grouping { span: Span::new(0, 5) });
        // A `(` never closed runs to the end.
        assert_eq!(
            parse_labels("a (b").unwrap_err(),
            SpecError::Grouping { span: Span::new(2, 4) }
        );
        assert_eq!(
            parse_labels("a ) b").unwrap_err(),
            SpecError::Grouping { span: Span::new(2, 3) }
        );
    }

    #[test]
    fn arrow_for_result() {
        for (spec, at) in [("ij;jk->ik", 5), ("ij->ji", 2), ("b|i->o; o->h", 9)] {
            let e = parse_einsum(spec).unwrap_err();
            assert_eq!(e, SpecError::ResultArrow { arrow: Span::new(at, at + 2) }, "{spec}");
        }
        // `->` inside a slot with a result is fine; a missing `=>` without `->` stays as it was.
        assert!(parse_einsum("i->o;o=>i").is_ok());
        assert!(matches!(parse_einsum("ij;jk").unwrap_err(), SpecError::UnexpectedEnd { .. }));
    }
}
