//! Errors in the names a framework gave: the solver writes tensors by id (`of t3`, knowing
//! no names); an error leaving the graph has them replaced by the tensors' names.

use super::core::Graph;
use crate::infer::InferError;

impl Graph {
    /// `e` with the tensor ids of its message and facts (`of t3`) replaced by the tensors'
    /// names (`` of `x` ``). One pass over each line, whatever the size of the graph.
    pub(crate) fn named(&self, e: InferError) -> InferError {
        self.named_with(e, None)
    }

    /// [`named`](Graph::named), with `pending` the id and name of a result the graph does
    /// not hold yet (a failing step's).
    pub(crate) fn named_with(
        &self,
        mut e: InferError,
        pending: Option<(usize, &str)>,
    ) -> InferError {
        if let InferError::Shape(s) = &mut e {
            s.message = self.name_ids_with(&s.message, pending);
            for fact in &mut s.chain {
                *fact = self.name_ids_with(fact, pending);
            }
        }
        e
    }

    /// `r` with its error [`named`](Graph::named).
    pub(crate) fn named_result<T>(&self, r: Result<T, InferError>) -> Result<T, InferError> {
        r.map_err(|e| self.named(e))
    }

    /// Replaces tensor ids (`of t3`) in a line by the tensors' names in backticks. An id the
    /// graph does not hold (a step taken back) is left as it is.
    pub(crate) fn name_ids(&self, line: &str) -> String {
        self.name_ids_with(line, None)
    }

    fn name_ids_with(&self, line: &str, pending: Option<(usize, &str)>) -> String {
        let name = |i: usize| match pending {
            Some((p, name)) if p == i => Some(name.to_string()),
            _ if i < self.tensor_count() => Some(self.name_or_id(self.tensor_at(i)).to_string()),
            _ => None,
        };
        let mut out = String::with_capacity(line.len());
        let mut rest = line;
        while let Some(at) = rest.find("of t") {
            let (head, tail) = rest.split_at(at + "of t".len());
            let digits = tail.bytes().take_while(u8::is_ascii_digit).count();
            let ends = !tail[digits..].starts_with(|c: char| c.is_alphanumeric() || c == '_');
            let named = tail[..digits].parse::<usize>().ok().and_then(name);
            match named {
                Some(n) if ends => {
                    out.push_str(&head[..head.len() - 1]);
                    out.push('`');
                    out.push_str(&n);
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
}

#[cfg(test)]
mod tests {
    use crate::infer::{Graph, ShapeBuilder};

    #[test]
    fn ids_become_names_and_the_rest_stays() {
        let mut g = Graph::new();
        let x = g.input("x", &ShapeBuilder::new().output([2])).expect("declares");
        let _ = g.pointwise(&[x]).expect("adds");
        assert_eq!(g.name_ids("row of t0 and of t1"), "row of `x` and of `t1`");
        // Not an id: a longer word, an id past the graph, nothing after `t`.
        assert_eq!(g.name_ids("of t0x, of t7, of t, of t"), "of t0x, of t7, of t, of t");
        assert_eq!(g.name_ids(""), "");
        let pending = Some((2, "y"));
        assert_eq!(g.name_ids_with("of t2 of t0", pending), "of `y` of `x`");
    }
}
