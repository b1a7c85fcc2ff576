//! Dims as text for messages, with the current bindings substituted (read without changing
//! anything, see `accessors.rs`).

use super::accessors::Peek;
use crate::infer::solve::env::Env;
use crate::infer::solve::subst::Resolved;
use crate::shape::{write_dim, Dim};

impl Env {
    /// A dim as text with the bindings substituted (`2*o`, `3^a`, `$12`, a variable by its
    /// label when it has one), concatenations flattened, cut after
    /// [`crate::shape::SHOW_LIMIT`] characters.
    pub fn show_dim(&self, d: Dim) -> String {
        let mut peek = Peek::new(self);
        let mut out = String::new();
        // An unknown concatenation's value is the node itself: it is written by its parts.
        let value = |d: Dim| match peek.resolve(d) {
            Resolved::Solved(s) => Dim::Solved(s),
            Resolved::Root(v) => Dim::Var(v),
            Resolved::Node(n) => peek.node(n).0,
        };
        let var = |v: crate::ids::DimVar, out: &mut String| match self.dim_name(v) {
            Some(name) => out.push_str(name),
            None => out.push_str(&v.to_string()),
        };
        write_dim(d, &self.exprs, &mut out, value, var);
        out
    }
}
