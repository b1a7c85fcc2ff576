//! A naive reference evaluator of solved programs, written from the operations' meaning on
//! concrete shapes (not from einrow's projections): one multi-index at a time, tensors in
//! memory order (batch, output, input). Broadcasting operations align an operand's leading
//! flank with the left edge of the result row and its trailing flank with the right edge (an
//! operand axis of size 1 is read at index 0); compose sums over the first operand's input
//! axes; spec operations loop over every label, row-variable axis and operand placeholder and
//! sum what the result does not keep. Accumulation is `+`; operands combine by `+` for
//! pointwise, `*` for einsum and compose, and a single operand is copied.

use super::model::{ConcreteRow, ConcreteShape};
use super::spec_rules::{check_spec, SpecBindings};
use crate::infer::program::Stmt;
use crate::infer::OpKind;
use crate::spec::ast::{Axis, AxisKind, ConcatPart, EinsumSpec, Padding, Row, RowKind};
use crate::spec::parse_einsum;

/// Most multi-indices the evaluator visits for one step before giving up.
pub const MAX_POINTS: usize = 1 << 16;

/// Per kind, in [`RowKind::ALL`] order: the flat index into that row.
type Idx = [Vec<usize>; 3];

fn kinds() -> [RowKind; 3] {
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

/// Calls `f` on every multi-index of `dims` (row-major); false when there are too many.
fn odometer(
    dims: &[usize],
    mut f: impl FnMut(&[usize]) -> Result<(), String>,
) -> Result<(), String> {
    let total = dims.iter().try_fold(1usize, |n, d| n.checked_mul(*d)).unwrap_or(usize::MAX);
    if total > MAX_POINTS {
        return Err(format!("{total} points: too many to evaluate naively"));
    }
    if total == 0 {
        return Ok(());
    }
    let mut idx = vec![0usize; dims.len()];
    loop {
        f(&idx)?;
        let mut i = dims.len();
        loop {
            if i == 0 {
                return Ok(());
            }
            i -= 1;
            idx[i] += 1;
            if idx[i] < dims[i] {
                break;
            }
            idx[i] = 0;
        }
    }
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

/// A loop of a spec operation.
#[derive(Clone, Debug, PartialEq)]
enum Key {
    Label(String),
    RowAxis(String, usize),
    /// A placeholder: operand, kind index, flat position.
    Hole(usize, usize, usize),
}

struct Loops {
    keys: Vec<Key>,
    sizes: Vec<usize>,
}

impl Loops {
    fn at(&self, key: &Key, idx: &[usize]) -> Option<usize> {
        self.keys.iter().position(|k| k == key).map(|i| idx[i])
    }
}

fn eval_spec(
    op: OpKind,
    spec: &EinsumSpec,
    args: &[(&ConcreteShape, &[f64])],
    out: &ConcreteShape,
    b: &SpecBindings,
    vals: &mut [f64],
) -> Result<(), String> {
    let components = lhs_components(spec);
    let parts =
        if components.is_empty() { vec![None] } else { (0..components.len()).map(Some).collect() };
    for part in parts {
        let skip: Vec<&str> = components
            .iter()
            .enumerate()
            .filter(|(j, _)| Some(*j) != part)
            .map(|(_, c)| c.as_str())
            .collect();
        let active: Vec<usize> =
            (0..args.len()).filter(|i| !mentions_any(&spec.rhs[*i], &skip)).collect();
        let loops = loops(spec, args, b, &skip);
        odometer(&loops.sizes, |idx| {
            let Some(r) = slot_index(&spec.lhs, out, &loops, idx, b, None, part)? else {
                return Ok(());
            };
            let mut v = if op == OpKind::Einsum || op == OpKind::Einsum3 { 1.0 } else { 0.0 };
            for &i in &active {
                let Some(oi) = slot_index(&spec.rhs[i], args[i].0, &loops, idx, b, Some(i), None)?
                else {
                    return Ok(());
                };
                let x =
                    *args[i].1.get(offset(args[i].0, &oi)).ok_or("operand read out of range")?;
                if op == OpKind::Einsum || op == OpKind::Einsum3 {
                    v *= x
                } else {
                    v += x
                }
            }
            let o = offset(out, &r);
            *vals.get_mut(o).ok_or("result write out of range")? += v;
            Ok(())
        })?;
    }
    Ok(())
}

/// The component labels of the result's concatenation axis (none without one).
fn lhs_components(spec: &EinsumSpec) -> Vec<String> {
    let rows = spec.lhs.rows().map(|(_, r)| r);
    for r in rows {
        for a in r.axes() {
            if let AxisKind::Concat(parts) = &a.kind {
                return parts
                    .iter()
                    .filter_map(|p| {
                        if let ConcatPart::Label(l) = p {
                            Some(l.to_string())
                        } else {
                            None
                        }
                    })
                    .collect();
            }
        }
    }
    Vec::new()
}

fn labels_of(kind: &AxisKind) -> Vec<&str> {
    match kind {
        AxisKind::Label(l) => vec![l.as_str()],
        AxisKind::Affine(a) => std::iter::once(a.over.as_str())
            .chain(a.conv.as_ref().map(|c| c.kernel.as_str()))
            .collect(),
        AxisKind::Concat(parts) => parts
            .iter()
            .filter_map(|p| if let ConcatPart::Label(l) = p { Some(l.as_str()) } else { None })
            .collect(),
        _ => Vec::new(),
    }
}

fn mentions_any(slot: &crate::spec::ast::ShapeSpec, names: &[&str]) -> bool {
    slot.rows().any(|(_, r)| r.axes().any(|a| labels_of(&a.kind).iter().any(|l| names.contains(l))))
}

fn loops(
    spec: &EinsumSpec,
    args: &[(&ConcreteShape, &[f64])],
    b: &SpecBindings,
    skip: &[&str],
) -> Loops {
    let mut l = Loops { keys: Vec::new(), sizes: Vec::new() };
    for (name, size) in &b.labels {
        if !skip.contains(&name.as_str()) {
            l.keys.push(Key::Label(name.to_string()));
            l.sizes.push(*size as usize);
        }
    }
    for (name, value) in &b.rows {
        for (p, d) in value.iter().enumerate() {
            l.keys.push(Key::RowAxis(name.clone(), p));
            l.sizes.push(d.size as usize);
        }
    }
    for (i, slot) in spec.rhs.iter().enumerate() {
        for (ki, kind) in kinds().into_iter().enumerate() {
            let Some(r) = slot.row(kind) else { continue };
            let flat = args[i].0.row(kind).flat();
            for (p, a) in positioned(r, flat.len()) {
                if a.kind == AxisKind::Placeholder {
                    l.keys.push(Key::Hole(i, ki, p));
                    l.sizes.push(flat[p].size as usize);
                }
            }
        }
    }
    l
}

/// The written axes of a row with their flat positions in a row of `len` axes.
fn positioned(r: &Row, len: usize) -> impl Iterator<Item = (usize, &Axis)> {
    let tail = len.saturating_sub(r.trailing.len());
    r.leading
        .iter()
        .enumerate()
        .chain(r.trailing.iter().enumerate().map(move |(j, a)| (tail + j, a)))
}

/// The index a slot reads or writes under one loop assignment; `None` when the point falls
/// outside (never for the specs the evaluator supports).
fn slot_index(
    slot: &crate::spec::ast::ShapeSpec,
    shape: &ConcreteShape,
    loops: &Loops,
    idx: &[usize],
    b: &SpecBindings,
    operand: Option<usize>,
    part: Option<usize>,
) -> Result<Option<Idx>, String> {
    let mut out: Idx = Default::default();
    for (ki, kind) in kinds().into_iter().enumerate() {
        let len = shape.row(kind).len();
        let mut row = vec![0usize; len];
        let Some(r) = slot.row(kind) else { continue };
        for (p, a) in positioned(r, len) {
            row[p] =
                axis_index(&a.kind, loops, idx, b, operand.map(|o| Key::Hole(o, ki, p)), part)?;
        }
        if let Some(e) = &r.ellipsis {
            for q in r.leading.len()..len - r.trailing.len() {
                let key = Key::RowAxis(e.var_name(kind).to_string(), q - r.leading.len());
                row[q] = loops.at(&key, idx).ok_or("row variable axis without a loop")?;
            }
        }
        if row.iter().zip(shape.row(kind).flat()).any(|(i, d)| *i as u64 >= d.size) {
            return Ok(None);
        }
        out[ki] = row;
    }
    Ok(Some(out))
}

fn axis_index(
    kind: &AxisKind,
    loops: &Loops,
    idx: &[usize],
    b: &SpecBindings,
    hole: Option<Key>,
    part: Option<usize>,
) -> Result<usize, String> {
    let label = |n: &str| {
        loops.at(&Key::Label(n.to_string()), idx).ok_or(format!("label {n} without a loop"))
    };
    match kind {
        AxisKind::Label(n) => label(n),
        AxisKind::Placeholder => {
            hole.and_then(|h| loops.at(&h, idx)).ok_or("a placeholder in the result".into())
        }
        AxisKind::Int(i) => Ok(*i as usize),
        AxisKind::Affine(a) => {
            let s = coeff(&a.stride)?;
            let mut i = s * label(&a.over)? + a.offset as usize;
            if let Some(c) = &a.conv {
                if c.padding != Padding::Valid {
                    return Err("padded convolutions are not evaluated naively".into());
                }
                i += coeff(&c.dilation)? * label(&c.kernel)?;
            }
            Ok(i)
        }
        AxisKind::Concat(parts) => {
            let j = part.ok_or("a concatenation outside the result")?;
            let before: u64 = parts[..j].iter().map(|p| part_size(p, b)).sum();
            match parts.get(j) {
                Some(ConcatPart::Label(l)) => Ok(before as usize + label(l)?),
                _ => Err("a sized concatenation component".into()),
            }
        }
    }
}

fn part_size(p: &ConcatPart, b: &SpecBindings) -> u64 {
    match p {
        ConcatPart::Size(n) => *n,
        ConcatPart::Label(l) => b.label(l).unwrap_or(0),
    }
}

fn coeff(c: &crate::spec::ast::Coeff) -> Result<usize, String> {
    match c {
        crate::spec::ast::Coeff::Int(n) => Ok(*n as usize),
        crate::spec::ast::Coeff::Name(n) => Err(format!("host coefficient {n}")),
    }
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
