//! A traced dimension mismatch as a diagnostic: carets under both sizes at the failing step,
//! and for each size the declaration (or setting, or computation) it came from and each step
//! that carried it.

use super::context::Context;
use super::names::statement;
use super::trace::Failing;
use crate::code::ErrorCode;
use crate::diagnostic::{Diagnostic, Location, Role};
use crate::ids::TensorId;
use crate::infer::error::{AxisRef, Conflict, Derivation, Hop, SetBy, Side, Trace};
use crate::infer::provenance::{axis_span, RowView};
use crate::infer::source::StmtSpans;
use crate::infer::{Graph, OpKind};
use crate::span::Span;
use crate::spec::ast::AxisKind;

/// Where a side's size shows at the failing step.
fn side_at(side: &Side) -> Option<AxisRef> {
    side.trace.as_ref().and_then(|t| t.at)
}

/// An axis as a reader counts it: `` `x`'s output axis 1 ``.
pub(super) fn axis_words(g: &Graph, a: AxisRef) -> String {
    let shown = RowView::of(g, a.tensor, a.kind).shown(a.axis);
    format!("`{}`'s {} axis {shown}", g.name_or_id(a.tensor), a.kind.name())
}

/// A traced dimension mismatch.
pub(super) fn mismatch_at(
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
        for place in chain(g, ctx, &side.size, t) {
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
            let place = place.with_tensor(name).with_size(&side.size).with_note(&side.size);
            carets.push(place.with_role(Role::Conflict));
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
/// `2048->768`), through `f2` (line 11)`; or from a `set_dim` of a handle; or how a step
/// computed it, and where each size it was computed from came from.
fn summary(g: &Graph, ctx: &Context, side: &Side, t: &Trace) -> String {
    let size = &side.size;
    match origin_words(g, ctx, size, t, false) {
        Some(words) if t.derived.is_some() => words,
        Some(words) => words + &through(g, ctx, t),
        None => {
            let at = side_at(side)
                .map(|a| format!(" in `{}`", g.name_or_id(a.tensor)))
                .unwrap_or_default();
            format!("{size}{at}: no declaration writes it; the steps above infer it")
        }
    }
}

/// `, through `b` (line 4), `c` (line 5)`: the steps that carried a size (nothing without).
fn through(g: &Graph, ctx: &Context, t: &Trace) -> String {
    let via: Vec<String> = t
        .hops
        .iter()
        .map(|h| {
            let to = g.name_or_id(h.to.tensor);
            match ctx.line_name(ctx.step_line(h.step), true) {
                Some(l) => format!("`{to}` ({l})"),
                None => format!("`{to}`"),
            }
        })
        .collect();
    if via.is_empty() {
        String::new()
    } else {
        format!(", through {}", via.join(", "))
    }
}

/// Where a size came from, without the steps that carried it: its declaration, its setting,
/// or its computation; `None` when the walk found none.
fn origin_words(g: &Graph, ctx: &Context, size: &str, t: &Trace, inner: bool) -> Option<String> {
    if let Some(d) = &t.derived {
        return Some(computed_words(g, ctx, size, (d, t), inner));
    }
    let o = t.origin?;
    Some(match &t.setting {
        Some(by) => {
            let from = by.step.map(|st| format!(" captured from `{}`", statement(g, st)));
            format!("{size} comes from set_dim of `{}`{}", by.handle, from.unwrap_or_default())
        }
        None => declared_at(g, ctx, o, size),
    })
}

/// `30 = (32 - 3)/1 + 1 (the output extent of a valid convolution at line 3), where the
/// input extent: 32 comes from `x` (…) and the kernel `k`: 3 comes from `w` (…)`. A size
/// computed from computed sizes says where each of those came from inside its parentheses.
fn computed_words(
    g: &Graph,
    ctx: &Context,
    size: &str,
    (d, t): (&Derivation, &Trace),
    inner: bool,
) -> String {
    let at = match ctx.line_name(ctx.step_line(d.step), true) {
        Some(l) => l,
        None => format!("`{}`", statement(g, d.step)),
    };
    let inputs: Vec<String> = d
        .inputs
        .iter()
        .map(|i| {
            let v = i.value.to_string();
            match origin_words(g, ctx, &v, &i.trace, true) {
                Some(w) => format!("{}: {w}", i.role),
                None => format!("{}: {v}", i.role),
            }
        })
        .collect();
    let carried = through(g, ctx, t);
    let head = format!("{size} = {} ({} at {at}{carried}", d.formula, d.what);
    let nested = inner || d.inputs.iter().any(|i| i.trace.derived.is_some());
    match (inputs.is_empty(), nested) {
        (true, _) => format!("{head})"),
        (false, false) => format!("{head}), where {}", join_and(&inputs)),
        (false, true) => format!("{head}; from {})", join_and(&inputs)),
    }
}

pub(super) fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
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
        // A spec given alone runs on operands given apart: they are given, not declared.
        (None, Some(s)) if ctx.spec_alone => format!(" (given as `{s}`)"),
        (None, Some(s)) => format!(" (declared as `{s}`)"),
        (Some(l), None) => format!(" (declared at {l})"),
        (None, None) => String::new(),
    };
    format!("{size} comes from `{name}`{decl}")
}

/// The related places of one size: its declaration (or the computation that made it, after
/// the places of what it was computed from), then each step that carried it.
fn chain(g: &Graph, ctx: &Context, size: &str, t: &Trace) -> Vec<Location> {
    let mut out = Vec::new();
    let size = size.to_string();
    if let Some(d) = &t.derived {
        for i in &d.inputs {
            out.extend(chain(g, ctx, &i.value.to_string(), &i.trace));
        }
        out.push(computed_place(g, ctx, d, &size));
    } else if let (Some(o), Some(by)) = (t.origin, &t.setting) {
        out.push(set_place(g, o, by, &size).with_role(Role::Origin));
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
                .with_note(note)
                .with_role(Role::Origin),
        );
    }
    for h in &t.hops {
        out.push(hop_place(g, ctx, h, &size).with_role(Role::Via));
    }
    out
}

/// The place of a computation: the strided, convolution or concatenation axis in its step's
/// spec, with the formula.
fn computed_place(g: &Graph, ctx: &Context, d: &Derivation, size: &str) -> Location {
    let line = ctx.step_line(d.step);
    let spec = g.steps().get(d.step.index()).and_then(|s| s.spec_text());
    let offset = line.and_then(|n| ctx.stmt_spans(n)).and_then(|sp| sp.spec);
    let place = match (d.span, offset, spec) {
        (Some(s), Some(at), _) => {
            let at = at.start as usize;
            ctx.at_line(line, Some(Span::new(s.start as usize + at, s.end as usize + at)))
        }
        (Some(s), None, Some(text)) if line.is_none() || ctx.case => Location::in_text(text, s),
        _ => ctx.at_line(line, None),
    };
    let note = format!("{} is {size} = {}, {}", axis_words(g, d.at), d.formula, d.what);
    place
        .with_tensor(g.name_or_id(d.at.tensor))
        .with_size(size)
        .with_note(note)
        .with_role(Role::Via)
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
    if (ctx.program.is_none() || ctx.case) && !ctx.spec_alone {
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
