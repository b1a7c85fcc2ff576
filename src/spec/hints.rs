//! Errors restated where the likely intent is recognisable: einops-style grouping `(h w)`
//! (a flattened axis is `(h*w)`; numpy subscripts have none), and `->` written where an einsum
//! spec's `=>` belongs.

use super::error::SpecError;
use crate::span::Span;

/// The error of a labels spec or numpy subscripts, restated: in numpy subscripts a `(` or
/// `)` is grouping; in a spec, an error inside parentheses (or at an unmatched one) is a
/// flattened axis written wrong.
pub(super) fn refine(spec: &str, e: SpecError) -> SpecError {
    match e {
        SpecError::NumpySubscript { ch: '(' | ')', span } => {
            SpecError::Grouping { span: group(spec, span) }
        }
        SpecError::Unexpected { span, .. } | SpecError::UnexpectedEnd { span, .. }
            if in_parentheses(spec, span) =>
        {
            SpecError::Flattening { span: group(spec, span) }
        }
        other => other,
    }
}

/// Whether `at` lies inside parentheses (after a `(` not closed before it) or on a `)`.
fn in_parentheses(spec: &str, at: Span) -> bool {
    let i = (at.start as usize).min(spec.len());
    let open = spec[..i].rfind('(');
    let closed = spec[..i].rfind(')');
    let inside = matches!((open, closed), (Some(o), c) if c.is_none_or(|c| c < o));
    inside || spec[i..].starts_with([')', '('])
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
        assert_eq!(e, SpecError::Flattening { span: Span::new(3, 8) });
        assert_eq!(e.help("b, (h w), c").unwrap(), "did you mean `(h*w)`?");
        let e = parse_numpy("b(hw)->b").unwrap_err();
        assert_eq!(e, SpecError::Grouping { span: Span::new(1, 5) });
        assert!(e.help("b(hw)->b").unwrap().contains("`hw` for `(hw)`"));
        let e = parse_einsum("(h w) c; c => c").unwrap_err();
        assert_eq!(e, SpecError::Flattening { span: Span::new(0, 5) });
        // A `(` never closed runs to the end; a lone label is no flattening.
        assert_eq!(
            parse_labels("a (b").unwrap_err(),
            SpecError::Flattening { span: Span::new(2, 4) }
        );
        assert_eq!(
            parse_labels("a ) b").unwrap_err(),
            SpecError::Flattening { span: Span::new(2, 3) }
        );
        let e = parse_einsum("b,(h) => b").unwrap_err();
        assert!(matches!(e, SpecError::Flattening { .. }), "{e:?}");
        assert!(parse_einsum("b,(h*w) => b,h,w").is_ok());
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
