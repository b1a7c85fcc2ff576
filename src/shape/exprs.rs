//! [`DimExprs`]: the table that holds affine and concatenation dims, so that a [`Dim`] is a
//! small `Copy` value.
//!
//! Expressions are hash-consed: one structure gets one [`ExprId`], so two dims are equal exactly
//! when their ids are (the parts of an expression are dims too, canonical by induction).
//! Strided, convolution and concatenation axes are rare, and each distinct one is stored once.
//!
//! A concatenation's parts may be concatenations themselves, and one node may be a part of many
//! (`y = x^x`, `z = y^y`): the table is a graph with sharing, never flattened, so that its size
//! follows the program's text. A concatenation written with many parts is stored as a balanced
//! tree of nodes of at most [`CONCAT_FAN`] parts ([`DimExprs::concat_tree`]): it reads as the
//! same flat concatenation, and a change to one of its parts touches one node per level.

use std::collections::HashMap;

use super::dim::{AffineDim, Dim, ExprId};

/// The most parts of one node of a concatenation built by [`DimExprs::concat_tree`].
pub const CONCAT_FAN: usize = 16;

/// A PyTorch-style convolution: its output `over` is
/// `floor((input + 2·pad - dilation·(kernel-1) - 1) / stride) + 1` of its input's size (not a
/// dim of its own: the constraint relating the input axis to it holds it).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct FloorConv {
    /// The output dim.
    pub over: Dim,
    /// The kernel dim.
    pub kernel: Dim,
    /// Stride (≥ 1).
    pub stride: u64,
    /// Dilation (≥ 1).
    pub dilation: u64,
    /// Padding on each side.
    pub pad: u64,
}

/// Affine and concatenation dims, interned.
#[derive(Clone, Debug, Default)]
pub struct DimExprs {
    affine: Vec<AffineDim>,
    affine_ids: HashMap<AffineDim, ExprId>,
    concat: Vec<Box<[Dim]>>,
    concat_ids: HashMap<Box<[Dim]>, ExprId>,
    /// The parts of flattened axes (`(h*d)`): not dims themselves, held by the constraints
    /// that relate each flattened axis to its parts.
    product: Vec<Box<[Dim]>>,
    product_ids: HashMap<Box<[Dim]>, ExprId>,
    floor: Vec<FloorConv>,
    floor_ids: HashMap<FloorConv, ExprId>,
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

    /// The id of a PyTorch-style convolution (interned).
    pub fn floor_conv(&mut self, c: FloorConv) -> ExprId {
        if let Some(&id) = self.floor_ids.get(&c) {
            return id;
        }
        let id = next_id(self.floor.len());
        self.floor.push(c);
        self.floor_ids.insert(c, id);
        id
    }

    /// A PyTorch-style convolution of this table (a stride-1 identity over size 0 for an id
    /// from elsewhere).
    pub fn get_floor_conv(&self, id: ExprId) -> FloorConv {
        self.floor.get(id.0 as usize).copied().unwrap_or(FloorConv {
            over: Dim::size(0),
            kernel: Dim::size(1),
            stride: 1,
            dilation: 1,
            pad: 0,
        })
    }

    /// The id of the parts of a flattened axis (interned).
    pub fn product(&mut self, parts: &[Dim]) -> ExprId {
        if let Some(&id) = self.product_ids.get(parts) {
            return id;
        }
        let id = next_id(self.product.len());
        self.product.push(parts.into());
        self.product_ids.insert(parts.into(), id);
        id
    }

    /// The parts of a flattened axis (none for an id from elsewhere).
    pub fn product_parts(&self, id: ExprId) -> &[Dim] {
        self.product.get(id.0 as usize).map_or(&[], |p| p)
    }

    /// The concatenation of these parts as a balanced tree of nodes with at most
    /// [`CONCAT_FAN`] parts each (one node when there are that few).
    pub fn concat_tree(&mut self, parts: &[Dim]) -> Dim {
        let mut level: Vec<Dim> = parts.to_vec();
        while level.len() > CONCAT_FAN {
            level = level.chunks(CONCAT_FAN).map(|c| self.concat(c)).collect();
        }
        self.concat(&level)
    }

    /// The number of affine nodes and of concatenation nodes in the table.
    pub fn len(&self) -> (usize, usize) {
        (self.affine.len(), self.concat.len())
    }

    /// Whether the table holds no node.
    pub fn is_empty(&self) -> bool {
        self.affine.is_empty() && self.concat.is_empty()
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
