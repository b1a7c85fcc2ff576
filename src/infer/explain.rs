//! Rendering inference errors for people: the message with its code, the failing step's spec
//! with carets under the involved text, and (on request) the chain of constraints.

use super::error::InferError;
use super::graph::Graph;
use crate::code::Coded;
use crate::diagnostic::{render, Label};

/// Renders an error; `graph` supplies the steps' spec texts and tensor names.
pub fn render_error(graph: Option<&Graph>, e: &InferError, explain: bool) -> String {
    match e {
        InferError::Spec { step, spec, error } => {
            let mut labels = vec![Label { span: error.span(), note: String::new() }];
            labels.extend(
                error.related().into_iter().map(|(span, note)| Label { span, note: note.into() }),
            );
            let msg = format!("{step}: {error}");
            render(spec, error.code(), &msg, &labels)
        }
        InferError::Usage { code, message } => format!("error[{code}]: {message}\n"),
        InferError::Shape(s) => {
            let recorded = graph.zip(s.step).and_then(|(g, st)| g.steps().get(st.index()));
            let spec =
                s.spec.clone().or_else(|| recorded.and_then(|st| st.spec_text().map(String::from)));
            let mut out = match &spec {
                Some(text) if !s.spans.is_empty() => {
                    let labels: Vec<Label> =
                        s.spans.iter().map(|sp| Label { span: *sp, note: String::new() }).collect();
                    render(text, s.code, &name_tensors(graph, &s.to_string()), &labels)
                }
                _ => format!("error[{}]: {}\n", s.code, name_tensors(graph, &s.to_string())),
            };
            if let (Some(stmt), Some(st)) = (&s.statement, s.step) {
                out.push_str(&format!("  = in {st}: {stmt}\n"));
            } else if let (Some(g), Some(st)) = (graph, s.step) {
                if let Some(step) = g.steps().get(st.index()) {
                    let args: Vec<crate::spec::ast::Name> =
                        step.args.iter().map(|a| g.name(*a)).collect();
                    out.push_str(&format!(
                        "  = in {st}: {} = {} {}\n",
                        g.name(step.out),
                        step.op,
                        args.join(" ")
                    ));
                }
            }
            if explain {
                for (i, line) in s.chain.iter().enumerate() {
                    out.push_str(&format!("  {}. {}\n", i + 1, name_tensors(graph, line)));
                }
            }
            out
        }
    }
}

/// Replaces tensor ids (`t3`) in a line by the tensors' names.
fn name_tensors(graph: Option<&Graph>, line: &str) -> String {
    let Some(g) = graph else { return line.to_string() };
    let mut out = line.to_string();
    for i in (0..g.tensor_count()).rev() {
        let id = crate::ids::TensorId::from_index(i);
        let pat = format!("of {id}");
        if out.contains(&pat) {
            out = out.replace(&pat, &format!("of `{}`", g.name(id)));
        }
    }
    out
}

/// The operation graph with solved shapes as a Graphviz picture.
pub fn to_dot(g: &mut Graph) -> String {
    let mut pg: petgraph::Graph<String, String> = petgraph::Graph::new();
    let nodes: Vec<_> = (0..g.tensor_count())
        .map(|i| {
            let id = crate::ids::TensorId::from_index(i);
            let shape = g.shape_string(id).unwrap_or_else(|_| "?".into());
            pg.add_node(format!("{}: {}", g.name(id), shape))
        })
        .collect();
    for step in g.steps().to_vec() {
        let label = match step.spec_text() {
            Some(s) => format!("{} {s}", step.op),
            None => step.op.to_string(),
        };
        for a in &step.args {
            pg.add_edge(nodes[a.index()], nodes[step.out.index()], label.clone());
        }
    }
    format!("{}", petgraph::dot::Dot::new(&pg))
}
