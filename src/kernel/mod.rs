//! The strided kernel (work in progress).

mod copy;

pub use copy::gather;
