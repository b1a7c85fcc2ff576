//! The operation graph as a Graphviz picture, written as it is walked.

use std::fmt::Write;

use crate::ids::{StepId, TensorId};
use crate::infer::{Graph, InferError};

use super::names::shape_text;
use super::trace::conflict_of;

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
    // The marks as flags by index: an error's trace can list every step of the program.
    let flags = |n: usize, marked: &mut dyn Iterator<Item = usize>| {
        let mut on = vec![false; n];
        marked.filter(|&i| i < n).for_each(|i| on[i] = true);
        on
    };
    let red_tensors = flags(g.tensor_count(), &mut tensors.iter().map(|t| t.index()));
    let red_steps = flags(g.steps().len(), &mut steps.iter().map(|s| s.index()));
    for (i, &red) in red_tensors.iter().enumerate() {
        let t = g.tensor_at(i);
        let label = format!("{}: {}", g.name_or_id(t), shape_text(g, t));
        let mark = if red { ", color = red, fontcolor = red" } else { "" };
        let _ = writeln!(out, "    {i} [ label = {} {mark}]", quoted(&label));
    }
    for (k, step) in g.steps().iter().enumerate() {
        let label = match step.spec_text() {
            Some(s) => format!("{} {s}", step.op),
            None => step.op.to_string(),
        };
        let mark = if red_steps[k] { ", color = red, fontcolor = red, penwidth = 2" } else { "" };
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

/// The graph of a failed build as a picture, the error's part in red: the steps that carried
/// each conflicting size and the tensors on the way (from the declarations that wrote the
/// sizes); and the failing step, which the graph took back, as a dashed red node with its
/// operands' edges. Call it after [`trace`](super::trace) filled in the sizes' origins.
///
/// ```
/// use einrow::infer::explain::{to_dot_error, trace};
/// use einrow::infer::Graph;
/// let mut g = Graph::new();
/// let a = g.declare("a", Some("2,3"), false)?;
/// let b = g.declare("b", Some("4,5"), false)?;
/// let mut e = g.einsum("ij;jk=>ik", &[a, b]).unwrap_err();
/// trace(&g, &mut e);
/// let dot = to_dot_error(&g, &e);
/// assert!(dot.contains("failed [ label = \"t2 = einsum \\\"ij;jk=>ik\\\" a b\""), "{dot}");
/// assert!(dot.contains("0 -> failed"), "{dot}");
/// # Ok::<(), einrow::infer::InferError>(())
/// ```
pub fn to_dot_error(g: &Graph, e: &InferError) -> String {
    let (mut steps, mut tensors) = (Vec::new(), Vec::new());
    let shape = match e {
        InferError::Shape(s) => Some(s),
        _ => None,
    };
    if let Some(s) = shape {
        steps.extend(s.step.filter(|st| st.index() < g.steps().len()));
        tensors.extend(s.failed_step.iter().flat_map(|(_, args)| args.iter().copied()));
    }
    for side in conflict_of(e).iter().flat_map(|c| c.sides.iter()) {
        if let Some(t) = &side.trace {
            steps.extend(t.hops.iter().map(|h| h.step));
            tensors.extend(t.origin.map(|o| o.tensor));
            tensors.extend(t.hops.iter().map(|h| h.to.tensor));
            tensors.extend(t.at.map(|a| a.tensor));
        }
    }
    let mut out = to_dot_marked(g, &steps, &tensors);
    let failed = shape.and_then(|s| s.failed_step.as_ref().map(|f| (s, f)));
    if let Some((s, (op, args))) = failed {
        out.truncate(out.len() - "}\n".len());
        let label = s.statement.clone().unwrap_or_else(|| format!("{op} (failed)"));
        let mark = "color = red, fontcolor = red, style = dashed";
        let _ = writeln!(out, "    failed [ label = {}, shape = box, {mark} ]", quoted(&label));
        for a in args.iter().filter(|a| a.index() < g.tensor_count()) {
            let _ = writeln!(out, "    {} -> failed [ label = \"{op}\", {mark} ]", a.index());
        }
        out.push_str("}\n");
    }
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
