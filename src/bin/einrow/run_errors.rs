//! `einrow run`'s errors as diagnostics, with carets into the spec: an OCANNL spec's shape
//! error is explained by the graph of its one step (each size traced to its operand), a numpy
//! error points at the label at fault and the operand that fixed the other size.

use einrow::diagnostic::{Diagnostic, Location};
use einrow::infer::explain::{diagnose, trace, Context};
use einrow::infer::{Graph, InferError, OpKind};
use einrow::numpy::EinsumError;
use einrow::project::{operand_name, ProjectError};
use einrow::spec::ast::AxisKind;
use einrow::spec::parse_numpy;
use einrow::{Coded, Span};

/// A diagnostic of any coded error, with no place.
pub fn coded<E: Coded + std::error::Error>(e: E) -> Box<Diagnostic> {
    Box::new(Diagnostic::error(e.code(), with_causes(&e)))
}

/// An error's message followed by each of its causes' (`operand 1 cannot be read as a dense
/// tensor: …`): a wrapping error's own message says only where it happened.
pub fn with_causes(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        text.push_str(": ");
        text.push_str(&c.to_string());
        cause = c.source();
    }
    text
}

/// The operands' shapes as a note: `` `a` (operand 0) is 2,3 and `b` (operand 1) is 4,5 ``.
fn operand_note(shapes: &[&[usize]]) -> String {
    let items: Vec<String> = shapes
        .iter()
        .enumerate()
        .map(|(i, s)| format!("`{}` (operand {i}) is {}", operand_name(i), dims_text(s)))
        .collect();
    match items.as_slice() {
        [] => "no operands".to_string(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Sizes as a shape string writes them (`2,3`; a scalar is empty).
pub fn dims_text(dims: &[usize]) -> String {
    dims.iter().map(usize::to_string).collect::<Vec<_>>().join(",")
}

/// The diagnostic of an OCANNL spec that cannot be planned over operands of `shapes`: its step
/// is built again in a graph (the operands named as in the plan's errors, `a`, `b`, …) so that
/// a mismatch names each size's operand, with carets on the labels.
pub fn ocannl_error(spec: &str, shapes: &[&[usize]], e: ProjectError) -> Box<Diagnostic> {
    let ProjectError::Infer(first) = e else { return coded(e) };
    let mut d = match explain_step(spec, shapes) {
        Some(d) => d,
        None => match &first {
            InferError::Spec { error, .. } => error.to_diagnostic(spec),
            other => Diagnostic::error(other.code(), other.to_string()),
        },
    };
    if !shapes.is_empty() {
        // The explanation's own note of the operands' shapes says the same without their
        // positions: this one takes its place.
        let plain = format!("`{}` is ", operand_name(0));
        d.notes.retain(|n| !n.starts_with(&plain));
        d = d.note(operand_note(shapes));
    }
    Box::new(d)
}

/// The spec's step in a graph of its own, and its error explained (none when it succeeds).
fn explain_step(spec: &str, shapes: &[&[usize]]) -> Option<Diagnostic> {
    let op = match shapes.len() {
        0 => return None,
        1 => OpKind::Permute,
        2 => OpKind::Einsum,
        3 => OpKind::Einsum3,
        _ => OpKind::Concat,
    };
    let mut g = Graph::new();
    let mut args = Vec::with_capacity(shapes.len());
    for (i, s) in shapes.iter().enumerate() {
        args.push(g.declare(&operand_name(i), Some(&dims_text(s)), false).ok()?);
    }
    let mut e = g.add_step(op, &args, Some(spec)).and_then(|_| g.solve()).err()?;
    trace(&g, &mut e);
    let ctx = Context { spec_alone: true, ..Context::default() };
    Some(operands_placed(diagnose(&g, &e, &ctx), spec, shapes))
}

/// Places each unplaced related entry about an operand (a size's origin: the operand as
/// given) at the operand's term of the spec, saying which operand it is and its shape.
fn operands_placed(mut d: Diagnostic, spec: &str, shapes: &[&[usize]]) -> Diagnostic {
    let terms = term_spans(spec);
    for l in d.related.iter_mut().filter(|l| l.text.is_none() && l.span.is_none()) {
        let k = (0..shapes.len()).find(|&k| l.tensor.as_deref() == Some(&*operand_name(k)));
        let Some((k, &span)) = k.and_then(|k| Some((k, terms.get(k)?))) else { continue };
        l.text = Some(spec.to_string());
        l.span = Some(span);
        l.note = format!("{} (operand {k}, given as {})", l.note, dims_text(shapes[k]));
    }
    d
}

/// The byte span of each operand's term of an OCANNL spec: the text before `=>` split at `;`,
/// each without its surrounding spaces.
fn term_spans(spec: &str) -> Vec<Span> {
    let lhs = spec.find("=>").map_or(spec, |i| &spec[..i]);
    let mut spans = Vec::new();
    let mut at = 0;
    for term in lhs.split(';') {
        let start = at + (term.len() - term.trim_start().len());
        let end = at + term.trim_end().len();
        spans.push(Span::new(start, end.max(start)));
        at += term.len() + 1;
    }
    spans
}

/// The diagnostic of a numpy einsum error on subscripts `spec` (with `--optimize`'s text for
/// a path error): carets under the place at fault, and for a size mismatch under the label
/// in the operand that fixed the other size.
pub fn numpy_error(
    spec: &str,
    shapes: &[&[usize]],
    e: EinsumError,
    optimize: (&str, &[Span]),
) -> Box<Diagnostic> {
    let mut d = match &e {
        EinsumError::Spec(s) => s.to_diagnostic(spec),
        EinsumError::Path(p) => {
            let (text, spans) = optimize;
            let p = p.clone().at(spans, Span::new(0, text.len()));
            let d = Diagnostic::error(p.code(), p.to_string());
            match p.span() {
                Some(s) => d.at(Location::in_text(text, s)),
                None => d,
            }
        }
        other => {
            let d = Diagnostic::error(other.code(), other.to_string());
            match other.span() {
                Some(s) => d.at(Location::in_text(spec, s)),
                None => d,
            }
        }
    };
    if let EinsumError::Mismatch { label, earlier, earlier_size, size, .. } = &e {
        if let Some(p) = d.primary.as_mut() {
            p.note = size.to_string();
        }
        if let Some(at) = label_in_term(spec, *earlier, *label) {
            let place = Location::in_text(spec, at).with_note(earlier_size.to_string());
            d = d.related(place);
        }
    }
    let sized = matches!(
        e,
        EinsumError::Mismatch { .. }
            | EinsumError::Rank { .. }
            | EinsumError::Diagonal { .. }
            | EinsumError::EllipsisMismatch { .. }
            | EinsumError::EllipsisDropped { .. }
    );
    if sized {
        let items: Vec<String> = shapes
            .iter()
            .enumerate()
            .map(|(i, s)| format!("operand {i} is {}", dims_text(s)))
            .collect();
        d = d.note(items.join(", "));
    }
    Box::new(d)
}

/// The span of `label` in the input term of operand `k`.
fn label_in_term(spec: &str, k: usize, label: char) -> Option<Span> {
    let parsed = parse_numpy(spec).ok()?;
    let term = parsed.inputs.get(k)?;
    let found = term.axes().find_map(|a| match &a.kind {
        AxisKind::Label(n) if n.as_str().chars().eq([label]) => Some(a.span),
        _ => None,
    });
    found
}
