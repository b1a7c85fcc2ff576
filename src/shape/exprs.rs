//! [`DimExprs`]: the table that holds affine and concatenation dims, so that a [`Dim`] is a
//! small `Copy` value.
//!
//! Expressions are hash-consed: one structure gets one [`ExprId`], so two dims are equal exactly
//! when their ids are (the parts of an expression are dims too, canonical by induction).
//! Strided, convolution and concatenation axes are rare, and each distinct one is stored once.

use std::collections::HashMap;

use super::dim::{AffineDim, Dim, ExprId};

/// Affine and concatenation dims, interned.
#[derive(Clone, Debug, Default)]
pub struct DimExprs {
    affine: Vec<AffineDim>,
    affine_ids: HashMap<AffineDim, ExprId>,
    concat: Vec<Box<[Dim]>>,
    concat_ids: HashMap<Box<[Dim]>, ExprId>,
}

fn next_id(len: usize) -> ExprId {
    ExprId(u32::try_from(len).unwrap_or(u32::MAX))
}

impl DimExprs {
    /// The affine dim with this structure (no simplification).
    pub fn affine(&mut self, a: AffineDim) -> Dim {
        if let Some(&id) = self.affine_ids.get(&a) {
            return Dim::Affine(id);
        }
        let id = next_id(self.affine.len());
        self.affine.push(a);
        self.affine_ids.insert(a, id);
        Dim::Affine(id)
    }

    /// The concatenation of these parts (no simplification).
    pub fn concat(&mut self, parts: &[Dim]) -> Dim {
        if let Some(&id) = self.concat_ids.get(parts) {
            return Dim::Concat(id);
        }
        let id = next_id(self.concat.len());
        self.concat.push(parts.into());
        self.concat_ids.insert(parts.into(), id);
        Dim::Concat(id)
    }

    /// The structure of an affine dim of this table. An id from elsewhere reads as the
    /// identity `1*0`, never as a panic.
    pub fn get_affine(&self, id: ExprId) -> AffineDim {
        self.affine.get(id.0 as usize).copied().unwrap_or(AffineDim {
            stride: 1,
            over: Dim::size(0),
            offset: 0,
            conv: None,
        })
    }

    /// The parts of a concatenation of this table (none for an id from elsewhere).
    pub fn parts(&self, id: ExprId) -> &[Dim] {
        self.concat.get(id.0 as usize).map_or(&[], |p| p)
    }
}
