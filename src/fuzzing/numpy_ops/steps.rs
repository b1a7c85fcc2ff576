//! Valid steps of every operation but einsum: operands picked among earlier values (so that
//! steps take results of earlier steps) or made fresh to fit, and parameters numpy accepts,
//! integer axes written positive or negative.

use super::builder::{insert_somewhere, permutation, signed, Builder};
use super::config::MAX_ELEMENTS;
use super::op::{Axes, NpKind, NpOp};
use super::verdict::{broadcast_shapes, verdict};
use crate::fuzzing::gen::Draw;

/// Draws one valid step of `kind`; returns its index, or `None` when the step drawn would
/// be too large ([`MAX_ELEMENTS`] elements, or
/// [`MAX_EINSUM_POINTS`](super::config::MAX_EINSUM_POINTS) einsum loop points) and
/// was taken back.
pub fn step(b: &mut Builder, d: &mut dyn Draw, kind: NpKind) -> Option<usize> {
    let mark = b.mark();
    let i = any_step(b, d, kind);
    match i {
        Some(i) if b.numel(i) <= MAX_ELEMENTS => Some(i),
        _ => {
            b.rollback(mark);
            None
        }
    }
}

fn any_step(b: &mut Builder, d: &mut dyn Draw, kind: NpKind) -> Option<usize> {
    Some(match kind {
        NpKind::Add => add(b, d),
        NpKind::Matmul => matmul(b, d),
        NpKind::Einsum => super::einsum_draw::einsum_step(b, d)?,
        NpKind::Concatenate => concatenate(b, d),
        NpKind::Stack => stack(b, d),
        NpKind::Transpose => transpose(b, d),
        NpKind::Sum => sum(b, d),
        NpKind::ExpandDims => expand_dims(b, d),
        NpKind::Squeeze => squeeze(b, d),
        NpKind::Reshape => reshape(b, d),
    })
}

fn any(_: &[usize]) -> bool {
    true
}

fn add(b: &mut Builder, d: &mut dyn Draw) -> usize {
    let a = b.operand(d, any, |b, d| b.shape(d, 0));
    let sa = b.shape_of(a).to_vec();
    let other = b.operand(d, |s| broadcast_shapes(&[&sa, s]).is_ok(), |b, d| b.partner(d, &sa));
    let args = if d.one_in(2) { vec![other, a] } else { vec![a, other] };
    b.push(NpOp::Add, args)
}

/// A fresh operand for the other side of a matmul with `s` (on the right when `right`).
fn matmul_partner(b: &Builder, d: &mut dyn Draw, s: &[usize], right: bool) -> Vec<usize> {
    let k = if right || s.len() == 1 { s[s.len() - 1] } else { s[s.len() - 2] };
    if d.one_in(4) {
        return vec![k];
    }
    let mut out = b.partner(d, &s[..s.len().saturating_sub(2)]);
    let n = b.size(d);
    out.extend(if right { [k, n] } else { [n, k] });
    out
}

fn matmul(b: &mut Builder, d: &mut dyn Draw) -> usize {
    let right = d.below(3) != 2;
    let a = b.operand(d, |s| !s.is_empty(), |b, d| b.matmul_shape(d));
    let sa = b.shape_of(a).to_vec();
    let fits = |s: &[usize]| {
        let (l, r) = if right { (&sa[..], s) } else { (s, &sa[..]) };
        verdict(&NpOp::Matmul, &[(l, "float64"), (r, "float64")]).is_ok()
    };
    let other = b.operand(d, fits, |b, d| matmul_partner(b, d, &sa, right));
    b.push(NpOp::Matmul, if right { vec![a, other] } else { vec![other, a] })
}

fn concatenate(b: &mut Builder, d: &mut dyn Draw) -> usize {
    let flat = d.one_in(8);
    let min = usize::from(!flat);
    let a = b.operand(d, |s| s.len() >= min, |b, d| b.shape(d, min));
    let sa = b.shape_of(a).to_vec();
    let ax = d.below(sa.len());
    let axis = if flat { None } else { Some(signed(d, ax, sa.len())) };
    let mut args = vec![a];
    for _ in 0..1 + d.below(b.cfg.operands() - 1) {
        let fits = |s: &[usize]| {
            flat || (s.len() == sa.len() && (0..s.len()).all(|i| i == ax || s[i] == sa[i]))
        };
        let other = b.operand(d, fits, |b, d| {
            if flat {
                return b.shape(d, 0);
            }
            let mut s = sa.clone();
            s[ax] = b.size(d);
            s
        });
        insert_somewhere(d, &mut args, other);
    }
    b.push(NpOp::Concatenate { axis }, args)
}

fn stack(b: &mut Builder, d: &mut dyn Draw) -> usize {
    let a = b.operand(d, any, |b, d| b.shape(d, 0));
    let sa = b.shape_of(a).to_vec();
    let mut args = vec![a];
    for _ in 0..d.below(b.cfg.operands()) {
        let other = b.operand(d, |s| s == sa.as_slice(), |_, _| sa.clone());
        insert_somewhere(d, &mut args, other);
    }
    let ax = d.below(sa.len() + 1);
    let axis = signed(d, ax, sa.len() + 1);
    b.push(NpOp::Stack { axis }, args)
}

fn transpose(b: &mut Builder, d: &mut dyn Draw) -> usize {
    let a = b.operand(d, any, |b, d| b.shape(d, 0));
    let n = b.shape_of(a).len();
    let axes = if d.one_in(6) {
        None
    } else {
        Some(permutation(d, n).into_iter().map(|ax| signed(d, ax, n)).collect())
    };
    b.push(NpOp::Transpose { axes }, vec![a])
}

fn sum(b: &mut Builder, d: &mut dyn Draw) -> usize {
    let a = b.operand(d, any, |b, d| b.shape(d, 0));
    let n = b.shape_of(a).len();
    let axis = match d.below(4) {
        _ if n == 0 => Axes::All,
        1 => Axes::All,
        2 => {
            let mut chosen = Vec::new();
            for ax in permutation(d, n) {
                if d.below(2) == 0 {
                    chosen.push(signed(d, ax, n));
                }
            }
            Axes::Many(chosen)
        }
        _ => {
            let ax = d.below(n);
            Axes::One(signed(d, ax, n))
        }
    };
    let keepdims = d.one_in(2);
    b.push(NpOp::Sum { axis, keepdims }, vec![a])
}

fn expand_dims(b: &mut Builder, d: &mut dyn Draw) -> usize {
    let a = b.operand(d, any, |b, d| b.shape(d, 0));
    let n = b.shape_of(a).len();
    let ax = d.below(n + 1);
    let axis = signed(d, ax, n + 1);
    b.push(NpOp::ExpandDims { axis }, vec![a])
}

fn squeeze(b: &mut Builder, d: &mut dyn Draw) -> usize {
    let a = b.operand(
        d,
        |s| s.contains(&1),
        |b, d| {
            let mut s = b.shape(d, 0);
            insert_somewhere(d, &mut s, 1);
            s
        },
    );
    let s = b.shape_of(a).to_vec();
    let ones: Vec<usize> = (0..s.len()).filter(|&i| s[i] == 1).collect();
    let axis = if d.one_in(4) {
        None
    } else {
        let ax = ones[d.below(ones.len())];
        Some(signed(d, ax, s.len()))
    };
    b.push(NpOp::Squeeze { axis }, vec![a])
}

fn reshape(b: &mut Builder, d: &mut dyn Draw) -> usize {
    let a = b.operand(d, any, |b, d| b.shape(d, 0));
    let s = b.shape_of(a).to_vec();
    let target: Vec<usize> = reshaped(d, &s);
    let mut shape: Vec<i64> = target.iter().map(|&x| x as i64).collect();
    if !target.is_empty() && d.one_in(3) {
        let at = d.below(target.len());
        let rest: usize =
            target.iter().enumerate().filter(|(i, _)| *i != at).map(|(_, x)| *x).product();
        if rest > 0 {
            shape[at] = -1;
        }
    }
    b.push(NpOp::Reshape { shape }, vec![a])
}

/// A shape of as many elements as `s`: flattened, two neighbours merged, an axis split in two,
/// a 1 inserted or removed.
fn reshaped(d: &mut dyn Draw, s: &[usize]) -> Vec<usize> {
    let mut t = s.to_vec();
    match d.below(5) {
        1 if t.len() >= 2 => {
            let i = d.below(t.len() - 1);
            let merged = t[i] * t[i + 1];
            t.splice(i..i + 2, [merged]);
        }
        2 if !t.is_empty() => {
            let i = d.below(t.len());
            let x = t[i];
            let f = (2..x).find(|f| x.is_multiple_of(*f)).unwrap_or(1);
            t.splice(i..=i, [f, x / f]);
        }
        3 => insert_somewhere(d, &mut t, 1),
        4 if t.contains(&1) => {
            let ones: Vec<usize> = (0..t.len()).filter(|&i| t[i] == 1).collect();
            t.remove(ones[d.below(ones.len())]);
        }
        _ => t = vec![s.iter().product()],
    }
    t
}
