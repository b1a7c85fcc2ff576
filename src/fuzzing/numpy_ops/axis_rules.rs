//! numpy's rules for the operations that take integer axes: `concatenate`, `stack`,
//! `transpose`, `sum`, `expand_dims`, `squeeze` and `reshape`. An axis `k` of an array of
//! `n` axes is valid in `-n..n` and means `k mod n`; numpy's `AxisError` is code `bounds`.
//! (One legacy exception: `sum` and `squeeze` of a 0-d array take the integer axis 0 or -1.)

use super::op::Axes;
use super::verdict::{shape_text, Rejection};
use crate::code::ErrorCode;

/// `k` as an index into `n` axes, or numpy's `AxisError`.
pub fn normalize_axis(k: i64, n: usize) -> Result<usize, Rejection> {
    let n_i = i64::try_from(n).unwrap_or(i64::MAX);
    if (-n_i..n_i).contains(&k) {
        Ok(if k < 0 { (k + n_i) as usize } else { k as usize })
    } else {
        let msg = format!("axis {k} is out of bounds for an array of {n} axes");
        Err(Rejection::new(ErrorCode::Bounds, msg))
    }
}

fn sum_sizes(mut sizes: impl Iterator<Item = usize>) -> Result<usize, Rejection> {
    sizes
        .try_fold(0usize, |a, s| a.checked_add(s))
        .ok_or_else(|| Rejection::new(ErrorCode::Elems, "the result's size overflows".to_string()))
}

/// `numpy.concatenate(operands, axis)`.
pub fn concatenate(shapes: &[&[usize]], axis: Option<i64>) -> Result<Vec<usize>, Rejection> {
    let Some(first) = shapes.first() else {
        return Err(Rejection::new(ErrorCode::Arity, "need at least one array to concatenate"));
    };
    let Some(axis) = axis else {
        let total = shapes.iter().map(|s| s.iter().try_fold(1usize, |a, d| a.checked_mul(*d)));
        let total: Option<Vec<usize>> = total.collect();
        let total = total.ok_or_else(|| Rejection::new(ErrorCode::Elems, "too many elements"))?;
        return Ok(vec![sum_sizes(total.into_iter())?]);
    };
    if first.is_empty() {
        return Err(Rejection::new(
            ErrorCode::Rank,
            "zero-dimensional arrays cannot be concatenated",
        ));
    }
    let ax = normalize_axis(axis, first.len())?;
    for (i, s) in shapes.iter().enumerate().skip(1) {
        if s.len() != first.len() {
            let msg = format!(
                "all the input arrays must have the same number of axes, but operand 0 has {} \
                 and operand {i} has {}",
                first.len(),
                s.len()
            );
            return Err(Rejection::new(ErrorCode::Rank, msg));
        }
        if let Some(d) = (0..s.len()).find(|&d| d != ax && s[d] != first[d]) {
            let msg = format!(
                "all the input array dimensions except for the concatenation axis must match \
                 exactly, but along axis {d} operand 0 has size {} and operand {i} has size {}",
                first[d], s[d]
            );
            return Err(Rejection::new(ErrorCode::Mismatch, msg));
        }
    }
    let mut out = first.to_vec();
    out[ax] = sum_sizes(shapes.iter().map(|s| s[ax]))?;
    Ok(out)
}

/// `numpy.stack(operands, axis)`: equal shapes, a new axis of the operand count.
pub fn stack(shapes: &[&[usize]], axis: i64) -> Result<Vec<usize>, Rejection> {
    let Some(first) = shapes.first() else {
        return Err(Rejection::new(ErrorCode::Arity, "need at least one array to stack"));
    };
    if let Some((i, s)) = shapes.iter().enumerate().find(|(_, s)| *s != first) {
        let code = if s.len() == first.len() { ErrorCode::Mismatch } else { ErrorCode::Rank };
        let msg = format!(
            "all input arrays must have the same shape: operand 0 is {}, operand {i} is {}",
            shape_text(first),
            shape_text(s)
        );
        return Err(Rejection::new(code, msg));
    }
    let ax = normalize_axis(axis, first.len() + 1)?;
    let mut out = first.to_vec();
    out.insert(ax, shapes.len());
    Ok(out)
}

/// `numpy.transpose(a, axes)`: `axes` is a permutation of the axes (entries may be negative);
/// `None` reverses them.
pub fn transpose(s: &[usize], axes: Option<&[i64]>) -> Result<Vec<usize>, Rejection> {
    let Some(axes) = axes else { return Ok(s.iter().rev().copied().collect()) };
    if axes.len() != s.len() {
        let msg =
            format!("axes don't match array: {} axes for an array of {}", axes.len(), s.len());
        return Err(Rejection::new(ErrorCode::Rank, msg));
    }
    let mut seen = vec![false; s.len()];
    let mut out = Vec::with_capacity(s.len());
    for &a in axes {
        let i = normalize_axis(a, s.len())?;
        if std::mem::replace(&mut seen[i], true) {
            return Err(Rejection::new(
                ErrorCode::Value,
                format!("repeated axis {a} in transpose"),
            ));
        }
        out.push(s[i]);
    }
    Ok(out)
}

/// Normalizes an `axis=` tuple: every entry in range (numpy's `AxisError` first), then no
/// axis twice.
fn axis_set(s: &[usize], axis: &Axes) -> Result<Vec<bool>, Rejection> {
    let list: Vec<i64> = match axis {
        Axes::All => return Ok(vec![true; s.len()]),
        Axes::One(a) => vec![*a],
        Axes::Many(v) => v.clone(),
    };
    let idx: Vec<usize> =
        list.iter().map(|&a| normalize_axis(a, s.len())).collect::<Result<_, _>>()?;
    let mut chosen = vec![false; s.len()];
    for i in idx {
        if std::mem::replace(&mut chosen[i], true) {
            return Err(Rejection::new(ErrorCode::Value, "duplicate value in 'axis'"));
        }
    }
    Ok(chosen)
}

/// Whether `axis` is numpy's legacy exception for 0-d operands: a reduction or a squeeze
/// of a 0-d array takes the integer axis 0 or -1 (not a tuple) and changes nothing.
fn scalar_axis(s: &[usize], axis: i64) -> bool {
    s.is_empty() && (axis == 0 || axis == -1)
}

/// `numpy.sum(a, axis, keepdims)`.
pub fn sum(s: &[usize], axis: &Axes, keepdims: bool) -> Result<Vec<usize>, Rejection> {
    if matches!(axis, Axes::One(a) if scalar_axis(s, *a)) {
        return Ok(Vec::new());
    }
    let chosen = axis_set(s, axis)?;
    Ok(s.iter()
        .zip(&chosen)
        .filter_map(|(&d, &c)| match (c, keepdims) {
            (false, _) => Some(d),
            (true, true) => Some(1),
            (true, false) => None,
        })
        .collect())
}

/// `numpy.expand_dims(a, axis)`: a size-1 axis at position `axis` of the result.
pub fn expand_dims(s: &[usize], axis: i64) -> Result<Vec<usize>, Rejection> {
    let ax = normalize_axis(axis, s.len() + 1)?;
    let mut out = s.to_vec();
    out.insert(ax, 1);
    Ok(out)
}

/// `numpy.squeeze(a, axis)`: the axis must have size 1; `None` removes every size-1 axis.
pub fn squeeze(s: &[usize], axis: Option<i64>) -> Result<Vec<usize>, Rejection> {
    let Some(axis) = axis else { return Ok(s.iter().copied().filter(|&d| d != 1).collect()) };
    if scalar_axis(s, axis) {
        return Ok(Vec::new());
    }
    let ax = normalize_axis(axis, s.len())?;
    if s[ax] != 1 {
        let msg = format!("cannot squeeze axis {axis} of size {}: its size is not 1", s[ax]);
        return Err(Rejection::new(ErrorCode::Mismatch, msg));
    }
    let mut out = s.to_vec();
    out.remove(ax);
    Ok(out)
}

/// `numpy.reshape(a, shape)`: the same number of elements; one entry may be `-1`, inferred
/// (not when the other entries multiply to 0).
pub fn reshape(s: &[usize], shape: &[i64]) -> Result<Vec<usize>, Rejection> {
    let bad = |msg: String| Err(Rejection::new(ErrorCode::Elems, msg));
    let unknown = shape.iter().filter(|&&d| d == -1).count();
    if unknown > 1 {
        return Err(Rejection::new(ErrorCode::Value, "can only specify one unknown dimension"));
    }
    if shape.iter().any(|&d| d < -1) {
        return Err(Rejection::new(ErrorCode::Value, "negative dimensions are not allowed"));
    }
    let total = s.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let known = shape
        .iter()
        .filter(|&&d| d >= 0)
        .try_fold(1usize, |a, &d| usize::try_from(d).ok().and_then(|d| a.checked_mul(d)));
    let (Some(total), Some(known)) = (total, known) else {
        return bad("the sizes overflow".into());
    };
    let what = || {
        format!(
            "cannot reshape an array of size {total} into shape {}",
            super::op::tuple_text(shape)
        )
    };
    if unknown == 1 {
        if known == 0 || total % known != 0 {
            return bad(what());
        }
        let fill = total / known;
        return Ok(shape.iter().map(|&d| if d == -1 { fill } else { d as usize }).collect());
    }
    if known != total {
        return bad(what());
    }
    Ok(shape.iter().map(|&d| d as usize).collect())
}
