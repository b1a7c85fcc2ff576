//! A naive reference evaluator of solved programs, written from the operations' meaning on
//! concrete shapes (not from einrow's projections): one multi-index at a time, tensors in
//! memory order (batch, output, input). Broadcasting operations align an operand's leading
//! flank with the left edge of the result row and its trailing flank with the right edge (an
//! operand axis of size 1 is read at index 0); compose sums over the first operand's input
//! axes; spec operations loop over every label, row-variable axis and operand placeholder and
//! sum what the result does not keep. Accumulation is `+`; operands combine by `+` for
//! pointwise, `*` for einsum and compose, and a single operand is copied.

use super::exec_spec::eval_spec;
use super::model::{ConcreteRow, ConcreteShape};
use super::spec_rules::check_spec;
use crate::infer::program::Stmt;
use crate::infer::OpKind;
use crate::spec::ast::RowKind;
use crate::spec::parse_einsum;

/// Most multi-indices the evaluator visits for one step before giving up.
pub const MAX_POINTS: usize = 1 << 16;

/// Per kind, in [`RowKind::ALL`] order: the flat index into that row.
pub(crate) type Idx = [Vec<usize>; 3];

pub(crate) fn kinds() -> [RowKind; 3] {
    RowKind::ALL
}

/// The offset of a multi-index in a tensor stored in memory order (batch, output, input).
pub fn offset(shape: &ConcreteShape, idx: &Idx) -> usize {
    let mut off = 0usize;
    for (k, kind) in [(0, RowKind::Batch), (2, RowKind::Output), (1, RowKind::Input)] {
        for (i, d) in idx[k].iter().zip(shape.row(kind).flat()) {
            off = off * d.size as usize + i;
        }
    }
    off
}

/// Number of elements.
pub fn numel(shape: &ConcreteShape) -> Option<usize> {
    shape
        .memory_order()
        .iter()
        .try_fold(1usize, |n, d| n.checked_mul(usize::try_from(d.size).ok()?))
}

/// Calls `f` on every multi-index of `dims` (row-major); an error when there are too many.
pub(crate) fn odometer(
    dims: &[usize],
    f: impl FnMut(&[usize]) -> Result<(), String>,
) -> Result<(), String> {
    let total = dims.iter().try_fold(1usize, |n, d| n.checked_mul(*d)).unwrap_or(usize::MAX);
    if total > MAX_POINTS {
        return Err(format!("{total} points: too many to evaluate naively"));
    }
    crate::tensor::for_each_position(dims, f)
}

/// Every multi-index of a shape, split per kind.
fn for_each_idx(
    shape: &ConcreteShape,
    mut f: impl FnMut(&Idx) -> Result<(), String>,
) -> Result<(), String> {
    let lens = kinds().map(|k| shape.row(k).len());
    let dims: Vec<usize> =
        kinds().iter().flat_map(|k| shape.row(*k).flat()).map(|d| d.size as usize).collect();
    odometer(&dims, |flat| {
        let (b, rest) = flat.split_at(lens[0]);
        let (i, o) = rest.split_at(lens[1]);
        f(&[b.to_vec(), i.to_vec(), o.to_vec()])
    })
}

/// The operand row's index for a result row's index (`res ⊑ opnd` alignment).
fn align(res_len: usize, ridx: &[usize], op: &ConcreteRow) -> Vec<usize> {
    let m = op.dims.len();
    let lead = op.beg.iter().enumerate().map(|(i, d)| if d.size == 1 { 0 } else { ridx[i] });
    let trail = op
        .dims
        .iter()
        .enumerate()
        .map(|(j, d)| if d.size == 1 { 0 } else { ridx[res_len - m + j] });
    lead.chain(trail).collect()
}

fn align_shape(res: &ConcreteShape, ridx: &Idx, op: &ConcreteShape, map: [usize; 3]) -> Idx {
    let k = kinds();
    [0, 1, 2].map(|i| align(res.row(k[map[i]]).len(), &ridx[map[i]], op.row(k[i])))
}

/// Evaluates one statement on concrete operand shapes and values.
pub fn eval_step(
    s: &Stmt,
    args: &[(&ConcreteShape, &[f64])],
    out: &ConcreteShape,
) -> Result<Vec<f64>, String> {
    let n = numel(out).ok_or("result too large")?;
    let mut vals = vec![0.0; n];
    let read = |(shape, v): &(&ConcreteShape, &[f64]), idx: &Idx| -> Result<f64, String> {
        v.get(offset(shape, idx)).copied().ok_or_else(|| "operand read out of range".to_string())
    };
    match (s.op, args) {
        (OpKind::Pointwise, _) => for_each_idx(out, |c| {
            let mut acc = 0.0;
            for a in args {
                acc += read(a, &align_shape(out, c, a.0, [0, 1, 2]))?;
            }
            vals[offset(out, c)] = acc;
            Ok(())
        })?,
        (OpKind::Transpose, [a]) => for_each_idx(out, |c| {
            vals[offset(out, c)] = read(a, &align_shape(out, c, a.0, [0, 2, 1]))?;
            Ok(())
        })?,
        (OpKind::BatchSlice, [a]) => for_each_idx(out, |c| {
            let mut idx = c.clone();
            idx[0].insert(0, 0);
            vals[offset(out, c)] = read(a, &idx)?;
            Ok(())
        })?,
        (OpKind::Compose, [a, b]) => compose(out, a, b, &mut vals)?,
        (OpKind::Numpy, _) => {
            let text = s.spec.as_deref().ok_or("no subscripts")?;
            let sizes =
                |sh: &ConcreteShape| sh.output.flat().iter().map(|d| d.size as usize).collect();
            let shapes: Vec<Vec<usize>> = args.iter().map(|a| sizes(a.0)).collect();
            let inputs: Vec<Vec<f64>> = args.iter().map(|a| a.1.to_vec()).collect();
            let (shape, v) = super::numpy::naive_einsum(text, &shapes, &inputs)?;
            if shape != sizes(out) {
                return Err("the numpy result shape differs from the solved one".into());
            }
            vals = v;
        }
        (op, _) if op.has_spec() => {
            let text = s.spec.as_deref().ok_or("no spec")?;
            let spec = parse_einsum(text).map_err(|e| e.to_string())?;
            let shapes: Vec<&ConcreteShape> = args.iter().map(|a| a.0).collect();
            let bindings = check_spec(&spec, &shapes, out)?;
            eval_spec(op, &spec, args, out, &bindings, &mut vals)?;
        }
        (op, _) => return Err(format!("{op} with {} operands", args.len())),
    }
    Ok(vals)
}

fn compose(
    out: &ConcreteShape,
    a: &(&ConcreteShape, &[f64]),
    b: &(&ConcreteShape, &[f64]),
    vals: &mut [f64],
) -> Result<(), String> {
    let k = kinds();
    let a_in = a.0.row(RowKind::Input);
    let inner: Vec<usize> = a_in.flat().iter().map(|d| d.size as usize).collect();
    for_each_idx(out, |c| {
        let mut acc = 0.0;
        odometer(&inner, |kx| {
            let ai: Idx = [
                align(c[0].len(), &c[0], a.0.row(k[0])),
                kx.to_vec(),
                align(c[2].len(), &c[2], a.0.row(k[2])),
            ];
            let bi: Idx = [
                align(c[0].len(), &c[0], b.0.row(k[0])),
                align(c[1].len(), &c[1], b.0.row(k[1])),
                align(kx.len(), kx, b.0.row(RowKind::Output)),
            ];
            let x = a.1.get(offset(a.0, &ai)).ok_or("a read out of range")?;
            let y = b.1.get(offset(b.0, &bi)).ok_or("b read out of range")?;
            acc += x * y;
            Ok(())
        })?;
        vals[offset(out, c)] = acc;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> ConcreteShape {
        ConcreteShape::parse(text).unwrap()
    }

    fn stmt(op: OpKind, spec: Option<&str>) -> Stmt {
        Stmt {
            op,
            out: "c".into(),
            args: vec![],
            spec: spec.map(String::from),
            accum: None,
            combine: None,
            line: 0,
        }
    }

    fn check(s: Stmt, args: &[(&str, &[f64])], out: &str, want: &[f64]) {
        let shapes: Vec<ConcreteShape> = args.iter().map(|(t, _)| shape(t)).collect();
        let args: Vec<(&ConcreteShape, &[f64])> =
            shapes.iter().zip(args).map(|(s, (_, v))| (s, *v)).collect();
        assert_eq!(eval_step(&s, &args, &shape(out)).unwrap(), want);
    }

    #[test]
    fn broadcasting_operations() {
        check(
            stmt(OpKind::Pointwise, None),
            &[("2,3", &[1., 2., 3., 4., 5., 6.]), ("3", &[10., 20., 30.])],
            "2,3",
            &[11., 22., 33., 14., 25., 36.],
        );
        check(
            stmt(OpKind::Pointwise, None),
            &[("2,1!", &[1., 2.]), ("3", &[10., 20., 30.])],
            "2,3",
            &[11., 21., 31., 12., 22., 32.],
        );
        // a: input [2], output [2] (memory: output then input); b: output [2].
        check(
            stmt(OpKind::Compose, None),
            &[("2->2", &[1., 2., 3., 4.]), ("2", &[5., 6.])],
            "2",
            &[17., 39.],
        );
        // Memory order is output then input: transposing swaps the two.
        check(
            stmt(OpKind::Transpose, None),
            &[("3->2", &[1., 2., 3., 4., 5., 6.])],
            "2->3",
            &[1., 4., 2., 5., 3., 6.],
        );
        check(stmt(OpKind::BatchSlice, None), &[("2|2", &[1., 2., 3., 4.])], "2", &[1., 2.]);
    }

    #[test]
    fn spec_operations() {
        let ab = [1., 2., 3., 4., 5., 6.];
        check(
            stmt(OpKind::Einsum, Some("ij;jk=>ik")),
            &[("2,3", &ab), ("3,1", &[1., 1., 1.])],
            "2,1",
            &[6., 15.],
        );
        check(
            stmt(OpKind::Permute, Some("ij=>ji")),
            &[("2,3", &ab)],
            "3,2",
            &[1., 4., 2., 5., 3., 6.],
        );
        check(stmt(OpKind::Permute, Some("ii=>i")), &[("2,2", &[1., 2., 3., 4.])], "2", &[1., 4.]);
        check(stmt(OpKind::Permute, Some("i=>i0")), &[("2", &[7., 8.])], "2,1", &[7., 8.]);
        check(stmt(OpKind::Permute, Some("...=>0")), &[("2,3", &ab)], "1", &[21.]);
        check(
            stmt(OpKind::Concat, Some("a; b => a^b")),
            &[("2", &[1., 2.]), ("1", &[3.])],
            "3",
            &[1., 2., 3.],
        );
        check(
            stmt(OpKind::Einsum, Some("2*o<+k; k => o")),
            &[("5", &[1., 2., 3., 4., 5.]), ("1", &[1.])],
            "3",
            &[1., 3., 5.],
        );
    }
}
