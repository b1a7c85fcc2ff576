//! The dimension-expression operations that act on the transform directly: translations,
//! labels, strides and implicit flags. (Permutations and diagonals are in `permute`, the
//! NumPy-style indexing operations in `indexing`.)

use super::array::IndexArray;
use super::compose::singleton_to_constant;
use super::domain::{check_labels_unique, IndexDomain};
use super::error::{TsError, TsResult};
use super::interval::unless_implicit;
use super::transform::{IndexTransform, OutputMap};

pub(crate) use super::permute::{diagonal, move_to, transpose_to};

/// Which translation.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum TranslateKind {
    /// To the given origins.
    To,
    /// By the given offsets.
    By,
    /// By the negated offsets.
    BackwardBy,
}

/// Shifts the selected dimensions; output maps keep their values (`None` leaves a
/// dimension alone).
pub(crate) fn translate(
    t: &IndexTransform,
    dims: &[usize],
    values: &[Option<i64>],
    kind: TranslateKind,
) -> TsResult<IndexTransform> {
    let mut new_dims = t.dims().to_vec();
    let mut shifts = vec![0i64; t.input_rank()];
    for (&d, value) in dims.iter().zip(values) {
        let Some(v) = unless_implicit(*value) else { continue };
        let dim = &mut new_dims[d];
        let old = dim.interval();
        let (new, shift) = match kind {
            TranslateKind::To => {
                let new = old.shift_to(v)?;
                (new, new.inclusive_min() - old.inclusive_min())
            }
            TranslateKind::By => (old.shift(v)?, v),
            TranslateKind::BackwardBy => {
                let shift = v.checked_neg().ok_or_else(|| {
                    TsError::bounds(format!("Integer overflow negating offset {v}"))
                })?;
                (old.shift(shift)?, shift)
            }
        };
        dim.bounds.interval = new;
        shifts[d] = shift;
    }
    let mut output = Vec::with_capacity(t.output_rank());
    for (o, map) in t.output().iter().enumerate() {
        output.push(match map {
            OutputMap::SingleInputDimension { offset, stride, input_dimension } => {
                let offset = shifts[*input_dimension]
                    .checked_mul(*stride)
                    .and_then(|x| offset.checked_sub(x))
                    .ok_or_else(|| {
                        TsError::bounds(format!(
                            "Integer overflow computing output offset for dimension {o}."
                        ))
                    })?;
                OutputMap::single(offset, *stride, *input_dimension)
            }
            other => other.clone(),
        });
    }
    Ok(IndexTransform::from_parts(IndexDomain::new(new_dims)?, output))
}

/// Sets the labels of the selected dimensions.
pub(crate) fn label(
    t: &IndexTransform,
    dims: &[usize],
    labels: &[String],
) -> TsResult<IndexTransform> {
    if labels.len() != dims.len() {
        return Err(TsError::arity(format!(
            "Number of dimensions ({}) does not match number of labels ({}).",
            dims.len(),
            labels.len()
        )));
    }
    let mut new_dims = t.dims().to_vec();
    for (&d, l) in dims.iter().zip(labels) {
        new_dims[d].label = l.clone();
    }
    check_labels_unique(new_dims.iter().map(|d| d.label.as_str()))?;
    Ok(IndexTransform::from_parts(IndexDomain::new(new_dims)?, t.output().to_vec()))
}

/// How an input dimension was resampled: `old = offset + stride·new`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resample {
    pub offset: i64,
    pub stride: i64,
}

const UNCHANGED: Resample = Resample { offset: 0, stride: 1 };

/// Rewrites the output maps of `t` for the new domain `domain`, where each input dimension
/// was resampled as given.
pub(crate) fn resample_maps(
    t: &IndexTransform,
    domain: IndexDomain,
    info: &[Resample],
) -> TsResult<IndexTransform> {
    let empty = domain.is_explicitly_empty();
    let mut output = Vec::with_capacity(t.output_rank());
    for (o, map) in t.output().iter().enumerate() {
        let overflow = |what: &str| {
            TsError::bounds(format!("Integer overflow computing {what} for output dimension {o}"))
        };
        output.push(match map {
            OutputMap::Constant { .. } => map.clone(),
            OutputMap::SingleInputDimension { offset, stride, input_dimension } => {
                let r = info[*input_dimension];
                let offset = r
                    .offset
                    .checked_mul(*stride)
                    .and_then(|x| x.checked_add(*offset))
                    .ok_or_else(|| overflow("offset"))?;
                let stride = r.stride.checked_mul(*stride).ok_or_else(|| overflow("stride"))?;
                OutputMap::single(offset, stride, *input_dimension)
            }
            OutputMap::IndexArray { .. } if empty => OutputMap::constant(0),
            OutputMap::IndexArray { offset, stride, array, bounds } => {
                let new = resample_array(array, t.domain(), &domain, info)?;
                if new.is_singleton() {
                    singleton_to_constant(&new, *bounds, *offset, *stride, o)?
                } else {
                    OutputMap::IndexArray {
                        offset: *offset,
                        stride: *stride,
                        array: new,
                        bounds: *bounds,
                    }
                }
            }
        });
    }
    Ok(IndexTransform::from_parts(domain, output))
}

fn resample_array(
    array: &IndexArray,
    old: &IndexDomain,
    new: &IndexDomain,
    info: &[Resample],
) -> TsResult<IndexArray> {
    let new_origin = new.origin();
    let old_origin = old.origin();
    let shape: Vec<usize> = array
        .shape()
        .iter()
        .zip(new.shape())
        .map(|(&n, size)| if n != 1 && size != 1 { usize::try_from(size).unwrap_or(0) } else { 1 })
        .collect();
    let bad = || TsError::bounds("index array position out of range after resampling");
    IndexArray::from_fn(shape, |pos| {
        let mut old_pos = Vec::with_capacity(pos.len());
        for (d, &p) in pos.iter().enumerate() {
            if array.shape()[d] == 1 {
                old_pos.push(0);
                continue;
            }
            let x = i64::try_from(p).ok().and_then(|p| p.checked_add(new_origin[d]));
            let old_x = x
                .and_then(|x| x.checked_mul(info[d].stride))
                .and_then(|x| x.checked_add(info[d].offset))
                .and_then(|x| x.checked_sub(old_origin[d]));
            old_pos.push(old_x.and_then(|v| usize::try_from(v).ok()).ok_or_else(bad)?);
        }
        array.get(&old_pos).copied().ok_or_else(bad)
    })
}

/// Strides the selected dimensions: the new domain is `{x : x·s ∈ old}`.
pub(crate) fn stride(
    t: &IndexTransform,
    dims: &[usize],
    strides: &[Option<i64>],
) -> TsResult<IndexTransform> {
    let mut new_dims = t.dims().to_vec();
    let mut info = vec![UNCHANGED; t.input_rank()];
    for (&d, s) in dims.iter().zip(strides) {
        let s = s.unwrap_or(1);
        let ctx = format!("Applying stride to input dimension {d}");
        if s == 0 {
            return Err(TsError::value("Stride must be non-zero").context(ctx));
        }
        new_dims[d].bounds = new_dims[d].bounds.affine_domain(0, s).map_err(|e| e.context(ctx))?;
        info[d] = Resample { offset: 0, stride: s };
    }
    resample_maps(t, IndexDomain::new(new_dims)?, &info)
}

/// Marks the bounds of the selected dimensions implicit or explicit (first the explicit
/// changes, then the implicit ones, as TensorStore's Python API does).
pub(crate) fn mark_bounds_implicit(
    t: &IndexTransform,
    dims: &[usize],
    lower: Option<bool>,
    upper: Option<bool>,
) -> TsResult<IndexTransform> {
    let mut t = t.clone();
    for implicit in [false, true] {
        let (lo, hi) = (lower == Some(implicit), upper == Some(implicit));
        if lo || hi {
            t = change_implicit(&t, dims, implicit, lo, hi)?;
        }
    }
    Ok(t)
}

fn change_implicit(
    t: &IndexTransform,
    dims: &[usize],
    implicit: bool,
    lower: bool,
    upper: bool,
) -> TsResult<IndexTransform> {
    if implicit {
        for (o, map) in t.output().iter().enumerate() {
            let OutputMap::IndexArray { array, .. } = map else { continue };
            if let Some(&d) = dims.iter().find(|&&d| array.shape().get(d).is_some_and(|&n| n != 1))
            {
                return Err(TsError::bounds(format!(
                    "Cannot mark input dimension {d} as having implicit bounds because it \
                     indexes the index array map for output dimension {o}"
                )));
            }
        }
    }
    let mut new_dims = t.dims().to_vec();
    for &d in dims {
        if lower {
            new_dims[d].bounds.implicit_lower = implicit;
        }
        if upper {
            new_dims[d].bounds.implicit_upper = implicit;
        }
    }
    let domain = IndexDomain::new(new_dims)?;
    let empty = !implicit && domain.is_explicitly_empty();
    let output = t
        .output()
        .iter()
        .map(|m| match m {
            OutputMap::IndexArray { .. } if empty => OutputMap::constant(0),
            other => other.clone(),
        })
        .collect();
    Ok(IndexTransform::from_parts(domain, output))
}
