//! The solver's variables as ena keys: a dim variable's value is a [`DimVal`], a row
//! variable's a [`RowVal`]. Kept here, not beside the ids, so that `ids` knows nothing of the
//! solver.

use ena::unify::UnifyKey;

use super::env::{DimVal, RowVal};
use crate::ids::{DimVar, RowVar};

impl UnifyKey for DimVar {
    type Value = DimVal;
    fn index(&self) -> u32 {
        self.0
    }
    fn from_index(u: u32) -> Self {
        DimVar(u)
    }
    fn tag() -> &'static str {
        "DimVar"
    }
}

impl UnifyKey for RowVar {
    type Value = RowVal;
    fn index(&self) -> u32 {
        self.0
    }
    fn from_index(u: u32) -> Self {
        RowVar(u)
    }
    fn tag() -> &'static str {
        "RowVar"
    }
}
