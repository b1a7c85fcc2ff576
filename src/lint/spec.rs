//! Checks of an einsum spec against what it is used with: a slot count that disagrees with the
//! operands (with the spec rewritten when `,` stands where `;` was meant), and result labels no
//! operand has.
//!
//! A spec can have any number of labels: each check is linear in the spec's length, and the
//! diagnostics made (each holds a copy of the spec's text) are bounded by [`MAX_LABEL_LINTS`]
//! and [`MAX_COMMAS_SHOWN`], with one more saying how many were left out.

use std::collections::HashSet;

use foldhash::fast::FixedState;

use crate::code::ErrorCode;
use crate::diagnostic::{closest, Diagnostic, Lint, Location};
use crate::span::Span;
use crate::spec::ast::{AxisKind, ConcatPart, EinsumSpec, Name, NumpySpec, ShapeSpec};
use crate::spec::parse_einsum;

/// The diagnostics of an einsum spec `text` (parsed as `spec`) used with `operands` operands
/// (`None` when the count is not known, as for `einrow parse`). Locations point into `text`.
///
/// - a slot count other than `operands` is an `arity` error; when the spec has `,` before its
///   `=>` and the same spec with `;` there has the right count, the hint gives that spec;
/// - a label of the result that no operand slot has is a `label` warning: no operand gives it
///   a size, so it is 1 unless another step fixes it (a misspelt label, most often). It is
///   not checked in a spec whose slot count is wrong (its labels are misread too). The first
///   [`MAX_LABEL_LINTS`] such labels are warned of one by one (with "did you mean"), the
///   others in one warning that counts them.
///
/// ```
/// use einrow::lint::einsum_lints;
/// let text = "ij,jk=>ik";
/// let spec = einrow::spec::parse_einsum(text)?;
/// let found = einsum_lints(text, &spec, Some(2));
/// assert_eq!(found[0].code, einrow::ErrorCode::Arity);
/// assert_eq!(found[0].help[0], "did you mean `ij;jk=>ik`? (`,` separates the axes of one slot, `;` separates operand slots)");
/// # Ok::<(), einrow::spec::SpecError>(())
/// ```
pub fn einsum_lints(text: &str, spec: &EinsumSpec, operands: Option<usize>) -> Vec<Diagnostic> {
    // A spec whose slots are miscounted reads its labels wrongly too: only the count is said.
    match operands.filter(|n| *n != spec.rhs.len()) {
        Some(n) => vec![slot_count(text, spec.rhs.len(), n)],
        None => result_labels(text, spec),
    }
}

/// The most result labels [`einsum_lints`] warns of one by one; one more warning counts the
/// rest.
pub const MAX_LABEL_LINTS: usize = 20;

/// The most commas [`slot_count`] points at when it proposes `;` for `,`; a note counts the
/// rest.
pub const MAX_COMMAS_SHOWN: usize = 8;

fn plural(n: usize, what: &str) -> String {
    format!("{n} {what}{}", if n == 1 { "" } else { "s" })
}

/// The diagnostic of a spec with `slots` operand slots used with `operands` operands.
pub fn slot_count(text: &str, slots: usize, operands: usize) -> Diagnostic {
    let message = format!(
        "the spec has {} but {} given",
        plural(slots, "operand slot"),
        if operands == 1 { "1 operand is".to_string() } else { format!("{operands} operands are") }
    );
    let rhs_end = text.find("=>").unwrap_or(text.len());
    let commas: Vec<Span> =
        text[..rhs_end].match_indices(',').map(|(i, _)| Span::new(i, i + 1)).collect();
    let mut d = Diagnostic::error(ErrorCode::Arity, message);
    let fixed = format!("{}{}", text[..rhs_end].replace(',', ";"), &text[rhs_end..]);
    let fixes = !commas.is_empty() && parse_einsum(&fixed).is_ok_and(|s| s.rhs.len() == operands);
    if fixes {
        d = d.at(Location::in_text(text, commas[0]).with_note("`,` separates axes"));
        let shown = commas.len().min(MAX_COMMAS_SHOWN);
        for c in &commas[1..shown] {
            d = d.related(Location::in_text(text, *c));
        }
        if shown < commas.len() {
            d = d.note(format!("{} more `,` before `=>` not shown", commas.len() - shown));
        }
        d.help(format!(
            "did you mean `{fixed}`? (`,` separates the axes of one slot, `;` separates operand slots)"
        ))
    } else {
        d = d.at(Location::in_text(text, Span::new(0, rhs_end)));
        d.help(format!(
            "write one slot per operand, separated by `;` ({})",
            plural(operands, "slot")
        ))
    }
}

/// The diagnostics of numpy subscripts `text` (parsed as `spec`) used with `operands`
/// operands: another number of input terms is an `arity` error.
///
/// ```
/// let spec = einrow::spec::parse_numpy("ij,jk->ik")?;
/// let found = einrow::lint::numpy_lints("ij,jk->ik", &spec, 3);
/// assert_eq!(found[0].message, "the subscripts have 2 input terms but 3 operands are given");
/// # Ok::<(), einrow::spec::SpecError>(())
/// ```
pub fn numpy_lints(text: &str, spec: &NumpySpec, operands: usize) -> Vec<Diagnostic> {
    let terms = spec.inputs.len();
    if terms == operands {
        return Vec::new();
    }
    let inputs = text.find("->").unwrap_or(text.len());
    let message = format!(
        "the subscripts have {} but {} given",
        plural(terms, "input term"),
        if operands == 1 { "1 operand is".to_string() } else { format!("{operands} operands are") }
    );
    let d = Diagnostic::error(ErrorCode::Arity, message)
        .at(Location::in_text(text, Span::new(0, inputs)))
        .help("numpy subscripts have one input term per operand, separated by `,`");
    vec![d]
}

/// A label as a slot writes it: its name, where it is written, and whether it is a plain
/// label axis (not part of a strided, convolution or concatenation axis).
struct Written<'a> {
    name: &'a str,
    span: Span,
    plain: bool,
}

/// Every label name of a slot, with where it is written (labels, strided and convolution
/// axes' labels, concatenation components).
fn slot_labels<'a>(slot: &'a ShapeSpec) -> Vec<Written<'a>> {
    let mut out = Vec::new();
    let mut push =
        |n: &'a Name, span: Span, plain: bool| out.push(Written { name: n.as_str(), span, plain });
    for (_, row) in slot.rows() {
        for axis in row.axes() {
            match &axis.kind {
                AxisKind::Label(n) => push(n, axis.span, true),
                AxisKind::Affine(a) => {
                    push(&a.over, a.over_span, false);
                    if let Some(c) = &a.conv {
                        push(&c.kernel, c.kernel_span, false);
                    }
                }
                AxisKind::Concat(parts) => {
                    for p in parts {
                        if let ConcatPart::Label(n) = p {
                            push(n, axis.span, false);
                        }
                    }
                }
                AxisKind::Flat(labels) => {
                    for (n, at) in labels {
                        push(n, *at, false);
                    }
                }
                AxisKind::Placeholder | AxisKind::Int(_) => {}
            }
        }
    }
    out
}

/// Warnings for the plain labels of the result that no operand slot has (one each for the
/// first [`MAX_LABEL_LINTS`], then one that counts the rest).
fn result_labels(text: &str, spec: &EinsumSpec) -> Vec<Diagnostic> {
    let operand: Vec<&str> = spec.rhs.iter().flat_map(slot_labels).map(|w| w.name).collect();
    let known: HashSet<&str, FixedState> = operand.iter().copied().collect();
    let mut missing =
        slot_labels(&spec.lhs).into_iter().filter(|w| w.plain && !known.contains(w.name));
    let mut out: Vec<Diagnostic> = Vec::new();
    for Written { name, span, .. } in missing.by_ref().take(MAX_LABEL_LINTS) {
        let message = format!(
            "the result label `{name}` is in no operand slot: no operand gives it a size, so it \
             is 1 (a broadcast axis) unless another step fixes it"
        );
        let mut d = Diagnostic::lint(Lint::UnsizedLabel, ErrorCode::Label, message)
            .at(Location::in_text(text, span));
        if let Some(near) = closest(name, operand.iter().copied()) {
            d = d.help(format!("did you mean `{near}`?"));
        }
        out.push(d);
    }
    if let Some(first) = missing.next() {
        let more = 1 + missing.count();
        let message = if more == 1 {
            "1 more result label is in no operand slot".to_string()
        } else {
            format!("{more} more result labels are in no operand slot")
        };
        let at = Location::in_text(text, first.span).with_note("the first of them");
        let why = "no operand gives them a size, so each is 1 (a broadcast axis) unless \
                   another step fixes it";
        out.push(Diagnostic::lint(Lint::UnsizedLabel, ErrorCode::Label, message).at(at).note(why));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lints(text: &str, n: Option<usize>) -> Vec<Diagnostic> {
        einsum_lints(text, &parse_einsum(text).unwrap(), n)
    }

    #[test]
    fn commas_for_semicolons() {
        let d = &lints("ij,jk=>ik", Some(2))[0];
        assert_eq!(d.primary.as_ref().unwrap().span, Some(Span::new(2, 3)));
        // Three operands, two commas; the fix keeps the result's commas.
        let d = &lints("a,b,c=>a,c", Some(3))[0];
        assert!(d.help[0].starts_with("did you mean `a;b;c=>a,c`?"), "{:?}", d.help);
        assert_eq!(d.related.len(), 1);
        // No comma to blame: the count is stated.
        let d = &lints("ij=>ji", Some(2))[0];
        assert_eq!(d.message, "the spec has 1 operand slot but 2 operands are given");
        assert!(d.help[0].contains("(2 slots)"));
        assert!(lints("ij;jk=>ik", Some(2)).is_empty());
    }

    #[test]
    fn result_label_in_no_operand() {
        let d = lints("ij;jk=>iz", None);
        assert_eq!(d.len(), 1);
        assert_eq!(d[0].severity, crate::diagnostic::Severity::Warning);
        assert_eq!(d[0].primary.as_ref().unwrap().span, Some(Span::new(8, 9)));
        let d = lints("ij;jk=>ikk", None);
        assert!(d.is_empty());
        let d = lints("hid;hjd=>hix", None);
        assert!(d[0].help.is_empty());
        // Labels of strided and concatenated axes count.
        assert!(lints("2*o+k;k=>o", None).is_empty());
        assert!(lints("a;b=>a^b", None).is_empty());
        let d = lints("abc;d=>abe", None);
        assert!(d[0].help.is_empty());
        let d = lints("batch, hid; hid, out => batch, uot", None);
        assert_eq!(d[0].help, vec!["did you mean `out`?".to_string()]);
    }

    #[test]
    fn many_result_labels_in_no_operand_are_counted() {
        let n = MAX_LABEL_LINTS + 5;
        let result: Vec<String> = (0..n).map(|i| format!("b{i}")).collect();
        let text = format!("a;a=>a,{}", result.join(","));
        let d = lints(&text, None);
        assert_eq!(d.len(), MAX_LABEL_LINTS + 1);
        assert!(d[0].message.starts_with("the result label `b0`"), "{}", d[0].message);
        let last = &d[MAX_LABEL_LINTS];
        assert_eq!(last.message, "5 more result labels are in no operand slot");
        let first_left_out = text.find(&format!(",b{MAX_LABEL_LINTS},")).unwrap() + 1;
        let at = last.primary.as_ref().unwrap();
        assert_eq!(at.span.map(|s| s.start as usize), Some(first_left_out));
        // One past the limit is said in the singular.
        let text = format!("a=>{}", result[..MAX_LABEL_LINTS + 1].join(","));
        let d = lints(&text, None);
        assert_eq!(d[MAX_LABEL_LINTS].message, "1 more result label is in no operand slot");
    }

    #[test]
    fn commas_shown_are_bounded() {
        let n = MAX_COMMAS_SHOWN + 4;
        let slots: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
        let text = format!("{}=>{}", slots.join(","), slots.join("^"));
        let d = &lints(&text, Some(n))[0];
        assert_eq!(d.code, ErrorCode::Arity);
        assert_eq!(d.related.len(), MAX_COMMAS_SHOWN - 1);
        assert_eq!(d.notes, vec!["3 more `,` before `=>` not shown".to_string()]);
        assert!(d.help[0].starts_with(&format!("did you mean `{}=>", slots.join(";"))));
    }
}
