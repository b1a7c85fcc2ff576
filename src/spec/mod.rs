//! Stage 1 — parsing: spec text to a syntax tree with spans.

pub mod ast;
