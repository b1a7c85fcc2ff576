//! Elaboration of spec slots into rows: labels become dim variables and row variables shared by
//! all slots of one operation, integers become fresh variables with a size lower bound (fixed
//! indices), affine and concatenation axes become arithmetic dims.

use smallvec::SmallVec;

use super::env::Env;
use super::error::InferError;
use crate::code::ErrorCode;
use crate::ids::{DimVar, RowVar};
use crate::shape::{AffineDim, ConvPadding, Dim, Dims, Row};
use crate::spec::ast::{
    self, same_name, AxisKind, Coeff, ConcatPart, Name, Padding, RowKind, ShapeSpec,
};

/// The variables of one operation's spec.
#[derive(Default)]
pub struct SpecEnv {
    dims: SmallVec<[(Name, DimVar); 8]>,
    rows: SmallVec<[(Name, RowVar); 4]>,
    /// Fixed indices: the fresh variable of each integer axis and its index.
    pub fixed: SmallVec<[(DimVar, u64); 2]>,
    /// Row variables of the spec.
    pub row_vars: SmallVec<[RowVar; 4]>,
}

impl SpecEnv {
    fn dim_var(&mut self, env: &mut Env, name: &Name) -> DimVar {
        if let Some((_, v)) = self.dims.iter().find(|(n, _)| same_name(n, name)) {
            return *v;
        }
        let v = env.new_dim(Some(name));
        self.dims.push((name.clone(), v));
        v
    }

    fn row_var(&mut self, env: &mut Env, name: &str) -> RowVar {
        if let Some((_, v)) = self.rows.iter().find(|(n, _)| same_name(n, name)) {
            return *v;
        }
        let v = env.new_row();
        self.rows.push((name.into(), v));
        self.row_vars.push(v);
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
        Ok(match &a.kind {
            AxisKind::Label(n) => Dim::Var(self.dim_var(env, n)),
            AxisKind::Placeholder => Dim::Var(env.new_dim(Some("_"))),
            AxisKind::Int(i) => {
                let v = env.new_dim(None);
                self.fixed.push((v, *i));
                Dim::Var(v)
            }
            AxisKind::Affine(af) => {
                let a = self.affine(env, af)?;
                env.exprs.affine(a)
            }
            AxisKind::Concat(parts) => {
                let parts: Dims = parts
                    .iter()
                    .map(|p| match p {
                        ConcatPart::Label(n) => Dim::Var(self.dim_var(env, n)),
                        ConcatPart::Size(n) => Dim::size(*n),
                    })
                    .collect();
                env.exprs.concat(&parts)
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
pub fn discardable_labels(lhs: &ShapeSpec, rhs: &[ShapeSpec]) -> Vec<Name> {
    let mut out = Vec::new();
    let sides: Vec<(&ShapeSpec, Vec<&ShapeSpec>)> = std::iter::once((lhs, rhs.iter().collect()))
        .chain(rhs.iter().map(|r| (r, vec![lhs])))
        .collect();
    for (slot, others) in sides {
        for (_, row) in slot.rows() {
            for axis in row.axes() {
                let AxisKind::Concat(parts) = &axis.kind else { continue };
                let labels: Vec<&Name> = parts
                    .iter()
                    .filter_map(|p| if let ConcatPart::Label(l) = p { Some(l) } else { None })
                    .collect();
                for v in &labels {
                    let rest: Vec<&&Name> = labels.iter().filter(|l| *l != v).collect();
                    let covered = others.iter().all(|o| {
                        o.rows().any(|(_, r)| r.axes().any(|a| axis_within(&a.kind, &rest)))
                    });
                    if covered && !out.contains(*v) {
                        out.push((*v).clone());
                    }
                }
            }
        }
    }
    out
}

fn axis_within(kind: &AxisKind, rest: &[&&Name]) -> bool {
    let labels: Vec<&Name> = match kind {
        AxisKind::Label(l) => vec![l],
        AxisKind::Concat(parts) => parts
            .iter()
            .filter_map(|p| if let ConcatPart::Label(l) = p { Some(l) } else { None })
            .collect(),
        _ => return false,
    };
    !labels.is_empty() && labels.iter().all(|l| rest.iter().any(|r| **r == *l))
}
