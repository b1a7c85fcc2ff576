//! The shape model: dimensions, rows and shapes, and shape strings ([`parse_shape_string`],
//! described in the [case format](crate::check::format#shared-notations)).

mod dim;
mod exprs;
mod row;
mod text;

pub use dim::{
    write_dim, AffineDim, Basis, BasisTable, ConvPadding, Dim, ExprId, ShowDim, Solved, SHOW_LIMIT,
};
pub use exprs::{DimExprs, FloorConv, CONCAT_FAN};
pub(crate) use row::axes_count;
pub use row::{pushed, Axes, Dims, Row, Shape};
pub use text::{parse_shape_string, rows_text, ShapeStringError, ShapeText, TextAxis, TextRow};
