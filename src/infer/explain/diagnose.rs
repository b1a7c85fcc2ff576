//! Inference errors as [`Diagnostic`]s: the failing statement with carets, and for a
//! dimension mismatch each size's origin and the steps that carried it.

use super::context::Context;
use super::mismatch::{join_and, mismatch_at};
use super::names::{statement, tidy_fact, Settled};
use super::rank::rank_at;
use super::trace::Failing;
use super::unresolved;
use crate::code::{Coded, ErrorCode};
use crate::diagnostic::{Diagnostic, Location};
use crate::infer::error::ShapeError;
use crate::infer::{Graph, InferError, OpKind};
use crate::span::Span;

/// An inference error as a diagnostic. `g` is the graph the error came from (as it was left:
/// a failing step is taken back); `ctx` names lines when the graph was built from a program.
///
/// A dimension mismatch whose sides were [traced](super::trace) names, for each size, the
/// tensor whose declaration writes it and each step that carried it (notes, and related
/// places in order); one at a pointwise or compose step also gives both operands' shapes.
pub fn diagnose(g: &Graph, e: &InferError, ctx: &Context) -> Diagnostic {
    ctx.positioned(diagnose_here(g, e, ctx))
}

/// [`diagnose`] before a case's places get their JSON pointers.
fn diagnose_here(g: &Graph, e: &InferError, ctx: &Context) -> Diagnostic {
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
        None => {
            let d = plain(g, s, ctx, line);
            match (&s.ranks, &failing) {
                (Some(r), Some(f)) => rank_at(g, s, r, ctx, f, d),
                _ if s.code == ErrorCode::Unresolved => unresolved::fixes(g, s, ctx, d),
                _ => d,
            }
        }
    };
    let unplaced = d.primary.as_ref().is_none_or(|p| p.text.is_none() || p.line.is_none());
    if unplaced && !ctx.spec_alone {
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
    d = ctx.positioned_at(d, line, declaration);
    if mismatch.is_none() && s.ranks.is_none() {
        // The solver's facts have no place of their own: they are notes.
        let step_name = |k: usize| ctx.line_name(ctx.step_line(g.step_at(k)), true);
        for c in &s.chain {
            d = d.note(tidy_fact(g, c, &step_name));
        }
    }
    d
}

/// A shape error that is not a traced mismatch: its message, carets under its spec spans (in
/// the statement's line, or in the spec alone).
fn plain(g: &Graph, s: &ShapeError, ctx: &Context, line: Option<usize>) -> Diagnostic {
    let mut message = g.name_ids(&s.message);
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
    let settled = Settled::of(g);
    let shapes: Vec<String> = f
        .args
        .iter()
        .map(|&a| format!("`{}` is {}", g.name_or_id(a), settled.shape_text(g, a)))
        .collect();
    d.note(join_and(&shapes))
}
