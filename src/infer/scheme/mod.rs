//! Shape schemes: a graph solved once with chosen row variables kept symbolic (typically the
//! batch), then instantiated for concrete sizes without solving again.
//!
//! # How a scheme is solved
//!
//! The graph is solved as it is, with each symbolic row variable bound to one axis of a size
//! above every size, index and stride the program writes (a prime: no fixed index reads past
//! it, and no message shows it), carrying a basis of its own (a marker: the solver keeps a basis through
//! every equation, broadcast and arithmetic, so each solved axis says whether it came from the
//! variable). Every solved axis is then a size, the variable's axes, or, for an axis computed
//! from one of them (a convolution or strided axis over the batch), an affine function of the
//! variable's size. Two more solves at other marker sizes check that nothing else depends on
//! the size (and fit the affine functions); one solve per variable with two marker axes checks
//! that nothing depends on the variable's rank. A variable some step reads axis by axis (a
//! label, a fixed index, a batch slice) keeps its rank: its instances have exactly one axis.
//!
//! # Instances
//!
//! [`Scheme::instantiate`] substitutes sizes into the stored forms: no solving, a pass over
//! the tensors' axes. Sizes the solution rules out are coded errors: a rank other than a
//! rank-fixed variable's (`rank`), a size a fixed index reads past or that makes a computed
//! axis empty (`bounds`), a size above 2^62 (`value`). Plans of an instance are derived from
//! its sizes (`project::instance_plan`, `project::CompiledGraph::compile_instance`).

mod build;
mod core;
mod form;
mod instance;
mod markers;
#[cfg(feature = "serde")]
mod serde_form;
mod symbolic;

pub use self::core::Scheme;
pub use instance::Instance;
pub use symbolic::{SymDim, SymShape};
