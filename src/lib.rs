//! einrow: a shape engine for tensor programs.
//!
//! (Crate documentation with a runnable example is written when the public API settles.)

pub mod check;
pub mod code;
pub mod diagnostic;
pub mod formats;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod span;
pub mod spec;

pub use code::{Coded, ErrorCode};
pub use span::Span;
pub mod ids;
pub mod infer;
pub mod shape;
