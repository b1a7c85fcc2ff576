//! The operation graph as a Graphviz picture, written as it is walked.

use std::fmt::Write;

use crate::ids::{StepId, TensorId};
use crate::infer::Graph;

use super::names::shape_text;

/// The operation graph with solved shapes as a Graphviz picture: a node per tensor
/// (`name: shape`), an edge per operand of each step, labelled with the operation.
pub fn to_dot(g: &Graph) -> String {
    to_dot_marked(g, &[], &[])
}

/// [`to_dot`] with some steps and tensors drawn in red: those of an error (the failing step,
/// the steps that carried its sizes, the tensors whose declarations wrote them). Shapes not
/// solved yet show `?` (a graph whose solving failed is drawn as far as it got).
pub fn to_dot_marked(g: &Graph, steps: &[StepId], tensors: &[TensorId]) -> String {
    let mut out = String::from("digraph {\n");
    for i in 0..g.tensor_count() {
        let t = TensorId::from_index(i);
        let label = format!("{}: {}", g.name(t), shape_text(g, t));
        let mark = if tensors.contains(&t) { ", color = red, fontcolor = red" } else { "" };
        let _ = writeln!(out, "    {i} [ label = {} {mark}]", quoted(&label));
    }
    for (k, step) in g.steps().iter().enumerate() {
        let label = match step.spec_text() {
            Some(s) => format!("{} {s}", step.op),
            None => step.op.to_string(),
        };
        let marked = steps.contains(&StepId::from_index(k));
        let mark = if marked { ", color = red, fontcolor = red, penwidth = 2" } else { "" };
        for a in &step.args {
            let _ = writeln!(
                out,
                "    {} -> {} [ label = {} {mark}]",
                a.index(),
                step.out.index(),
                quoted(&label)
            );
        }
    }
    out.push_str("}\n");
    out
}

fn quoted(s: &str) -> String {
    let mut q = String::with_capacity(s.len() + 2);
    q.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            q.push('\\');
        }
        q.push(c);
    }
    q.push('"');
    q
}
