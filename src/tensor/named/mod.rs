//! The Nervana Graph tensor-description model (ngraph-python `axes.py`): named axes, byte
//! strides, padding and flattened axes, built on [`Layout`](crate::tensor::Layout).
//! The view type and its reports come first, the view operations after.

mod model;
mod ops;

pub use model::{NamedAxis, NamedView, SliceItem, MAX_LISTED_VALUES};
pub use ops::FlattenItem;
