//! An unresolved dimension or row as a diagnostic that says what would determine it: the
//! declaration that leaves it open, and each step that writes its label (whose operands'
//! declarations, or a size set on the captured label, would fix it).

use super::context::Context;
use crate::diagnostic::{Diagnostic, Role};
use crate::infer::error::ShapeError;
use crate::infer::Graph;
use crate::span::Span;
use crate::spec::ast::{AxisKind, ConcatPart};

/// The most steps named as writing the unknown label.
const MAX_STEPS: usize = 3;

/// Adds to `d` (an `unresolved` error about `s.tensors`) the places and hints that would
/// determine what is unknown.
pub(super) fn fixes(g: &Graph, s: &ShapeError, ctx: &Context, mut d: Diagnostic) -> Diagnostic {
    let Some(&t) = s.tensors.first() else { return d };
    let name = g.name_or_id(t);
    let what = match &s.unknown {
        Some(l) => format!("the size of `{l}`"),
        None => "its axes".to_string(),
    };
    if let Some(line) = ctx.tensor_line(t) {
        let span =
            ctx.decl_shape(line).or_else(|| ctx.line_text(line).map(|l| Span::new(0, l.len())));
        let note = format!("`{name}` is declared here without {what}");
        let place = ctx.at_line(Some(line), span).with_tensor(name.to_string()).with_note(note);
        d = d.related(place.with_role(Role::Origin));
        let at = ctx.line_name(Some(line), false).unwrap_or_default();
        d = d.help(format!("write {what} in `{name}`'s declaration ({at})"));
    }
    let Some(label) = &s.unknown else { return d };
    let mut named = Vec::new();
    for (k, step) in g.steps().iter().enumerate().filter(|(_, st)| st.args.contains(&t)) {
        if named.len() == MAX_STEPS {
            break;
        }
        let Some(spec) = &step.spec else { continue };
        let Some(span) = label_span(&spec.parsed, label) else { continue };
        let st = g.step_at(k);
        let line = ctx.step_line(st);
        let offset = line.and_then(|n| ctx.stmt_spans(n)).and_then(|sp| sp.spec);
        let place = match offset {
            Some(at) => {
                let at = at.start as usize;
                ctx.at_line(line, Some(Span::new(span.start as usize + at, span.end as usize + at)))
            }
            None => crate::diagnostic::Location::in_text(spec.text.as_str(), span),
        };
        let others: Vec<String> = step
            .args
            .iter()
            .filter(|&&a| a != t)
            .map(|&a| format!("`{}`", g.name_or_id(a)))
            .collect();
        let note = match others.is_empty() {
            true => format!("`{label}` is written here"),
            false => format!("`{label}` is written here, with {}", others.join(", ")),
        };
        d = d.related(place.with_tensor(name.to_string()).with_note(note).with_role(Role::Via));
        named.push((line, others));
    }
    for (line, others) in named {
        let at = ctx.line_name(line, true).map(|l| format!(" at {l}")).unwrap_or_default();
        let through = match others.is_empty() {
            true => String::new(),
            false => format!(" through its other operands ({})", others.join(", ")),
        };
        let or = if d.help.is_empty() { "" } else { "or " };
        d = d.help(format!(
            "{or}size `{label}`{at}{through}, or capture `{label}` there and set its size \
             (set_dim)"
        ));
    }
    d
}

/// Where `label` is first written in a spec: as a label, a strided axis's or a kernel's
/// label, or a concatenation's component.
fn label_span(spec: &crate::spec::ast::EinsumSpec, label: &str) -> Option<Span> {
    let slots = spec.rhs.iter().chain([&spec.lhs]);
    for slot in slots {
        for (_, row) in slot.rows() {
            for a in row.axes() {
                let found = match &a.kind {
                    AxisKind::Label(n) => (n.as_str() == label).then_some(a.span),
                    AxisKind::Affine(af) if af.over.as_str() == label => Some(af.over_span),
                    AxisKind::Affine(af) => af
                        .conv
                        .as_ref()
                        .filter(|c| c.kernel.as_str() == label)
                        .map(|c| c.kernel_span),
                    AxisKind::Concat(parts) => parts
                        .iter()
                        .any(|p| matches!(p, ConcatPart::Label(n) if n.as_str() == label))
                        .then_some(a.span),
                    _ => None,
                };
                if found.is_some() {
                    return found;
                }
            }
        }
    }
    None
}
