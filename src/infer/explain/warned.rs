//! The warnings of a solution ([`Graph::warnings`]) as diagnostics placed at the declaration
//! or statement of the tensor they concern.

use super::context::Context;
use crate::code::ErrorCode;
use crate::diagnostic::{Diagnostic, Lint};
use crate::ids::TensorId;
use crate::infer::source::{decl_spans, stmt_spans};
use crate::infer::{Graph, Warning};
use crate::span::Span;

/// Each warning of `g`'s solution as a warning diagnostic at its tensor's (or step's) line.
/// A label written only in a step's result is left out: the program lint reports it, with
/// the label's span, before anything is solved.
///
/// ```
/// use einrow::infer::explain::{solution_warnings, Context};
/// use einrow::infer::program::Program;
/// let program = Program::parse_text("tensor x: ...|8\ny = pointwise x")?;
/// let built = program.build();
/// let ctx = Context { program: Some(&program), ..Context::default() };
/// let warnings = solution_warnings(&built.graph, &ctx);
/// assert!(warnings[0].message.contains("batch row of `x`"), "{}", warnings[0].message);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn solution_warnings(g: &Graph, ctx: &Context) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for w in g.warnings() {
        let (lint, code, t) = match &w {
            Warning::ParameterBatch { tensor, .. } => {
                (Lint::ParameterBatch, ErrorCode::Rank, *tensor)
            }
            Warning::ClosedRow { tensor, .. } => (Lint::GuessedRank, ErrorCode::Rank, *tensor),
            Warning::ClosedDim { tensor, .. } => {
                (Lint::GuessedSize, ErrorCode::Unresolved, *tensor)
            }
            _ => continue,
        };
        let at = ctx.at_line(ctx.tensor_line(t), tensor_span(ctx, t)).with_tensor(g.name_or_id(t));
        out.push(ctx.positioned(Diagnostic::lint(lint, code, w.to_string()).at(at)));
    }
    out
}

/// Where a tensor is written on its line: a declaration's shape (or its name, without one),
/// a statement's result name.
fn tensor_span(ctx: &Context, t: TensorId) -> Option<Span> {
    let line = ctx.tensor_line(t)?;
    let text = ctx.line_text(line)?;
    match decl_spans(text) {
        Some(d) => Some(d.shape.unwrap_or(d.name)),
        None => stmt_spans(text).map(|s| s.out),
    }
}
