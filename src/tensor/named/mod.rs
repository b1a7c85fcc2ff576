//! The Nervana Graph tensor-description model (ngraph-python `axes.py`): named axes, byte
//! strides, padding and flattened axes, built on [`Layout`](crate::tensor::Layout).
//! `model.rs` holds the view type and its reports, `ops.rs` the view operations.

mod model;
mod ops;

pub use model::{NamedAxis, NamedView, SliceItem, MAX_LISTED_VALUES};
pub use ops::FlattenItem;
