//! Dims as text for messages, with the current bindings substituted (read without changing
//! anything, see `peek.rs`).

use super::env::Env;
use super::peek::Peek;
use super::subst::Resolved;
use crate::shape::{ConvPadding, Dim};

impl Env {
    /// A dim as text with the bindings substituted (`2*o`, `3^a`, `$12`), concatenations
    /// flattened, cut after [`crate::shape::SHOW_LIMIT`] characters.
    pub fn show_dim(&self, d: Dim) -> String {
        let mut peek = Peek::new(self);
        enum Piece {
            Dim(Dim),
            Text(&'static str),
            Number(u64),
        }
        let limit = crate::shape::SHOW_LIMIT;
        let mut out = String::new();
        let mut todo: Vec<Piece> = vec![Piece::Dim(d)];
        while let Some(p) = todo.pop() {
            if out.len() > limit {
                out.push('…');
                break;
            }
            let d = match p {
                Piece::Text(t) => {
                    out.push_str(t);
                    continue;
                }
                Piece::Number(k) => {
                    out.push_str(&k.to_string());
                    continue;
                }
                Piece::Dim(d) => d,
            };
            let value = match peek.resolve(d) {
                Resolved::Solved(s) => Dim::Solved(s),
                Resolved::Root(v) => Dim::Var(v),
                Resolved::Node(n) => match peek.node(n).0 {
                    // An unknown concatenation is listed by its parts.
                    v if v == n.dim() => v,
                    Dim::Concat(c) => {
                        todo.push(Piece::Dim(Dim::Concat(c)));
                        continue;
                    }
                    v => v,
                },
            };
            match value {
                Dim::Solved(s) if s.is_top() => out.push_str("1!"),
                Dim::Solved(s) => out.push_str(&{ s.size }.to_string()),
                Dim::Var(v) => match self.dim_name(v) {
                    Some(name) => out.push_str(name),
                    None => out.push_str(&v.to_string()),
                },
                Dim::Concat(id) => {
                    let parts = self.exprs.parts(id);
                    let shown = &parts[..parts.len().min(limit)];
                    if shown.len() < parts.len() {
                        todo.push(Piece::Text("^…"));
                    }
                    for (i, p) in shown.iter().enumerate().rev() {
                        todo.push(Piece::Dim(*p));
                        if i > 0 {
                            todo.push(Piece::Text("^"));
                        }
                    }
                }
                Dim::Affine(id) => {
                    let a = self.exprs.get_affine(id);
                    if let Some((dil, k, p)) = a.conv {
                        let pad = if p == ConvPadding::Same { "=+" } else { "<+" };
                        todo.extend([Piece::Dim(k), Piece::Text("*"), Piece::Number(dil)]);
                        todo.push(Piece::Text(pad));
                    }
                    if a.offset > 0 {
                        todo.extend([Piece::Number(a.offset), Piece::Text("+")]);
                    }
                    todo.extend([Piece::Dim(a.over), Piece::Text("*"), Piece::Number(a.stride)]);
                }
            }
        }
        out
    }
}
