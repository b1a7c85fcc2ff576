//! The broadcasting rules on concrete shapes, written from the specification (OCANNL's
//! `res ⊑ opnd` order), not from the solver: used by the checker to judge solutions and by the
//! generators to build operations whose constraints hold.

use super::model::{ConcreteDim, ConcreteRow};

/// `res ⊑ opnd` on dimensions: equal, or the operand is the broadcast top `1!`.
pub fn dim_leq(res: &ConcreteDim, opnd: &ConcreteDim) -> bool {
    res == opnd || opnd.is_top()
}

/// `res ⊑ opnd` on concrete rows: the operand is no longer than the result; its leading flank
/// is compared with the result's first axes, its trailing flank with the result's last axes
/// (the result's own split does not matter), each pair by [`dim_leq`].
pub fn row_leq(res: &ConcreteRow, opnd: &ConcreteRow) -> Result<(), String> {
    let flat = res.flat();
    if opnd.len() > flat.len() {
        return Err(format!(
            "the operand row has {} axes, more than the result's {}",
            opnd.len(),
            flat.len()
        ));
    }
    let lead = flat.iter().zip(&opnd.beg).enumerate();
    let trail = flat.iter().rev().zip(opnd.dims.iter().rev());
    for (i, (r, o)) in lead {
        if !dim_leq(r, o) {
            return Err(format!("leading axis {i}: result {r} does not refine operand {o}"));
        }
    }
    for (j, (r, o)) in trail.enumerate() {
        if !dim_leq(r, o) {
            return Err(format!("axis {j} from the end: result {r} does not refine operand {o}"));
        }
    }
    Ok(())
}

/// The least row that two trailing-aligned flat rows both broadcast into (numpy's rule with
/// OCANNL's order: only `1!` stretches), or `None` when two facing axes conflict.
pub fn join_trailing(a: &[ConcreteDim], b: &[ConcreteDim]) -> Option<Vec<ConcreteDim>> {
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let skip = long.len() - short.len();
    let mut out: Vec<ConcreteDim> = long[..skip].to_vec();
    for (x, y) in long[skip..].iter().zip(short) {
        out.push(join_dim(x, y)?);
    }
    Some(out)
}

/// The least dimension below both, if any: equal dims, or the other one when one is `1!`.
pub fn join_dim(x: &ConcreteDim, y: &ConcreteDim) -> Option<ConcreteDim> {
    if x == y || y.is_top() {
        Some(x.clone())
    } else if x.is_top() {
        Some(y.clone())
    } else {
        None
    }
}

/// Whether `opnd` (all axes trailing) broadcasts into `res`: a suffix-aligned fit by
/// [`dim_leq`].
pub fn trailing_fits(res: &[ConcreteDim], opnd: &[ConcreteDim]) -> bool {
    opnd.len() <= res.len() && res.iter().rev().zip(opnd.iter().rev()).all(|(r, o)| dim_leq(r, o))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(n: u64) -> ConcreteDim {
        ConcreteDim::new(n)
    }

    #[test]
    fn row_order() {
        let top = ConcreteDim::top();
        let res = ConcreteRow::trailing(vec![d(2), d(3)]);
        assert!(row_leq(&res, &ConcreteRow::trailing(vec![d(3)])).is_ok());
        assert!(row_leq(&res, &ConcreteRow::trailing(vec![top.clone(), d(3)])).is_ok());
        assert!(row_leq(&res, &ConcreteRow::trailing(vec![d(2)])).is_err());
        assert!(row_leq(&res, &ConcreteRow { beg: vec![d(2)], dims: vec![] }).is_ok());
        assert!(row_leq(&res, &ConcreteRow::trailing(vec![d(1), d(3)])).is_err());
        assert!(row_leq(&ConcreteRow::trailing(vec![d(3)]), &res).is_err());
    }

    #[test]
    fn joins() {
        let top = ConcreteDim::top();
        let tops = std::slice::from_ref(&top);
        assert_eq!(join_trailing(&[d(2), d(3)], tops), Some(vec![d(2), d(3)]));
        assert_eq!(join_trailing(tops, tops), Some(vec![top.clone()]));
        assert_eq!(join_trailing(&[d(1)], &[d(3)]), None);
        assert!(trailing_fits(&[d(2), d(3)], &[top, d(3)]));
        assert!(!trailing_fits(&[d(3)], &[d(2), d(3)]));
    }
}
