//! einrow: a shape engine for tensor programs.
//!
//! (Crate documentation with a runnable example is written when the public API settles.)

pub mod check;
pub mod code;
pub mod diagnostic;
pub mod formats;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod kernel;
pub mod numpy;
pub mod span;
pub mod spec;
pub mod tensor;

pub use code::{Coded, ErrorCode};
pub use numpy::einsum;
pub use span::Span;
pub mod ids;
pub mod infer;
pub mod project;
pub mod shape;
