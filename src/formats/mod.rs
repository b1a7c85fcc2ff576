//! The tensor formats users exchange tensors in: Vespa tensors and TensorStore index spaces.

pub mod convert;
pub mod named;
mod nested;
pub mod roundtrip;
pub mod tensorstore;
pub mod vespa;
