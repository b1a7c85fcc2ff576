//! Reordering and merging input dimensions: `transpose`, `move_to` and `diagonal`.

use super::array::IndexArray;
use super::domain::{check_rank, Dim, IndexDomain};
use super::error::{TsError, TsResult};
use super::interval::{Interval, OptInterval};
use super::select::{normalize_index, resolve, DimSelector};
use super::transform::{IndexTransform, OutputMap};

/// Reorders the input dimensions: new dimension `i` is old dimension `perm[i]`.
fn permute(t: &IndexTransform, perm: &[usize]) -> TsResult<IndexTransform> {
    let rank = t.input_rank();
    let mut inverse = vec![0usize; rank];
    for (new, &old) in perm.iter().enumerate() {
        inverse[old] = new;
    }
    let dims: Vec<Dim> = perm.iter().map(|&old| t.dims()[old].clone()).collect();
    let mut output = Vec::with_capacity(t.output_rank());
    for map in t.output() {
        output.push(match map {
            OutputMap::SingleInputDimension { offset, stride, input_dimension } => {
                OutputMap::single(*offset, *stride, inverse[*input_dimension])
            }
            OutputMap::IndexArray { offset, stride, array, bounds } => OutputMap::IndexArray {
                offset: *offset,
                stride: *stride,
                array: permute_array(array, perm)?,
                bounds: *bounds,
            },
            constant => constant.clone(),
        });
    }
    Ok(IndexTransform::from_parts(IndexDomain::new(dims)?, output))
}

fn permute_array(array: &IndexArray, perm: &[usize]) -> TsResult<IndexArray> {
    let shape: Vec<usize> = perm.iter().map(|&old| array.shape()[old]).collect();
    IndexArray::from_fn(shape, |pos| {
        let mut old_pos = vec![0usize; pos.len()];
        for (new, &old) in perm.iter().enumerate() {
            old_pos[old] = pos[new];
        }
        array.get(&old_pos).copied().ok_or_else(|| TsError::bounds("array position"))
    })
}

/// Moves the selected dimensions to consecutive positions starting at `target` (negative:
/// ending at `target` from the end); the others keep their relative order.
pub(crate) fn move_to(t: &IndexTransform, dims: &[usize], target: i64) -> TsResult<IndexTransform> {
    let rank = t.input_rank();
    if dims.is_empty() {
        return Ok(t.clone());
    }
    let start = normalize_index(target, rank + 1 - dims.len())?;
    let mut perm: Vec<Option<usize>> = vec![None; rank];
    for (i, &d) in dims.iter().enumerate() {
        perm[start + i] = Some(d);
    }
    fill_remaining(&mut perm, dims).and_then(|perm| permute(t, &perm))
}

fn fill_remaining(perm: &mut [Option<usize>], moved: &[usize]) -> TsResult<Vec<usize>> {
    let mut rest = (0..perm.len()).filter(|d| !moved.contains(d));
    for slot in perm.iter_mut().filter(|s| s.is_none()) {
        *slot = rest.next();
    }
    perm.iter().map(|s| s.ok_or_else(|| TsError::rank("permutation is incomplete"))).collect()
}

/// Moves the selected dimensions to the given target indices (indices or ranges, no labels).
pub(crate) fn transpose_to(
    t: &IndexTransform,
    dims: &[usize],
    targets: &[DimSelector],
) -> TsResult<IndexTransform> {
    let rank = t.input_rank();
    let mut target_dims: Vec<i64> = Vec::new();
    for s in targets {
        match s {
            DimSelector::Index(i) => target_dims.push(*i),
            DimSelector::Range { .. } => {
                let no_labels = vec![""; rank];
                let r = resolve(std::slice::from_ref(s), no_labels.iter().copied())?;
                target_dims.extend(r.into_iter().map(|d| d as i64));
            }
            DimSelector::Label(_) => {
                return Err(TsError::label("Target dimensions cannot be specified by label"));
            }
        }
    }
    if target_dims.len() != dims.len() {
        return Err(TsError::arity(format!(
            "Number of selected dimensions ({}) must equal number of target dimensions ({})",
            dims.len(),
            target_dims.len()
        )));
    }
    let mut perm: Vec<Option<usize>> = vec![None; rank];
    for (&d, &target) in dims.iter().zip(&target_dims) {
        let target = normalize_index(target, rank)?;
        if perm[target].is_some() {
            return Err(TsError::label(format!("Target dimension {target} occurs more than once")));
        }
        perm[target] = Some(d);
    }
    let perm = fill_remaining(&mut perm, dims)?;
    permute(t, &perm)
}

/// The diagonal of the selected dimensions: they are replaced by one new first dimension
/// whose domain is their intersection (a bound is implicit only if it is implicit in all).
pub(crate) fn diagonal(t: &IndexTransform, dims: &[usize]) -> TsResult<IndexTransform> {
    let rank = t.input_rank();
    let new_rank = rank + 1 - dims.len();
    check_rank(new_rank)?;
    let mut orig_to_new = vec![0usize; rank];
    let mut next = 1;
    for (d, slot) in orig_to_new.iter_mut().enumerate() {
        if !dims.contains(&d) {
            *slot = next;
            next += 1;
        }
    }
    let mut interval = Interval::INFINITE;
    let (mut implicit_lower, mut implicit_upper) = (true, true);
    for &d in dims {
        let b = t.dims()[d].bounds;
        interval = interval.intersect(b.interval);
        implicit_lower &= b.implicit_lower;
        implicit_upper &= b.implicit_upper;
    }
    let diag = OptInterval { interval, implicit_lower, implicit_upper };
    let mut new_dims = vec![Dim { bounds: diag, label: String::new() }];
    new_dims.extend((0..rank).filter(|d| !dims.contains(d)).map(|d| t.dims()[d].clone()));
    let domain = IndexDomain::new(new_dims)?;
    let empty = !implicit_lower && !implicit_upper && interval.is_empty();
    let mut output = Vec::with_capacity(t.output_rank());
    for map in t.output() {
        output.push(match map {
            OutputMap::SingleInputDimension { offset, stride, input_dimension } => {
                OutputMap::single(*offset, *stride, orig_to_new[*input_dimension])
            }
            OutputMap::IndexArray { .. } if empty => OutputMap::constant(0),
            OutputMap::IndexArray { offset, stride, array, bounds } => OutputMap::IndexArray {
                offset: *offset,
                stride: *stride,
                array: diagonal_array(array, t.domain(), &domain, dims, &orig_to_new)?,
                bounds: *bounds,
            },
            constant => constant.clone(),
        });
    }
    Ok(IndexTransform::from_parts(domain, output))
}

fn diagonal_array(
    array: &IndexArray,
    old: &IndexDomain,
    new: &IndexDomain,
    dims: &[usize],
    orig_to_new: &[usize],
) -> TsResult<IndexArray> {
    let diag_size = new.dims()[0].interval().size();
    let diag_depends = dims.iter().any(|&d| array.shape()[d] != 1);
    let mut shape = vec![1usize; new.rank()];
    if diag_depends && diag_size != 1 {
        shape[0] = usize::try_from(diag_size).unwrap_or(0);
    }
    for (d, &nd) in orig_to_new.iter().enumerate() {
        if nd != 0 {
            shape[nd] = array.shape()[d];
        }
    }
    let diag_min = new.dims()[0].interval().inclusive_min();
    let old_origin = old.origin();
    let bad = || TsError::bounds("index array position out of range in diagonal");
    IndexArray::from_fn(shape, |pos| {
        let mut old_pos = Vec::with_capacity(orig_to_new.len());
        for (d, &nd) in orig_to_new.iter().enumerate() {
            if array.shape()[d] == 1 {
                old_pos.push(0);
            } else if nd == 0 {
                let x = i64::try_from(pos[0]).ok().and_then(|p| p.checked_add(diag_min));
                let rel = x.and_then(|x| x.checked_sub(old_origin[d]));
                old_pos.push(rel.and_then(|r| usize::try_from(r).ok()).ok_or_else(bad)?);
            } else {
                old_pos.push(pos[nd]);
            }
        }
        array.get(&old_pos).copied().ok_or_else(bad)
    })
}
