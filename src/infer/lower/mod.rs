//! Turning operations and specs into constraints: the rules of each operation kind
//! ([`rules`]), spec slots elaborated into rows ([`elaborate`]), numpy's einsum ([`numpy`]),
//! and a spec step's solution read off solved operands without a graph ([`bindings`]).

pub(crate) mod bindings;
pub(crate) mod elaborate;
pub(crate) mod numpy;
pub(crate) mod rules;
