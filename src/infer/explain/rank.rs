//! A rank conflict as a diagnostic: which row (or pattern) of the failing step has each
//! length, and for each row the declaration that wrote a row of that length and the steps
//! that carried it.

use super::context::Context;
use super::mismatch::join_and;
use super::trace::Failing;
use crate::diagnostic::{Diagnostic, Location, Role};
use crate::ids::TensorId;
use crate::infer::error::{RankConflict, ShapeError};
use crate::infer::provenance::{Declared, RowRef, RowTrace, RowView, RowWalk};
use crate::infer::Graph;
use crate::shape::axes_count as axes;
use crate::span::Span;
use crate::spec::ast::RowKind;

/// The rows of the failing step (operands, then the result) that are closed with `len` axes.
fn rows_of_len(g: &Graph, f: &Failing, len: usize) -> Vec<RowRef> {
    // A failing step's result is taken back: it has no rows to show.
    let there = |t: &TensorId| t.index() < g.tensor_count();
    let tensors = f.args.iter().copied().chain(f.out).filter(there);
    let mut out = Vec::new();
    for t in tensors {
        for kind in RowKind::ALL {
            let v = RowView::of(g, t, kind);
            if !v.is_open() && v.len() == len && !out.contains(&(t, kind)) {
                out.push((t, kind));
            }
        }
    }
    out
}

/// The row of each side: the row the failing constraint is about on the side of its length
/// (an open row on a pattern's side), and a row of the other length of the same kind in
/// another tensor of the step (none when the other side is the step's spec itself); without
/// the constraint's row, rows of the two lengths of one kind in two tensors.
fn sides(g: &Graph, f: &Failing, r: &RankConflict) -> [Option<RowRef>; 2] {
    let found = r.lengths.map(|len| rows_of_len(g, f, len));
    if let Some(row) = r.row.filter(|row| row.0.index() < g.tensor_count()) {
        let v = RowView::of(g, row.0, row.1);
        let i = (0..2).find(|&i| r.patterns[i] == v.is_open() && v.len() == r.lengths[i]);
        if let Some(i) = i {
            let var = slot_var(f, row);
            let partner = |x: &&RowRef| {
                let shared = var.is_some() && slot_var(f, **x) == var;
                x.1 == row.1 && x.0 != row.0 && (f.einsum.is_none() || shared)
            };
            let other = found[1 - i].iter().find(partner).copied();
            let mut out = [None, None];
            out[i] = Some(row);
            out[1 - i] = other.filter(|_| !r.patterns[1 - i]);
            return out;
        }
    }
    let [a, b] = &found;
    for &x in a {
        for &y in b {
            if x.1 == y.1 && x.0 != y.0 && !r.patterns[0] && !r.patterns[1] {
                return [Some(x), Some(y)];
            }
        }
    }
    [None, None]
}

/// The row variable the failing step's spec writes in the slot row of `row` (none for a step
/// without a spec, the result, or a slot row without one).
fn slot_var(f: &Failing, row: RowRef) -> Option<String> {
    let k = f.args.iter().position(|&a| a == row.0)?;
    let slot = f.einsum.as_ref()?.rhs.get(k)?;
    let e = slot.row(row.1)?.ellipsis.as_ref()?;
    Some(e.var_name(row.1).to_string())
}

fn row_words(g: &Graph, (t, kind): RowRef) -> String {
    format!("`{}`'s {} row", g.name_or_id(t), kind.name())
}

/// The diagnostic of a rank conflict at the failing step `f`, from the plain one `d` (its
/// message and carets): both sides named, each row's length traced to its declaration.
pub(super) fn rank_at(
    g: &Graph,
    s: &ShapeError,
    r: &RankConflict,
    ctx: &Context,
    f: &Failing,
    mut d: Diagnostic,
) -> Diagnostic {
    let rows = sides(g, f, r);
    let words: Vec<String> = (0..2)
        .map(|i| match rows[i] {
            Some(row) => format!("{} has {}", row_words(g, row), axes(r.lengths[i])),
            None if r.patterns[i] => {
                format!("the spec needs at least {} there", axes(r.lengths[i]))
            }
            None => format!("the spec writes {} there", axes(r.lengths[i])),
        })
        .collect();
    if rows.iter().any(Option::is_some) {
        d.message = format!("rank mismatch: {} but {}", words[0], words[1]);
    }
    let texts = g.recorded_texts();
    let declared = |t| texts.declared.get(&t).and_then(|s| Declared::parse(s));
    let walk = RowWalk::new(g, s.step.filter(|st| st.index() < g.steps().len()), &declared);
    let line = d.primary.as_ref().and_then(|p| p.line);
    let spans = line.and_then(|n| ctx.stmt_spans(n));
    for (i, row) in rows.iter().enumerate() {
        let Some(row) = *row else {
            // The spec's side: the primary caret is under its slot.
            let at_least = if r.patterns[i] { "at least " } else { "" };
            if let Some(p) = d.primary.as_mut().filter(|p| p.note.is_empty()) {
                p.note = format!("{at_least}{}", axes(r.lengths[i]));
            }
            continue;
        };
        let len = r.lengths[i];
        // A caret under the operand whose row it is.
        let k = f.args.iter().position(|&a| a == row.0);
        if let (Some(k), Some(sp)) = (k, &spans) {
            if let Some(&span) = sp.args.get(k) {
                let place = ctx.at_line(line, Some(span)).with_tensor(g.name_or_id(row.0));
                d = d.related(place.with_note(axes(len)).with_role(Role::Conflict));
            }
        }
        let t = walk.origin(row, len);
        d = d.note(summary(g, ctx, row, len, &t));
        for place in chain(g, ctx, &declared, len, &t) {
            d = d.related(place);
        }
    }
    d
}

/// `3 axes come from `pos2` (declared at line 1 as `5,6,8`), through `a` (line 4)`.
fn summary(g: &Graph, ctx: &Context, row: RowRef, len: usize, t: &RowTrace) -> String {
    let Some(o) = t.origin else {
        return format!(
            "{} has {}: no declaration writes a row of that length; the steps above infer it",
            row_words(g, row),
            axes(len)
        );
    };
    let line = ctx.line_name(ctx.tensor_line(o.0), false);
    let shape = ctx
        .program
        .and_then(|p| p.decls.get(o.0.index()))
        .and_then(|d| d.shape.clone())
        .or_else(|| g.recorded_texts().declared.get(&o.0).map(|s| s.to_string()));
    let decl = match (line, shape) {
        (Some(l), Some(s)) => format!(" (declared at {l} as `{s}`)"),
        // A spec given alone runs on operands given apart: they are given, not declared.
        (None, Some(s)) if ctx.spec_alone => format!(" (given as `{s}`)"),
        (None, Some(s)) => format!(" (declared as `{s}`)"),
        _ => String::new(),
    };
    let verb = if len == 1 { "comes" } else { "come" };
    let (n, of, from) = (axes(len), row_words(g, row), g.name_or_id(o.0));
    let mut out = format!("{n} of {of} {verb} from `{from}`{decl}");
    let via: Vec<String> = t
        .hops
        .iter()
        .map(|h| {
            let to = g.name_or_id(h.to.0);
            match ctx.line_name(ctx.step_line(h.step), true) {
                Some(l) => format!("`{to}` ({l})"),
                None => format!("`{to}`"),
            }
        })
        .collect();
    if !via.is_empty() {
        out.push_str(&format!(", through {}", join_and(&via)));
    }
    out
}

/// The related places of one row's length: the declared row, then each step that carried it.
fn chain(
    g: &Graph,
    ctx: &Context,
    declared: &dyn Fn(crate::ids::TensorId) -> Option<Declared>,
    len: usize,
    t: &RowTrace,
) -> Vec<Location> {
    let mut out = Vec::new();
    let Some(o) = t.origin else { return out };
    let line = ctx.tensor_line(o.0);
    let span =
        match (line.and_then(|n| ctx.decl_shape(n)), declared(o.0).and_then(|d| d.row_span(o.1))) {
            (Some(shape), Some(s)) => Some(Span::new(
                shape.start as usize + s.start as usize,
                shape.start as usize + s.end as usize,
            )),
            _ => None,
        };
    let note = format!("{} written here, as {}", axes(len), row_words(g, o));
    let origin = ctx.at_line(line, span).with_tensor(g.name_or_id(o.0)).with_note(note);
    out.push(origin.with_role(Role::Origin));
    for h in &t.hops {
        let line = ctx.step_line(h.step);
        let spans = line.and_then(|n| ctx.stmt_spans(n));
        let args = g.steps().get(h.step.index()).map(|s| s.args.to_vec()).unwrap_or_default();
        let k = args.iter().position(|&a| a == h.from.0 || a == h.to.0);
        let span = spans.and_then(|sp| k.and_then(|k| sp.args.get(k).copied()).or(Some(sp.out)));
        let note =
            format!("{} gets {} from {}", row_words(g, h.to), axes(len), row_words(g, h.from));
        let place = ctx.at_line(line, span).with_tensor(g.name_or_id(h.to.0)).with_note(note);
        out.push(place.with_role(Role::Via));
    }
    out
}
