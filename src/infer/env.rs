//! The solver's state: ena union-find tables for dim and row variables, with small `Copy`
//! values pointing into arenas, and side tables for bounds, caps and provenance.
//!
//! A bound variable's value is stored once (in `dim_values` / `row_values`); substitution is
//! lazy ([`Env::dim`], [`Env::row`]), so binding a variable costs O(its own facts), never
//! O(all variables).

use ena::unify::{InPlaceUnificationTable, NoError, UnifyValue};
use smallvec::SmallVec;

use super::constraint::OriginId;
use crate::ids::{DimVar, RowVar};
use crate::shape::{AffineDim, Basis, ConvPadding, Dim, Dims, Row, Solved};

/// The ena value of a dim variable: the index of its bound value, if bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct DimVal(pub Option<u32>);

/// The ena value of a row variable: the index of its bound row, if bound.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RowVal(pub Option<u32>);

impl UnifyValue for DimVal {
    type Error = NoError;
    fn unify_values(a: &Self, b: &Self) -> Result<Self, NoError> {
        // Only unknown variables are united; values are unified structurally by the solver.
        debug_assert!(a.0.is_none() || b.0.is_none());
        Ok(DimVal(a.0.or(b.0)))
    }
}

impl UnifyValue for RowVal {
    type Error = NoError;
    fn unify_values(a: &Self, b: &Self) -> Result<Self, NoError> {
        debug_assert!(a.0.is_none() || b.0.is_none());
        Ok(RowVal(a.0.or(b.0)))
    }
}

/// What is known about an unbound dim variable (kept at its root).
#[derive(Clone, Debug, Default)]
pub struct DimInfo {
    /// Variables known to refine this one (`r ⊑ self`).
    pub lower: SmallVec<[DimVar; 2]>,
    /// Variables this one refines (`self ⊑ o`).
    pub upper: SmallVec<[DimVar; 2]>,
    /// The join of its non-variable lower bounds (the "cap").
    pub cap: Option<Dim>,
    /// A lower bound on the size (from fixed indices).
    pub at_least: u64,
    /// A concatenation component that may close to size 0.
    pub discardable: bool,
    /// The label it was created for, for messages.
    pub name: Option<smol_str::SmolStr>,
    /// The constraint that bound it, for explanations.
    pub bound_by: Option<OriginId>,
}

/// What is known about an unbound row variable (kept at its root).
#[derive(Clone, Debug, Default)]
pub struct RowInfo {
    /// Variables known to refine this one.
    pub lower: SmallVec<[RowVar; 2]>,
    /// Variables this one refines.
    pub upper: SmallVec<[RowVar; 2]>,
    /// Lower bounds (rows that must broadcast into this one); the first is the joined cap.
    pub caps: SmallVec<[Row; 1]>,
    /// Created by a deficit template that added trailing axes: closing it to empty is safe.
    pub safe_to_guess: bool,
    /// Used in an einsum/permute operand or as a compose contraction row.
    pub used_in_spec: bool,
    /// How many templates deep this variable was minted (termination guard).
    pub depth: u32,
    /// The constraint that bound it.
    pub bound_by: Option<OriginId>,
}

/// The union-find tables and side tables.
#[derive(Clone, Default)]
pub struct Env {
    dims: InPlaceUnificationTable<DimVar>,
    rows: InPlaceUnificationTable<RowVar>,
    dim_values: Vec<Dim>,
    row_values: Vec<Row>,
    /// Side table indexed by dim variable.
    pub dim_info: Vec<DimInfo>,
    /// Side table indexed by row variable.
    pub row_info: Vec<RowInfo>,
    /// Number of bindings and unions so far (progress detection).
    pub progress: u64,
}

impl Env {
    /// A fresh dim variable.
    pub fn new_dim(&mut self, name: Option<&str>) -> DimVar {
        let v = self.dims.new_key(DimVal(None));
        self.dim_info.push(DimInfo { name: name.map(Into::into), ..DimInfo::default() });
        v
    }

    /// A fresh row variable.
    pub fn new_row(&mut self) -> RowVar {
        let v = self.rows.new_key(RowVal(None));
        self.row_info.push(RowInfo::default());
        v
    }

    /// The representative of a dim variable.
    pub fn dim_root(&mut self, v: DimVar) -> DimVar {
        self.dims.find(v)
    }

    /// The representative of a row variable.
    pub fn row_root(&mut self, v: RowVar) -> RowVar {
        self.rows.find(v)
    }

    /// Unites two unbound dim variables; returns (new root, the other old root).
    pub fn union_dims(&mut self, a: DimVar, b: DimVar) -> (DimVar, DimVar) {
        let (ra, rb) = (self.dims.find(a), self.dims.find(b));
        self.dims.union(ra, rb);
        self.progress += 1;
        let root = self.dims.find(ra);
        (root, if root == ra { rb } else { ra })
    }

    /// Unites two unbound row variables; returns (new root, the other old root).
    pub fn union_rows(&mut self, a: RowVar, b: RowVar) -> (RowVar, RowVar) {
        let (ra, rb) = (self.rows.find(a), self.rows.find(b));
        self.rows.union(ra, rb);
        self.progress += 1;
        let root = self.rows.find(ra);
        (root, if root == ra { rb } else { ra })
    }

    /// Records `v := d` (v unbound, d resolved and not mentioning v).
    pub fn bind_dim(&mut self, v: DimVar, d: Dim) {
        let idx = u32::try_from(self.dim_values.len()).unwrap_or(u32::MAX);
        self.dim_values.push(d);
        let root = self.dims.find(v);
        self.dims.union_value(root, DimVal(Some(idx)));
        self.progress += 1;
    }

    /// Records `v := r` (v unbound, r resolved and not mentioning v).
    pub fn bind_row(&mut self, v: RowVar, r: Row) {
        let idx = u32::try_from(self.row_values.len()).unwrap_or(u32::MAX);
        self.row_values.push(r);
        let root = self.rows.find(v);
        self.rows.union_value(root, RowVal(Some(idx)));
        self.progress += 1;
    }

    /// Whether a dim variable is bound.
    pub fn dim_bound(&mut self, v: DimVar) -> bool {
        self.dims.probe_value(v).0.is_some()
    }

    /// Whether a row variable is bound.
    pub fn row_bound(&mut self, v: RowVar) -> bool {
        self.rows.probe_value(v).0.is_some()
    }

    /// Number of dim variables.
    pub fn dim_count(&self) -> usize {
        self.dim_info.len()
    }

    /// Number of row variables.
    pub fn row_count(&self) -> usize {
        self.row_info.len()
    }

    /// Substitutes the current bindings into a dimension and simplifies arithmetic.
    pub fn dim(&mut self, d: &Dim) -> Dim {
        match d {
            Dim::Var(v) => {
                let root = self.dims.find(*v);
                match self.dims.probe_value(root).0 {
                    Some(i) => {
                        let value = self.dim_values[i as usize].clone();
                        self.dim(&value)
                    }
                    None => Dim::Var(root),
                }
            }
            Dim::Solved(_) => d.clone(),
            Dim::Affine(a) => {
                let over = self.dim(&a.over);
                let conv = a.conv.as_ref().map(|(dil, k, p)| (*dil, self.dim(k), *p));
                simplify_affine(AffineDim { stride: a.stride, over, offset: a.offset, conv })
            }
            Dim::Concat(parts) => {
                let parts: Vec<Dim> = parts.iter().map(|p| self.dim(p)).collect();
                simplify_concat(parts)
            }
        }
    }

    /// Substitutes the current bindings into a row, splicing bound row variables at the marker.
    pub fn row(&mut self, r: &Row) -> Row {
        let mut out = Row { beg: Dims::new(), var: None, dims: Dims::new() };
        out.beg.extend(r.beg.iter().map(|d| self.dim(d)));
        let mut tail: Dims = r.dims.iter().map(|d| self.dim(d)).collect();
        if let Some(v) = r.var {
            let root = self.rows.find(v);
            match self.rows.probe_value(root).0 {
                Some(i) => {
                    let value = self.row_values[i as usize].clone();
                    let inner = self.row(&value);
                    out.beg.extend(inner.beg);
                    out.var = inner.var;
                    let mut dims = inner.dims;
                    dims.extend(tail.drain(..));
                    tail = dims;
                }
                None => out.var = Some(root),
            }
        }
        out.dims = tail;
        out
    }
}

/// Sizes of affine dimensions when their parts are known; `stride 1` without a valid kernel
/// is just `over`.
fn simplify_affine(a: AffineDim) -> Dim {
    let padded = !matches!(a.conv, Some((_, _, ConvPadding::Valid)));
    if a.stride == 1 && padded {
        return a.over;
    }
    let Some(over) = a.over.solved() else { return Dim::Affine(Box::new(a)) };
    let size = match &a.conv {
        Some((dil, k, ConvPadding::Valid)) => match k.solved() {
            Some(k) => valid_conv_size(a.stride, over.size, *dil, k.size),
            None => return Dim::Affine(Box::new(a)),
        },
        _ => a.stride.checked_mul(over.size),
    };
    match size {
        Some(size) if size <= crate::spec::lexer::MAX_INT => {
            let basis = affine_basis(&a).unwrap_or(over.basis);
            Dim::Solved(Solved { size, basis })
        }
        _ => Dim::Affine(Box::new(a)),
    }
}

/// The named basis of an affine dim's parts (named beats reserved); `None` when none is named.
fn affine_basis(a: &AffineDim) -> Option<Basis> {
    let over = a.over.solved().map(|s| s.basis).filter(|b| b.is_named());
    let kernel = a.conv.as_ref().and_then(|(_, k, _)| k.solved()).map(|s| s.basis);
    over.or(kernel.filter(|b| b.is_named()))
}

/// The input extent of a valid convolution: `stride*(over-1) + dilation*(kernel-1) + 1`.
pub fn valid_conv_size(stride: u64, over: u64, dilation: u64, kernel: u64) -> Option<u64> {
    if over == 0 || kernel == 0 {
        return Some(0);
    }
    stride.checked_mul(over - 1)?.checked_add(dilation.checked_mul(kernel - 1)?)?.checked_add(1)
}

/// Flattens nested concatenations; a concatenation of solved parts with compatible bases is
/// their sum (a named basis beats the default; size-0 parts are dropped).
fn simplify_concat(parts: Vec<Dim>) -> Dim {
    let mut flat = Vec::with_capacity(parts.len());
    for p in parts {
        match p {
            Dim::Concat(inner) => flat.extend(inner),
            other => flat.push(other),
        }
    }
    if flat.len() == 1 {
        return flat.pop().unwrap_or_else(|| Dim::size(0));
    }
    if flat.iter().all(|p| p.solved().is_some()) {
        if let Some(sum) = concat_sum(&flat) {
            return Dim::Solved(sum);
        }
    }
    Dim::Concat(flat)
}

/// The sum of solved concatenation parts with their merged basis; `None` on a basis conflict
/// or overflow.
pub fn concat_sum(parts: &[Dim]) -> Option<Solved> {
    let mut size: u64 = 0;
    let mut basis: Option<Basis> = None;
    for p in parts {
        let s = p.solved()?;
        size = size.checked_add(s.size)?;
        if s.basis.is_named() && s.size > 0 {
            match basis {
                Some(b) if b != s.basis => return None,
                _ => basis = Some(s.basis),
            }
        }
    }
    (size <= crate::spec::lexer::MAX_INT)
        .then_some(Solved { size, basis: basis.unwrap_or(Basis::DEFAULT) })
}
