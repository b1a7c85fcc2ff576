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
        InferError::UnknownTensor { .. } => format!("error[{}]: {e}\n", e.code()),
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

/// Replaces tensor ids (`of t3`) in a line by the tensors' names, in one pass over the line
/// (a graph may hold millions of tensors).
fn name_tensors(graph: Option<&Graph>, line: &str) -> String {
    let Some(g) = graph else { return line.to_string() };
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find("of t") {
        let (head, tail) = rest.split_at(at + "of t".len());
        let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
        let ends = !tail[digits..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
        let id = tail[..digits].parse::<usize>().ok().filter(|&i| i < g.tensor_count());
        match id {
            Some(i) if ends => {
                out.push_str(&head[..head.len() - 1]);
                out.push('`');
                out.push_str(&g.name(crate::ids::TensorId::from_index(i)));
                out.push('`');
                rest = &tail[digits..];
            }
            _ => {
                out.push_str(head);
                rest = tail;
            }
        }
    }
    out.push_str(rest);
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

#[cfg(test)]
mod tests {
    use super::name_tensors;
    use crate::infer::Graph;

    #[track_caller]
    fn check(line: &str, expected: &str) {
        let mut g = Graph::new();
        g.declare("a", Some("2"), false).expect("declares");
        g.declare("b_long", Some("3"), false).expect("declares");
        assert_eq!(name_tensors(Some(&g), line), expected);
        assert_eq!(name_tensors(None, line), line);
    }

    #[test]
    fn tensor_ids_after_of_become_names() {
        check("row of t0", "row of `a`");
        check("of t1, then of t0.", "of `b_long`, then of `a`.");
        // Not tensor ids: unknown ids, longer words, no digits.
        check("of t2 of t12 of t1a of t_ of t of tx", "of t2 of t12 of t1a of t_ of t of tx");
        check("", "");
        check("of t0of t1", "of t0of `b_long`");
    }
}
