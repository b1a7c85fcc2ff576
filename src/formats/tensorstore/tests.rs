//! Data-driven tests of the TensorStore layer.
