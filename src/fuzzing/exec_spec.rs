//! The naive evaluator's spec operations: one loop per label, row-variable axis and operand
//! placeholder; a result concatenation is evaluated one component at a time, reading only the
//! operands that mention that component.

use super::exec::{kinds, odometer, offset, Idx};
use super::model::ConcreteShape;
use super::spec_rules::SpecBindings;
use crate::infer::OpKind;
use crate::spec::ast::{Axis, AxisKind, ConcatPart, EinsumSpec, Padding, Row, ShapeSpec};

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

pub(crate) fn eval_spec(
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

fn mentions_any(slot: &ShapeSpec, names: &[&str]) -> bool {
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
    slot: &ShapeSpec,
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
            let middle = &mut row[r.leading.len()..len - r.trailing.len()];
            for (q, slot) in middle.iter_mut().enumerate() {
                let key = Key::RowAxis(e.var_name(kind).to_string(), q);
                *slot = loops.at(&key, idx).ok_or("row variable axis without a loop")?;
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
                if !matches!(c.padding, Padding::Valid | Padding::Floor(0)) {
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
        // Row-major: each label's index times the sizes of the labels after it.
        AxisKind::Flat(labels) => labels.iter().try_fold(0usize, |at, (l, _)| {
            let size = b.label(l).ok_or(format!("label {l} without a size"))? as usize;
            Ok(at * size + label(l)?)
        }),
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
