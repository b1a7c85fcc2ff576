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
//!
//! Without the `kernel` feature the module holds only the checked size arithmetic that shape
//! code shares ([`numel`], [`check_dim`], [`MAX_DIM`]) and its [`TensorError`].

// The list above names the tensor types; without `kernel` they are absent and its links are
// plain text.
#![cfg_attr(not(feature = "kernel"), allow(rustdoc::broken_intra_doc_links))]

#[cfg(feature = "kernel")]
mod array;
#[cfg(feature = "kernel")]
mod buffer;
#[cfg(feature = "kernel")]
mod complex;
#[cfg(feature = "kernel")]
mod dtype;
#[cfg(feature = "kernel")]
mod element;
mod error;
#[cfg(feature = "kernel")]
pub(crate) mod hugepage;
#[cfg(feature = "kernel")]
mod layout;
#[cfg(feature = "kernel")]
mod named;
#[cfg(feature = "kernel")]
mod overlap;
#[cfg(feature = "kernel")]
mod positions;
#[cfg(feature = "kernel")]
mod promotion;
mod size;
#[cfg(feature = "kernel")]
mod view;

#[cfg(feature = "kernel")]
pub use array::Tensor;
#[cfg(feature = "kernel")]
pub(crate) use buffer::with_buffer;
#[cfg(feature = "kernel")]
pub use buffer::Buffer;
#[cfg(feature = "kernel")]
pub use complex::{Complex, Complex128, Complex64};
#[cfg(feature = "kernel")]
pub use dtype::DType;
#[cfg(feature = "kernel")]
pub use element::Element;
pub use error::TensorError;
#[cfg(feature = "kernel")]
pub use layout::Layout;
#[cfg(feature = "kernel")]
pub use named::{FlattenItem, NamedAxis, NamedView, SliceItem, MAX_LISTED_VALUES};
#[cfg(feature = "kernel")]
pub use overlap::{overlapping_axis, EXACT_OVERLAP_LIMIT};
#[cfg(feature = "kernel")]
pub use positions::{for_each_position, ListNesting};
#[cfg(feature = "kernel")]
pub use promotion::result_type;
pub use size::{address_range, check_dim, numel, row_major, Dims, Strides, MAX_DIM};
#[cfg(feature = "kernel")]
pub use view::{resolve_index, SliceSpec};
