//! Naming things of a graph in messages: tensors by name, shapes as far as solved, steps as
//! statements.

use crate::ids::{StepId, TensorId};
use std::collections::HashSet;

use crate::infer::provenance::{Declared, RowWalk};
use crate::infer::{Graph, Warning};
use crate::spec::ast::RowKind;

/// One fact of an error's chain as a reader reads it: tensors by name, a leading `stepN:` named
/// by `step_name` (a program's `line 7`) when it names it, and the byte ranges into the spec
/// (` (spec 3..5)`) left out: carets show them.
pub fn tidy_fact(g: &Graph, fact: &str, step_name: &dyn Fn(usize) -> Option<String>) -> String {
    let mut s = g.name_ids(fact);
    while let Some(at) = s.find(" (spec ") {
        let Some(end) = s[at..].find(')') else { break };
        s.replace_range(at..at + end + 1, "");
    }
    if let Some(rest) = s.strip_prefix("step") {
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let named = rest[..digits].parse::<usize>().ok().and_then(step_name);
        if let (Some(name), Some(tail)) = (named, rest[digits..].strip_prefix(": ")) {
            s = format!("{name}: {tail}");
        }
    }
    s
}

/// A tensor's shape as far as it is solved, as a shape string writes it: `?` for an axis not
/// solved, `...` for a row still open (`4|512`, `...,?`).
pub fn shape_text(g: &Graph, t: TensorId) -> String {
    let rows = row_texts(g, t);
    crate::shape::rows_text(&rows[0], &rows[1], &rows[2])
}

/// Each row of a tensor's shape as far as it is solved.
fn row_texts(g: &Graph, t: TensorId) -> [String; 3] {
    let shape = g.shape_of(t);
    RowKind::ALL.map(|kind| {
        let row = shape.row(kind);
        let mut items: Vec<String> = Vec::new();
        let size = |g: &Graph, d| g.dim_size(d).map_or("?".to_string(), |n| n.to_string());
        for &d in &row.beg {
            items.push(size(g, d));
        }
        if row.var.is_some() {
            items.push("...".into());
        }
        for &d in &row.dims {
            items.push(size(g, d));
        }
        items.join(",")
    })
}

/// The shapes of a graph as the steps it holds settle them: a copy of the graph solved, where
/// a row still open only because nothing closed it yet (a result's row, which closes to what
/// its operands give) shows its axes; a row or dimension the copy closed by a guess (an
/// input's batch row nothing sizes) still shows as unknown.
pub struct Settled {
    solved: Option<Graph>,
    guessed_rows: HashSet<(TensorId, RowKind)>,
    guessed_dims: HashSet<TensorId>,
}

impl Settled {
    /// The settled shapes of `g` (none, when the copy does not solve either).
    pub fn of(g: &Graph) -> Settled {
        let mut copy = g.fork();
        let solved = copy.solve().is_ok().then_some(copy);
        let (mut guessed_rows, mut guessed_dims) = (Vec::new(), HashSet::new());
        for w in solved.iter().flat_map(Graph::warnings) {
            match w {
                Warning::ClosedRow { tensor, row, .. } => guessed_rows.push((tensor, row)),
                Warning::ClosedDim { tensor, .. } => {
                    guessed_dims.insert(tensor);
                }
                _ => {}
            }
        }
        // The rows still open here that a guessed row reaches close by that guess too.
        let texts = g.recorded_texts();
        let declared = |t: TensorId| texts.declared.get(&t).and_then(|s| Declared::parse(s));
        let guessed_rows = RowWalk::new(g, None, &declared).reach(guessed_rows);
        Settled { solved, guessed_rows, guessed_dims }
    }

    /// A tensor's shape as settled (as far as solved where the copy guessed or failed).
    pub fn shape_text(&self, g: &Graph, t: TensorId) -> String {
        let Some(s) = self.solved.as_ref().filter(|_| !self.guessed_dims.contains(&t)) else {
            return shape_text(g, t);
        };
        let mut rows = row_texts(s, t);
        for kind in RowKind::ALL {
            if self.guessed_rows.contains(&(t, kind)) {
                rows[kind.index()] = row_texts(g, t)[kind.index()].clone();
            }
        }
        crate::shape::rows_text(&rows[0], &rows[1], &rows[2])
    }
}

/// A step as a statement: `c = einsum "ij;jk=>ik" a b`.
pub fn statement(g: &Graph, s: StepId) -> String {
    let Some(step) = g.steps().get(s.index()) else { return s.to_string() };
    let args: Vec<String> = step.args.iter().map(|a| g.name_or_id(*a).to_string()).collect();
    let spec = step.spec_text().map(|t| format!(" \"{t}\"")).unwrap_or_default();
    format!("{} = {}{spec} {}", g.name_or_id(step.out), step.op, args.join(" "))
}

#[cfg(test)]
mod tests {
    use super::tidy_fact;
    use crate::infer::Graph;

    #[track_caller]
    fn check(line: &str, expected: &str) {
        let mut g = Graph::new();
        g.declare("a", Some("2"), false).expect("declares");
        g.declare("b_long", Some("3"), false).expect("declares");
        assert_eq!(g.name_ids(line), expected);
    }

    #[test]
    fn facts_name_steps_and_drop_spec_ranges() {
        let mut g = Graph::new();
        g.declare("a", Some("2"), false).expect("declares");
        let named = |k: usize| (k == 0).then(|| "line 3".to_string());
        let fact = "step0: axis 0 of operand 1's output row of t0 (spec 3..5)";
        assert_eq!(tidy_fact(&g, fact, &named), "line 3: axis 0 of operand 1's output row of `a`");
        let fact = "step1: the result's output row (spec 0..1)";
        assert_eq!(tidy_fact(&g, fact, &named), "step1: the result's output row");
        assert_eq!(tidy_fact(&g, "step", &named), "step");
        assert_eq!(tidy_fact(&g, " (spec 1", &named), " (spec 1");
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
