//! TensorStore index domains, transforms, alignment and dimension expressions.
