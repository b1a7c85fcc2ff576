//! einrow's tensor type: strided views over shared, immutable buffers.
//!
//! - [`Layout`]: shape + strides (in elements, `isize`) + offset, with view operations
//!   (permute, transpose, slice with any step, index, broadcast, diagonal, reshape when the
//!   strides compose) and contiguity checks. All size arithmetic is checked (dims ≤ 2^62).
//! - [`Tensor`]: a layout over a [`Buffer`] of one storage [`DType`] (numpy's bool, int8,
//!   uint8, int16, int32, int64, float16, float32, float64, complex64, complex128, and
//!   bfloat16). Views share the buffer; operations that cannot be views (a non-contiguous
//!   flatten) copy.
//! - [`Element`]: the storage element types and numpy's casts between them;
//!   [`result_type`]: numpy's type promotion ([`DType::promote`] keeps Vespa's).
//! - [`NamedView`]: the Nervana Graph tensor-description model (named axes, byte strides,
//!   padding, flattened axes) built on a layout.
//! - `hugepage`: constructors for large fresh buffers, advised to use transparent huge pages.

mod array;
mod buffer;
mod complex;
mod dtype;
mod element;
mod error;
pub(crate) mod hugepage;
mod layout;
mod named;
mod overlap;
mod positions;
mod promotion;
mod size;
mod view;

pub use array::Tensor;
pub use buffer::Buffer;
pub use complex::{Complex, Complex128, Complex64};
pub use dtype::DType;
pub use element::Element;
pub use error::TensorError;
pub use layout::Layout;
pub use named::{FlattenItem, NamedAxis, NamedView, SliceItem, MAX_LISTED_VALUES};
pub use overlap::{overlapping_axis, EXACT_OVERLAP_LIMIT};
pub use positions::{for_each_position, ListNesting};
pub use promotion::result_type;
pub use size::{address_range, check_dim, numel, row_major, Dims, Strides, MAX_DIM};
pub use view::{resolve_index, SliceSpec};
