//! numpy einsum: `numpy.einsum` semantics (results of the default `optimize=False`) on
//! einrow tensors.
//!
//! - `shapes.rs`: shape inference from parsed subscripts ([`crate::spec::parse_numpy`]) and
//!   operand shapes — broadcasting of size-1 dimensions, ellipsis broadcasting, diagonals,
//!   the implicit output — with numpy's errors mapped to crate codes ([`EinsumError`]);
//! - `lower.rs`: one contraction step as a kernel [`Nest`](crate::kernel::Nest);
//! - `path.rs`: the greedy contraction order for three or more operands;
//! - `recent.rs`: the analyses of a thread's last calls (a loop parses its subscripts once);
//! - `einsum.rs`: the public [`einsum`], [`einsum_with`] and [`einsum_shape`];
//! - `timing.rs`: repeated-run timing used by benchmarks.

mod einsum;
mod error;
mod lower;
mod path;
mod recent;
mod shapes;
#[cfg(test)]
mod tests;
mod timing;

pub use einsum::{einsum, einsum_shape, einsum_with};
pub use error::EinsumError;
pub use path::{greedy, Step};
pub use shapes::{analyze, Analysis, Label};
pub use timing::{time_runs, Timing};
