//! Inference errors as [`Diagnostic`]s: the failing statement with carets, and for a
//! dimension mismatch each size's origin and the steps that carried it.

use super::context::Context;
use super::names::{name_tensors, shape_text, statement, tidy_fact};
use super::trace::Failing;
use crate::code::{Coded, ErrorCode};
use crate::diagnostic::{Diagnostic, Location};
use crate::ids::TensorId;
use crate::infer::error::{AxisRef, Conflict, Hop, SetBy, ShapeError, Side, Trace};
use crate::infer::provenance::{axis_span, RowView};
use crate::infer::source::StmtSpans;
use crate::infer::{Graph, InferError, OpKind};
use crate::span::Span;
use crate::spec::ast::AxisKind;

/// An inference error as a diagnostic. `g` is the graph the error came from (as it was left:
/// a failing step is taken back); `ctx` names lines when the graph was built from a program.
///
/// A dimension mismatch whose sides were [traced](super::trace) names, for each size, the
/// tensor whose declaration writes it and each step that carried it (notes, and related
/// places in order); one at a pointwise or compose step also gives both operands' shapes.
pub fn diagnose(g: &Graph, e: &InferError, ctx: &Context) -> Diagnostic {
    match e {
        InferError::Spec { step, spec, error } => {
            let line = ctx.line.or_else(|| ctx.step_line(*step));
            let mut d = error.to_diagnostic(spec);
            if ctx.program.is_none() {
                d.message = format!("{step}: {}", d.message);
            }
            let offset = line.and_then(|n| ctx.stmt_spans(n)).and_then(|s| s.spec);
            relocate(d, ctx, line, spec, offset.map(|s| s.start as usize))
        }
        InferError::Usage { .. }
        | InferError::UnknownTensor { .. }
        | InferError::ForeignId { .. }
        | InferError::UnknownStep { .. } => {
            let d = Diagnostic::error(e.code(), e.to_string());
            match ctx.line_name(ctx.line, !ctx.declaration) {
                Some(at) if ctx.case => d.note(format!("at {at}")),
                _ => d.at(ctx.at_line(ctx.line, None)),
            }
        }
        InferError::Shape(s) => shape(g, e, s, ctx),
    }
}

/// Moves the places of a diagnostic about `spec` onto the statement line `line`, where the spec
/// starts at `offset`.
fn relocate(
    mut d: Diagnostic,
    ctx: &Context,
    line: Option<usize>,
    spec: &str,
    offset: Option<usize>,
) -> Diagnostic {
    let on_line = ctx.at_line(line, None);
    for p in d.primary.iter_mut().chain(d.related.iter_mut()) {
        match (&on_line.text, offset) {
            (Some(text), Some(at)) if p.text.as_deref() == Some(spec) => {
                p.span = p.span.map(|s| Span::new(s.start as usize + at, s.end as usize + at));
                p.text = Some(text.clone());
                p.line = on_line.line;
                p.file = on_line.file.clone();
            }
            _ => {}
        }
    }
    if d.primary.as_ref().is_some_and(|p| p.line.is_none()) && ctx.case {
        if let Some(at) = ctx.line_name(line, !ctx.declaration) {
            d = d.note(format!("at {at}"));
        }
    }
    d
}

/// A shape error: the failing statement, its spec spans, and the explanation.
fn shape(g: &Graph, e: &InferError, s: &ShapeError, ctx: &Context) -> Diagnostic {
    // The failing step's line; else (an error of solving the whole graph) the line of the
    // first tensor the error is about.
    let stmt = ctx.line.or_else(|| s.step.and_then(|st| ctx.step_line(st)));
    let decl = stmt.is_none().then(|| s.tensors.first().and_then(|t| ctx.tensor_line(*t)));
    let line = stmt.or(decl.flatten());
    let declaration = ctx.declaration || decl.flatten().is_some();
    let failing = Failing::of(g, e);
    let mismatch = s.conflict.as_deref().filter(|c| c.sides.iter().all(|x| x.trace.is_some()));
    let mut d = match mismatch {
        Some(c) => {
            let spec = s.spec.clone().or_else(|| {
                let step = g.steps().get(s.step?.index())?;
                step.spec_text().map(String::from)
            });
            mismatch_at(g, c, ctx, (line, spec.as_deref()), failing.as_ref())
        }
        None => plain(g, s, ctx, line),
    };
    if d.primary.as_ref().is_none_or(|p| p.text.is_none() || p.line.is_none()) {
        if let Some(stmt) = s.statement.clone().or_else(|| s.step.map(|st| statement(g, st))) {
            d = d.note(format!("in `{stmt}`"));
        }
    }
    if d.primary.as_ref().is_none_or(|p| p.line.is_none()) && ctx.case {
        if let Some(at) = ctx.line_name(line, !declaration) {
            d = d.note(format!("at {at}"));
        }
    }
    if let Some(f) = &failing {
        d = operand_shapes(g, d, f, s.code);
    }
    if mismatch.is_none() {
        let step_name = |k: usize| ctx.line_name(ctx.step_line(g.step_at(k)), true);
        for c in &s.chain {
            d = d.related(Location::default().with_note(tidy_fact(g, c, &step_name)));
        }
    }
    d
}

/// A shape error that is not a traced mismatch: its message, carets under its spec spans (in
/// the statement's line, or in the spec alone).
fn plain(g: &Graph, s: &ShapeError, ctx: &Context, line: Option<usize>) -> Diagnostic {
    let mut message = name_tensors(Some(g), &s.message);
    if ctx.program.is_none() {
        if let Some(st) = s.step {
            message = format!("{st}: {message}");
        }
    }
    let mut d = Diagnostic::error(s.code, message);
    let spec = s
        .spec
        .clone()
        .or_else(|| s.step.and_then(|st| g.steps().get(st.index())?.spec_text().map(String::from)));
    // A spec's spans go into its statement; a declared shape's into its declaration.
    let offset =
        line.and_then(|n| ctx.stmt_spans(n).and_then(|sp| sp.spec).or_else(|| ctx.decl_shape(n)));
    let on_line = ctx.at_line(line, None);
    let primary = match (&spec, offset, &on_line.text) {
        (Some(_), Some(at), Some(_)) => {
            let at = at.start as usize;
            let shift = |sp: &Span| Span::new(sp.start as usize + at, sp.end as usize + at);
            for extra in s.spans.iter().skip(1) {
                d = d.related(Location { span: Some(shift(extra)), ..on_line.clone() });
            }
            Location { span: s.spans.first().map(shift), ..on_line }
        }
        (Some(text), _, _) if !s.spans.is_empty() => {
            for extra in s.spans.iter().skip(1) {
                d = d.related(Location::in_text(text, *extra));
            }
            Location::in_text(text, s.spans[0])
        }
        _ => on_line,
    };
    d.primary = Some(primary);
    d
}

/// Both (every) operand's shape, as a note, for an error at a pointwise or compose step, or a
/// rank error.
fn operand_shapes(g: &Graph, d: Diagnostic, f: &Failing, code: ErrorCode) -> Diagnostic {
    let both = matches!(f.op, OpKind::Pointwise | OpKind::Compose) || code == ErrorCode::Rank;
    if !both || f.args.len() < 2 {
        return d;
    }
    let shapes: Vec<String> =
        f.args.iter().map(|&a| format!("`{}` is {}", g.name_or_id(a), shape_text(g, a))).collect();
    d.note(join_and(&shapes))
}

fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// Where a side's size shows at the failing step.
fn side_at(side: &Side) -> Option<AxisRef> {
    side.trace.as_ref().and_then(|t| t.at)
}

/// An axis as a reader counts it: `` `x`'s output axis 1 ``.
fn axis_words(g: &Graph, a: AxisRef) -> String {
    let shown = RowView::of(g, a.tensor, a.kind).shown(a.axis);
    format!("`{}`'s {} axis {shown}", g.name_or_id(a.tensor), a.kind.name())
}

/// A traced dimension mismatch.
fn mismatch_at(
    g: &Graph,
    c: &Conflict,
    ctx: &Context,
    (line, spec): (Option<usize>, Option<&str>),
    f: Option<&Failing>,
) -> Diagnostic {
    let [a, b] = &c.sides;
    let label = a.label.clone().or_else(|| b.label.clone());
    let bases = if a.value == b.value { " (different bases)" } else { "" };
    let message = match (label.as_deref(), side_at(a), side_at(b)) {
        (Some(l), Some(x), Some(y)) => format!(
            "dimension mismatch{bases}: `{l}` is {} in `{}` but {} in `{}`",
            a.size,
            g.name_or_id(x.tensor),
            b.size,
            g.name_or_id(y.tensor)
        ),
        (_, Some(x), Some(y)) => {
            let (wx, wy) = (axis_words(g, x), axis_words(g, y));
            format!("dimension mismatch{bases}: {wx} is {} but {wy} is {}", a.size, b.size)
        }
        _ => format!("dimension mismatch{bases}: {} vs {}", a.size, b.size),
    };
    let mut d = Diagnostic::error(ErrorCode::Mismatch, message);
    let mut on_line = ctx.at_line(line, None);
    if on_line.text.is_none() {
        if let Some(text) = spec {
            on_line = Location::in_text(text, Span::point(0));
        }
    }
    let carets =
        carets(g, [a, b], (label.as_deref(), f), &on_line, ctx.stmt_spans(line.unwrap_or(0)));
    let mut carets = carets.into_iter();
    d.primary = Some(carets.next().unwrap_or_else(|| Location { span: None, ..on_line.clone() }));
    for place in carets {
        d = d.related(place);
    }
    for side in [a, b] {
        let Some(t) = &side.trace else { continue };
        d = d.note(summary(g, ctx, side, t));
        for place in chain(g, ctx, side, t) {
            d = d.related(place);
        }
    }
    d
}

/// Carets under where each size shows at the failing step: its label in the spec, or the
/// operand's name in the statement (`spans`); each place on `on_line`, with its tensor and size.
fn carets(
    g: &Graph,
    sides: [&Side; 2],
    (label, f): (Option<&str>, Option<&Failing>),
    on_line: &Location,
    spans: Option<StmtSpans>,
) -> Vec<Location> {
    let mut carets: Vec<Location> = Vec::new();
    for side in sides {
        let Some((at, f)) = side_at(side).zip(f) else { continue };
        let sp = spans.as_ref();
        let k = f.args.iter().position(|&t| t == at.tensor);
        let in_spec = label.zip(k).and_then(|(l, k)| label_span(f, k, l));
        let span = match (in_spec, sp.map(|sp| sp.spec)) {
            (Some(s), Some(Some(at))) => {
                let at = at.start as usize;
                Some(Span::new(s.start as usize + at, s.end as usize + at))
            }
            // No line to point into: the spec alone.
            (Some(s), None) => Some(s),
            _ => k.and_then(|k| sp?.args.get(k).copied()),
        };
        if let Some(span) = span.filter(|s| !carets.iter().any(|c| c.span == Some(*s))) {
            let place = Location { span: Some(span), ..on_line.clone() };
            let name = g.name_or_id(at.tensor);
            carets.push(place.with_tensor(name).with_size(&side.size).with_note(&side.size));
        }
    }
    carets
}

/// The span of `label` in operand slot `k` of the failing step's spec.
fn label_span(f: &Failing, k: usize, label: &str) -> Option<Span> {
    if let Some(spec) = &f.einsum {
        let slot = spec.rhs.get(k)?;
        let axes = slot.rows().flat_map(|(_, r)| r.axes());
        return axes
            .filter(|a| matches!(&a.kind, AxisKind::Label(n) if n == label))
            .map(|a| a.span)
            .next();
    }
    let term = f.numpy.as_ref()?.inputs.get(k)?;
    term.axes()
        .filter(|a| matches!(&a.kind, AxisKind::Label(n) if n == label))
        .map(|a| a.span)
        .next()
}

/// One line on where a size came from: `768 comes from `w2` (declared at line 8 as
/// `2048->768`), through `f2` (line 11)`; or from a `set_dim` of a handle.
fn summary(g: &Graph, ctx: &Context, side: &Side, t: &Trace) -> String {
    let size = &side.size;
    let Some(o) = t.origin else {
        let at =
            side_at(side).map(|a| format!(" in `{}`", g.name_or_id(a.tensor))).unwrap_or_default();
        return format!("{size}{at}: no declaration writes it; the steps above infer it");
    };
    let mut out = match &t.setting {
        Some(by) => {
            let from = by.step.map(|st| format!(" captured from `{}`", statement(g, st)));
            format!("{size} comes from set_dim of `{}`{}", by.handle, from.unwrap_or_default())
        }
        None => declared_at(g, ctx, o, size),
    };
    let via: Vec<String> = t
        .hops
        .iter()
        .map(|h| {
            let to = g.name_or_id(h.to.tensor);
            match ctx.line_name(ctx.step_line(h.step), true) {
                Some(l) => format!("`{to}` ({l})"),
                None => format!("`{to}` ({})", h.step),
            }
        })
        .collect();
    if !via.is_empty() {
        out.push_str(&format!(", through {}", via.join(", ")));
    }
    out
}

/// `768 comes from `w2` (declared at line 8 as `2048->768`)`.
fn declared_at(g: &Graph, ctx: &Context, o: AxisRef, size: &str) -> String {
    let name = g.name_or_id(o.tensor);
    let line = ctx.line_name(ctx.tensor_line(o.tensor), false);
    let shape = ctx
        .program
        .and_then(|p| p.decls.get(o.tensor.index()))
        .and_then(|d| d.shape.clone())
        .or_else(|| g.recorded_texts().declared.get(&o.tensor).map(|s| s.to_string()));
    let decl = match (line, shape) {
        (Some(l), Some(s)) => format!(" (declared at {l} as `{s}`)"),
        (None, Some(s)) => format!(" (declared as `{s}`)"),
        (Some(l), None) => format!(" (declared at {l})"),
        (None, None) => String::new(),
    };
    format!("{size} comes from `{name}`{decl}")
}

/// The related places of one size: its declaration, then each step that carried it.
fn chain(g: &Graph, ctx: &Context, side: &Side, t: &Trace) -> Vec<Location> {
    let mut out = Vec::new();
    let size = side.size.clone();
    if let (Some(o), Some(by)) = (t.origin, &t.setting) {
        out.push(set_place(g, o, by, &size));
    } else if let Some(o) = t.origin {
        let line = ctx.tensor_line(o.tensor);
        let span = match (line.and_then(|n| ctx.decl_shape(n)), t.origin_span) {
            (Some(shape), Some(s)) => Some(Span::new(
                shape.start as usize + s.start as usize,
                shape.start as usize + s.end as usize,
            )),
            _ => None,
        };
        let words = axis_words(g, o);
        let note = format!("{size} is written here, as {words}");
        out.push(
            ctx.at_line(line, span)
                .with_tensor(g.name_or_id(o.tensor))
                .with_size(size.clone())
                .with_note(note),
        );
    }
    for h in &t.hops {
        out.push(hop_place(g, ctx, h, &size));
    }
    out
}

/// The place of a setting: the captured label (or row variable) in its step's spec, with a
/// caret.
fn set_place(g: &Graph, o: AxisRef, by: &SetBy, size: &str) -> Location {
    let step = by.step.and_then(|st| g.steps().get(st.index()));
    let spec = step.and_then(|s| s.spec.as_ref());
    let span = spec.and_then(|sp| {
        let slots = sp.parsed.rhs.iter().chain([&sp.parsed.lhs]);
        let mut rows = slots.flat_map(|slot| slot.rows());
        rows.find_map(|(kind, row)| {
            let label = row.axes().find_map(|a| match &a.kind {
                AxisKind::Label(n) if n.as_str() == by.handle => Some(a.span),
                _ => None,
            });
            let var = row.ellipsis.as_ref().filter(|e| e.var_name(kind) == by.handle);
            label.or(var.map(|e| e.span))
        })
    });
    let place = match (spec, span) {
        (Some(sp), Some(span)) => Location::in_text(sp.text.as_str(), span),
        _ => Location::default(),
    };
    let words = axis_words(g, o);
    let from = by.step.map(|st| format!(" captured from `{}`", statement(g, st)));
    let note = format!(
        "{size} is set here by set_dim of `{}`{}, as {words}",
        by.handle,
        from.unwrap_or_default()
    );
    place.with_tensor(g.name_or_id(o.tensor)).with_size(size).with_note(note)
}

/// The place of one hop: the step's statement, a caret under the operand the size came from
/// (or went to).
fn hop_place(g: &Graph, ctx: &Context, h: &Hop, size: &str) -> Location {
    let line = ctx.step_line(h.step);
    let args: Vec<TensorId> =
        g.steps().get(h.step.index()).map(|s| s.args.to_vec()).unwrap_or_default();
    let spans = line.and_then(|n| ctx.stmt_spans(n));
    let operand = |t: TensorId| args.iter().position(|&a| a == t);
    let (from, to) = (axis_words(g, h.from), axis_words(g, h.to));
    let mut note = format!("{to} gets {size} from {from}");
    if ctx.program.is_none() || ctx.case {
        note.push_str(&format!(" in `{}`", statement(g, h.step)));
    }
    // In a spec, the caret goes under what carries the size (its label, or the row
    // variable); else under the operand it came from (or went to).
    let in_spec = spec_caret(g, h);
    let place = match (in_spec, &spans) {
        (Some((_, at)), Some(sp)) if sp.spec.is_some() => {
            let shift = sp.spec.map_or(0, |s| s.start as usize);
            let span = Span::new(at.start as usize + shift, at.end as usize + shift);
            ctx.at_line(line, Some(span))
        }
        (Some((text, at)), _) if line.is_none() || ctx.case => Location::in_text(&text, at),
        _ => {
            let k = operand(h.from.tensor).or_else(|| operand(h.to.tensor));
            let span =
                spans.and_then(|sp| k.and_then(|k| sp.args.get(k).copied()).or(Some(sp.out)));
            ctx.at_line(line, span)
        }
    };
    place.with_tensor(g.name_or_id(h.to.tensor)).with_size(size).with_note(note)
}

/// Where a hop's step writes the size in its spec: the text of the spec and the span of the
/// label (or row variable) of the operand the size came from, or of the result it went to.
fn spec_caret(g: &Graph, h: &Hop) -> Option<(String, Span)> {
    let step = g.steps().get(h.step.index())?;
    let operand = |t: TensorId| step.args.iter().position(|&a| a == t);
    let (k, a) = match (operand(h.from.tensor), operand(h.to.tensor)) {
        (Some(k), _) => (Some(k), h.from),
        (None, Some(k)) => (Some(k), h.to),
        _ if h.to.tensor == step.out => (None, h.to),
        _ => (None, h.from),
    };
    if let Some(spec) = &step.spec {
        let slot = match k {
            Some(k) => spec.parsed.rhs.get(k)?,
            None => &spec.parsed.lhs,
        };
        let span = axis_span(g, slot.row(a.kind)?, a)?;
        return Some((spec.text.to_string(), span));
    }
    if step.op != OpKind::Numpy {
        return None;
    }
    let text = g.recorded_texts().numpy.remove(&h.step)?;
    let np = crate::spec::parse_numpy(&text).ok()?;
    let term = match k {
        Some(k) => np.inputs.get(k)?,
        None => np.output.as_ref()?,
    };
    let span = axis_span(g, term, a)?;
    Some((text, span))
}
