//! [`GraphId`]: which graph an id or handle belongs to (defined with the ids).

pub use crate::ids::GraphId;
