//! Rendering inference errors as text.

use super::context::Context;
use super::diagnose::diagnose;
use crate::infer::{Graph, InferError};

/// Renders an error as text: the message with its code, the failing step's spec with carets,
/// where each size came from; with `explain`, every place of the explanation in order (see
/// [`Diagnostic::render_text`](crate::diagnostic::Diagnostic::render_text)). `graph` supplies
/// the steps' specs and tensor names; without a program, steps are named by number (`step2`).
pub fn render_error(graph: Option<&Graph>, e: &InferError, explain: bool) -> String {
    match graph {
        Some(g) => diagnose(g, e, &Context::default()).render_text(explain),
        None => diagnose(&Graph::new(), e, &Context::default()).render_text(explain),
    }
}
