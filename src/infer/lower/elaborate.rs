//! Elaboration of spec slots into rows: labels become dim variables and row variables shared by
//! all slots of one operation, integers become fresh variables with a size lower bound (fixed
//! indices), affine and concatenation axes become arithmetic dims.

use std::collections::{HashMap, HashSet};

use foldhash::fast::FixedState;
use smallvec::SmallVec;

use crate::code::ErrorCode;
use crate::ids::{DimVar, RowVar, StepId};
use crate::infer::error::InferError;
use crate::infer::solve::env::{Env, Node};
use crate::shape::{AffineDim, ConvPadding, Dim, Dims, ExprId, FloorConv, Row};
use crate::spec::ast::{
    self, same_name, AxisKind, Coeff, ConcatPart, Name, Padding, RowKind, ShapeSpec,
};
use crate::spec::lexer::MAX_INT;

/// Labels from which a spec's labels are looked up in a table rather than in the list.
const INDEX_FROM: usize = 16;

/// The variables of one operation's spec.
#[derive(Default)]
pub struct SpecEnv {
    dims: SmallVec<[(Name, DimVar); 8]>,
    /// Positions in `dims` by name, once the spec has [`INDEX_FROM`] labels (a spec of many
    /// labels looks each up in O(1), a short one in its list).
    index: HashMap<Name, u32, FixedState>,
    rows: SmallVec<[(Name, RowVar); 4]>,
    /// Positions in `rows` by name, as `index` for `dims`.
    row_index: HashMap<Name, u32, FixedState>,
    /// Fixed indices: the fresh variable of each integer axis and its index.
    pub fixed: SmallVec<[(DimVar, u64); 2]>,
    /// Flattened axes: the fresh variable of each, the id of its parts, and where it is
    /// written.
    pub flat: SmallVec<[(DimVar, ExprId, crate::span::Span); 1]>,
    /// PyTorch-style convolutions: the fresh variable of each input axis, the id of the
    /// convolution, and where it is written.
    pub floors: SmallVec<[(DimVar, ExprId, crate::span::Span); 1]>,
    /// Row variables of the spec.
    pub row_vars: SmallVec<[RowVar; 4]>,
    /// The step being elaborated, to say where its affine and concatenation axes were written.
    pub step: Option<StepId>,
}

impl SpecEnv {
    fn dim_var(&mut self, env: &mut Env, name: &Name) -> DimVar {
        if let Some(v) = self.label(name) {
            return v;
        }
        let v = env.new_dim(Some(name));
        self.dims.push((name.clone(), v));
        match self.dims.len() {
            INDEX_FROM => {
                let named = self.dims.iter().enumerate().map(|(i, (n, _))| (n.clone(), i as u32));
                self.index.extend(named);
            }
            n if n > INDEX_FROM => {
                self.index.insert(name.clone(), (n - 1) as u32);
            }
            _ => {}
        }
        v
    }

    fn row_var(&mut self, env: &mut Env, name: &str) -> RowVar {
        let known = if self.rows.len() >= INDEX_FROM {
            self.row_index.get(name).and_then(|&i| self.rows.get(i as usize))
        } else {
            self.rows.iter().find(|(n, _)| same_name(n, name))
        };
        if let Some((_, v)) = known {
            return *v;
        }
        let v = env.new_row();
        self.rows.push((name.into(), v));
        self.row_vars.push(v);
        match self.rows.len() {
            INDEX_FROM => {
                let named = self.rows.iter().enumerate().map(|(i, (n, _))| (n.clone(), i as u32));
                self.row_index.extend(named);
            }
            n if n > INDEX_FROM => {
                self.row_index.insert(name.into(), (n - 1) as u32);
            }
            _ => {}
        }
        v
    }

    /// Every label with its variable.
    pub fn labels(&self) -> &[(Name, DimVar)] {
        &self.dims
    }

    /// Every row variable with its name (`...` named after its row's kind).
    pub fn row_labels(&self) -> &[(Name, RowVar)] {
        &self.rows
    }

    /// The dim variable of a label, if the spec used it.
    pub fn label(&self, name: &str) -> Option<DimVar> {
        if self.dims.len() >= INDEX_FROM {
            let i = *self.index.get(name)? as usize;
            return self.dims.get(i).map(|(_, v)| *v);
        }
        self.dims.iter().find(|(n, _)| same_name(n, name)).map(|(_, v)| *v)
    }

    /// Elaborates one slot into `rows` (batch, input, output: [`RowKind::ALL`] order); a
    /// kind the slot does not write is the empty row.
    pub fn slot(
        &mut self,
        env: &mut Env,
        slot: &ShapeSpec,
        rows: &mut [Row; 3],
    ) -> Result<(), InferError> {
        for (out, kind) in rows.iter_mut().zip(RowKind::ALL) {
            out.beg.clear();
            out.dims.clear();
            out.var = None;
            if let Some(r) = slot.row(kind) {
                self.row(env, r, kind, out)?;
            }
        }
        Ok(())
    }

    fn row(
        &mut self,
        env: &mut Env,
        r: &ast::Row,
        kind: RowKind,
        out: &mut Row,
    ) -> Result<(), InferError> {
        for a in &r.leading {
            let d = self.axis(env, a)?;
            out.beg.push(d);
        }
        for a in &r.trailing {
            let d = self.axis(env, a)?;
            out.dims.push(d);
        }
        out.var = r.ellipsis.as_ref().map(|e| self.row_var(env, e.var_name(kind)));
        Ok(())
    }

    fn axis(&mut self, env: &mut Env, a: &ast::Axis) -> Result<Dim, InferError> {
        // What is wrong with an axis is shown on it.
        let d = self.axis_dim(env, a).map_err(|mut e| {
            if let InferError::Shape(s) = &mut e {
                if s.spans.is_empty() {
                    s.spans.push(a.span);
                }
            }
            e
        })?;
        if let (Some(n), Some(step)) = (Node::of(d), self.step) {
            env.cache.note_origin(n, step, a.span);
        }
        Ok(d)
    }

    fn axis_dim(&mut self, env: &mut Env, a: &ast::Axis) -> Result<Dim, InferError> {
        Ok(match &a.kind {
            AxisKind::Label(n) => Dim::Var(self.dim_var(env, n)),
            AxisKind::Placeholder => Dim::Var(env.new_dim(Some("_"))),
            AxisKind::Int(i) => {
                if *i >= MAX_INT {
                    let msg = format!("the index {i} needs an axis of more than 2^62");
                    return Err(InferError::shape(ErrorCode::Value, msg));
                }
                let v = env.new_dim(None);
                self.fixed.push((v, *i));
                Dim::Var(v)
            }
            AxisKind::Affine(af) => match af.conv.as_ref().map(|c| c.padding) {
                Some(Padding::Floor(pad)) => self.floor_conv(env, af, pad, a.span)?,
                _ => {
                    let a = self.affine(env, af)?;
                    env.exprs.affine(a)
                }
            },
            AxisKind::Concat(parts) => {
                let parts: Dims = parts
                    .iter()
                    .map(|p| match p {
                        ConcatPart::Label(n) => Dim::Var(self.dim_var(env, n)),
                        ConcatPart::Size(n) => Dim::size(*n),
                    })
                    .collect();
                env.exprs.concat_tree(&parts)
            }
            AxisKind::Flat(labels) => {
                let parts: Dims =
                    labels.iter().map(|(n, _)| Dim::Var(self.dim_var(env, n))).collect();
                let v = env.new_dim(None);
                self.flat.push((v, env.exprs.product(&parts), a.span));
                Dim::Var(v)
            }
        })
    }

    fn affine(&mut self, env: &mut Env, a: &ast::Affine) -> Result<AffineDim, InferError> {
        let stride = coeff(&a.stride)?;
        let over = Dim::Var(self.dim_var(env, &a.over));
        let conv = match &a.conv {
            None => None,
            Some(c) => {
                let padding = match c.padding {
                    Padding::Same => ConvPadding::Same,
                    Padding::Valid => ConvPadding::Valid,
                    // Read by `floor_conv`: never an affine dim.
                    Padding::Floor(_) => ConvPadding::Valid,
                    Padding::Unspecified => return Err(InferError::shape(
                        ErrorCode::Value,
                        "a convolution axis must say its padding: `=+` (padded) or `<+` (valid)",
                    )),
                };
                Some((coeff(&c.dilation)?, Dim::Var(self.dim_var(env, &c.kernel)), padding))
            }
        };
        Ok(AffineDim { stride, over, offset: a.offset, conv })
    }
}

impl SpecEnv {
    /// The input axis of a PyTorch-style convolution: a fresh variable, related to the output
    /// and kernel labels by a constraint (its size is not a function of theirs).
    fn floor_conv(
        &mut self,
        env: &mut Env,
        af: &ast::Affine,
        pad: u64,
        span: crate::span::Span,
    ) -> Result<Dim, InferError> {
        let Some(c) = &af.conv else {
            return Err(InferError::shape(ErrorCode::Value, "no kernel"));
        };
        if af.offset != 0 {
            let msg = "a PyTorch convolution (`~+`) takes padding (`~P+`), not an offset";
            return Err(InferError::shape(ErrorCode::Value, msg));
        }
        let (stride, dilation) = (coeff(&af.stride)?, coeff(&c.dilation)?);
        let over = Dim::Var(self.dim_var(env, &af.over));
        let kernel = Dim::Var(self.dim_var(env, &c.kernel));
        let conv = FloorConv { over, kernel, stride, dilation, pad };
        let input = env.new_dim(None);
        self.floors.push((input, env.exprs.floor_conv(conv), span));
        Ok(Dim::Var(input))
    }
}

fn coeff(c: &Coeff) -> Result<u64, InferError> {
    match c {
        Coeff::Int(n) => Ok(*n),
        Coeff::Name(n) => Err(InferError::shape(
            ErrorCode::Value,
            format!("the coefficient `{n}` is a host-language name: substitute an integer"),
        )),
    }
}

/// Labels of a concatenation component that may be guessed to size 0: a component `v` of a
/// concatenation on one side is discardable when every slot on the other side has an axis
/// whose labels all occur among the concatenation's other components.
///
/// For a concatenation with label set `L` and a slot of the other side, the slot's
/// *candidates* are its axes whose labels all lie in `L`; the slot covers `v` when it has
/// candidates and `v` is not in all of them. Candidates are found through an index from each
/// label to the concatenations holding it, each distinct axis once per slot, so that the cost
/// follows the size of the spec (a concatenation of many operands, or many concatenations).
pub fn discardable_labels(lhs: &ShapeSpec, rhs: &[ShapeSpec]) -> Vec<Name> {
    let mut out = Vec::new();
    let mut found: HashSet<&str, FixedState> = HashSet::default();
    let lhs_only = [lhs];
    let sides = std::iter::once((lhs, rhs.iter().collect::<Vec<_>>()))
        .chain(rhs.iter().map(|r| (r, lhs_only.to_vec())));
    for (slot, others) in sides {
        for v in covered_components(slot, &others) {
            if found.insert(v.as_str()) {
                out.push(v.clone());
            }
        }
    }
    out
}

/// The labels of a concatenation's parts, in order.
fn concat_labels(parts: &[ConcatPart]) -> Vec<&Name> {
    parts.iter().filter_map(|p| if let ConcatPart::Label(l) = p { Some(l) } else { None }).collect()
}

/// What the candidates of one slot for one concatenation are: how many, and how many of them
/// hold each label.
#[derive(Default)]
struct Candidates<'a> {
    count: usize,
    holding: HashMap<&'a str, usize, FixedState>,
}

/// The components of the concatenations of `slot` that every slot of `others` covers (see
/// [`discardable_labels`]), in order, with repeats.
fn covered_components<'a>(slot: &'a ShapeSpec, others: &[&'a ShapeSpec]) -> Vec<&'a Name> {
    let concats: Vec<Vec<&Name>> = slot
        .rows()
        .flat_map(|(_, row)| row.axes())
        .filter_map(|a| match &a.kind {
            AxisKind::Concat(parts) => Some(concat_labels(parts)),
            _ => None,
        })
        .collect();
    if concats.is_empty() {
        return Vec::new();
    }
    let sets: Vec<HashSet<&str, FixedState>> =
        concats.iter().map(|ls| ls.iter().map(|l| l.as_str()).collect()).collect();
    let mut holders: HashMap<&str, SmallVec<[u32; 2]>, FixedState> = HashMap::default();
    for (i, set) in sets.iter().enumerate() {
        for l in set {
            holders.entry(*l).or_default().push(i as u32);
        }
    }
    // Per concatenation and other slot, its candidates there.
    let mut cands: HashMap<(u32, usize), Candidates, FixedState> = HashMap::default();
    for (j, other) in others.iter().enumerate() {
        let mut axes: HashSet<Vec<&str>, FixedState> = HashSet::default();
        for axis in other.rows().flat_map(|(_, row)| row.axes()) {
            let mut labels: Vec<&str> = match &axis.kind {
                AxisKind::Label(l) => vec![l.as_str()],
                AxisKind::Concat(parts) => {
                    concat_labels(parts).iter().map(|l| l.as_str()).collect()
                }
                _ => continue,
            };
            labels.sort_unstable();
            labels.dedup();
            let Some(first) = labels.first().copied() else { continue };
            if !axes.insert(labels.clone()) {
                continue;
            }
            for &i in holders.get(first).into_iter().flatten() {
                if labels.iter().all(|l| sets[i as usize].contains(l)) {
                    let c = cands.entry((i, j)).or_default();
                    c.count += 1;
                    for l in &labels {
                        *c.holding.entry(*l).or_default() += 1;
                    }
                }
            }
        }
    }
    let mut out = Vec::new();
    for (i, labels) in concats.iter().enumerate() {
        let i = i as u32;
        let mut uncovered: HashSet<&str, FixedState> = HashSet::default();
        let mut covering = 0;
        for j in 0..others.len() {
            let Some(c) = cands.get(&(i, j)) else { break };
            covering += 1;
            let held_by_all = c.holding.iter().filter(|(_, n)| **n == c.count).map(|(l, _)| *l);
            uncovered.extend(held_by_all);
        }
        if covering == others.len() {
            out.extend(labels.iter().copied().filter(|l| !uncovered.contains(l.as_str())));
        }
    }
    out
}

#[cfg(all(test, feature = "fuzzing"))]
mod tests {
    use proptest::prelude::*;

    use super::{discardable_labels, AxisKind, ConcatPart, Name, ShapeSpec};

    /// The definition of [`discardable_labels`], written directly (cubic in the spec).
    fn by_definition(lhs: &ShapeSpec, rhs: &[ShapeSpec]) -> Vec<Name> {
        let labels_of = |kind: &AxisKind| -> Vec<Name> {
            match kind {
                AxisKind::Label(l) => vec![l.clone()],
                AxisKind::Concat(parts) => parts
                    .iter()
                    .filter_map(
                        |p| if let ConcatPart::Label(l) = p { Some(l.clone()) } else { None },
                    )
                    .collect(),
                _ => Vec::new(),
            }
        };
        let mut out: Vec<Name> = Vec::new();
        let sides: Vec<(&ShapeSpec, Vec<&ShapeSpec>)> =
            std::iter::once((lhs, rhs.iter().collect()))
                .chain(rhs.iter().map(|r| (r, vec![lhs])))
                .collect();
        for (slot, others) in sides {
            for axis in slot.rows().flat_map(|(_, r)| r.axes()) {
                if !matches!(axis.kind, AxisKind::Concat(_)) {
                    continue;
                }
                let labels = labels_of(&axis.kind);
                for v in &labels {
                    let rest: Vec<&Name> = labels.iter().filter(|l| *l != v).collect();
                    let covered = others.iter().all(|o| {
                        o.rows().flat_map(|(_, r)| r.axes()).any(|a| {
                            let ls = labels_of(&a.kind);
                            !ls.is_empty() && ls.iter().all(|l| rest.contains(&l))
                        })
                    });
                    if covered && !out.contains(v) {
                        out.push(v.clone());
                    }
                }
            }
        }
        out
    }

    proptest! {
        /// The linear-time discardable components are the definition's, in the same order.
        #[test]
        fn discardable_labels_follow_their_definition(
            text in crate::fuzzing::specs::einsum_text()
        ) {
            if let Ok(spec) = crate::spec::parse_einsum(&text) {
                prop_assert_eq!(
                    discardable_labels(&spec.lhs, &spec.rhs),
                    by_definition(&spec.lhs, &spec.rhs)
                );
            }
        }
    }

    /// Concatenations among many operands: components are covered when each other slot has
    /// an axis of the other components only.
    #[test]
    fn discardable_labels_of_stacked_concatenations() {
        for text in [
            "a;b=>a^b",
            "a^b;b=>a",
            "a,b;b=>a^b,b",
            "a^b^c;a;b^c=>a,b",
            "x0;x1;x2=>x0^x1^x2",
            "a,b^c;c,a;b=>a^b^c",
        ] {
            let spec = crate::spec::parse_einsum(text).expect("parses");
            let found = discardable_labels(&spec.lhs, &spec.rhs);
            assert_eq!(found, by_definition(&spec.lhs, &spec.rhs), "{text}");
        }
    }
}
