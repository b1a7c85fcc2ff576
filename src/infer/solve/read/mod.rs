//! Reading the solver's bindings without changing them, and walking substituted rows and
//! shapes: [`accessors`] (the `&self` reads of the graph: dims, rows, shapes, sizes),
//! [`dim_text`] (dims as text for messages), [`row_walk`] (a stored row's substituted value,
//! level by level) and [`shape_walk`] (a tensor's substituted shape, axis by axis).
//!
//! Part of the solver's stage, not above it: the solver's state keeps the root table of
//! [`accessors`], substitution builds rows through [`row_walk`], and the rules write their
//! messages with [`dim_text`].

pub(crate) mod accessors;
pub(crate) mod dim_text;
pub(crate) mod row_walk;
pub(crate) mod shape_walk;
