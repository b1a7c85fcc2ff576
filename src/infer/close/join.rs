//! The join of rows in the broadcast order: what closing binds a row variable with several
//! caps to (see `Solver::close_row_to_cap`).

use crate::shape::{Dim, Dims, Row};

/// The join of rows in the broadcast order (the most material row every one of them refines):
/// leading flanks aligned left and trailing flanks aligned right, each cut to the shortest,
/// equal dims kept and different solved dims the broadcast top; the row variable is kept only
/// when every row has the same one. `None` for no rows.
pub(in crate::infer) fn join_rows(rows: &[Row]) -> Option<Row> {
    let (first, rest) = rows.split_first()?;
    let mut acc = first.clone();
    for r in rest {
        let same_var = acc.var.is_some() && acc.var == r.var;
        let (a, b): (Dims, Dims) = if acc.var.is_none() || r.var.is_none() {
            // A closed row: align everything from the right.
            (acc.flat(), r.flat())
        } else {
            (acc.dims.clone(), r.dims.clone())
        };
        let n = a.len().min(b.len());
        let dims =
            a[a.len() - n..].iter().zip(&b[b.len() - n..]).map(|(p, q)| join_dim(p, q)).collect();
        let beg = if same_var || (acc.var.is_some() && r.var.is_some()) {
            let m = acc.beg.len().min(r.beg.len());
            acc.beg[..m].iter().zip(&r.beg[..m]).map(|(p, q)| join_dim(p, q)).collect()
        } else {
            Default::default()
        };
        let var = if same_var { acc.var } else { None };
        acc = Row { beg, var, dims };
    }
    Some(acc)
}

fn join_dim(p: &Dim, q: &Dim) -> Dim {
    match (p.solved(), q.solved()) {
        _ if p == q => *p,
        (Some(_), Some(_)) => Dim::top(),
        // A variable position: keep the first; binding re-checks every cap against the result.
        _ => *p,
    }
}
