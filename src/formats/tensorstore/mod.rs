//! TensorStore index spaces: index domains, index transforms, their JSON form, domain
//! alignment and dimension expressions.
//!
//! The behaviour follows TensorStore (google/tensorstore, Python wheel 0.1.86):
//!
//! - [`IndexDomain`] / [`IndexTransform`] are read from and written to TensorStore's JSON
//!   ([`IndexDomain::from_json`], [`IndexTransform::to_json`], or the generic [`from_json`] /
//!   [`to_json`]); the written form is TensorStore's normal form.
//! - [`align_dimensions_to`] / [`align_domain_to`] implement the alignment rules M1, M2,
//!   V1–V4, A1, A2 with the `permute`/`translate`/`broadcast` options ([`AlignOptions`]).
//! - [`DimExpr`] applies one dimension-expression operation (`translate_to`, `stride`,
//!   `oindex`, `diagonal`, ...) to the selected dimensions of a transform.
//!
//! Index arithmetic is checked: an overflow is a bounds error, never a panic.
//!
//! ```
//! use einrow::formats::tensorstore::{DimExpr, DimOp, DimSelector, IndexTransform, PerDim};
//! let t = IndexTransform::from_json(&serde_json::json!({"input_shape": [4, 5]})).unwrap();
//! let expr = DimExpr::new(vec![DimSelector::Index(0)], DimOp::TranslateTo(PerDim::All(Some(10))));
//! let moved = t.apply(&expr).unwrap();
//! assert_eq!(moved.to_json()["input_inclusive_min"], serde_json::json!([10, 0]));
//! ```

mod align;
mod array;
mod compose;
mod dim_ops;
mod domain;
mod error;
mod expr;
mod expr_json;
mod indexing;
mod interval;
mod json;
mod json_read;
mod json_write;
mod locate;
mod permute;
mod select;
mod slice;
mod transform;

#[cfg(test)]
mod proptests;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_align;
#[cfg(test)]
mod tests_expr;

pub use align::{align_dimensions_to, align_domain_to, align_transform_to, AlignOptions};
pub use array::{IndexArray, NdArray, MAX_ARRAY_ELEMENTS};
pub use compose::compose;
pub use domain::{Dim, IndexDomain};
pub use error::{JsonPath, TsError, TsResult};
pub use expr::{DimExpr, DimOp, IndexTerm, IndexVector, PerDim};
pub use expr_json::dim_expr_from_json;
pub use interval::{
    Interval, OptInterval, INF_INDEX, INF_SIZE, MAX_FINITE_INDEX, MAX_RANK, MIN_FINITE_INDEX,
};
pub(crate) use json::byte_offset;
pub use json::{from_json, to_json, JsonForm};
pub use json_read::{
    domain_from_json, transform_from_json, transform_from_json_with_ranks, RankConstraint,
};
pub use json_write::{domain_to_json, transform_to_json};
pub use locate::locate;
pub use select::DimSelector;
pub use slice::{IntervalForm, SliceSpec};
pub use transform::{AxisMap, IndexTransform, OutputMap};
