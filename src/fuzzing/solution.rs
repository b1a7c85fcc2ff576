//! A solved graph read back as concrete shapes, one per defined name, with each row's flank
//! split (the split is part of a row's value in OCANNL's model: it decides how the row
//! broadcasts as an operand).

use super::model::{ConcreteBasis, ConcreteDim, ConcreteRow, ConcreteShape};
use crate::ids::TensorId;
use crate::infer::Graph;
use crate::shape::{Basis, Dim, Row};
use crate::spec::ast::RowKind;

/// The concrete shape of every name a program defined, in definition order (leaves first,
/// then one entry per statement).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Solution {
    /// `(name, shape)` in definition order; a redefined name appears twice. A leaf that no
    /// operation uses keeps what its declaration leaves open: `None`.
    pub tensors: Vec<(String, Option<ConcreteShape>)>,
}

impl Solution {
    /// Reads the solved shapes of `names` from a solved graph. Fails (with a message) when a
    /// shape still holds a variable.
    /// `unused` says which tensors no operation takes part in (their shapes may stay open).
    pub fn from_graph(
        g: &Graph,
        names: &[(String, TensorId)],
        unused: impl Fn(TensorId) -> bool,
    ) -> Result<Solution, String> {
        let mut tensors = Vec::with_capacity(names.len());
        for (name, id) in names {
            let shape = g.shape(*id).map_err(|e| e.to_string())?;
            let mut out = ConcreteShape::default();
            let mut open = None;
            for kind in RowKind::ALL {
                match concrete_row(g, shape.row(kind)) {
                    Ok(r) => *out.row_mut(kind) = r,
                    Err(e) => open = Some(format!("`{name}`: {} row: {e}", kind.name())),
                }
            }
            match open {
                None => tensors.push((name.clone(), Some(out))),
                Some(_) if unused(*id) => tensors.push((name.clone(), None)),
                Some(e) => return Err(e),
            }
        }
        Ok(Solution { tensors })
    }

    /// The shape of the last definition of `name` (`None` also when it is left open).
    pub fn get(&self, name: &str) -> Option<&ConcreteShape> {
        self.tensors.iter().rev().find(|(n, _)| n == name).and_then(|(_, s)| s.as_ref())
    }
}

fn concrete_row(g: &Graph, row: &Row) -> Result<ConcreteRow, String> {
    if row.var.is_some() {
        return Err("still has a row variable".into());
    }
    let conv = |d: &Dim| -> Result<ConcreteDim, String> {
        let s =
            d.solved().ok_or_else(|| format!("axis `{}` is not solved", d.show(g.dim_exprs())))?;
        let basis = match s.basis {
            Basis::DEFAULT => ConcreteBasis::Default,
            Basis::BCAST => ConcreteBasis::Bcast,
            b => ConcreteBasis::Named(g.basis_name(b).to_string()),
        };
        Ok(ConcreteDim { size: s.size, basis })
    };
    Ok(ConcreteRow {
        beg: row.beg.iter().map(conv).collect::<Result<_, _>>()?,
        dims: row.dims.iter().map(conv).collect::<Result<_, _>>()?,
    })
}
