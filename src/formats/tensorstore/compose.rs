//! Composition of transforms: `compose(b_to_c, a_to_b)` maps `a` to `c`.
//!
//! The domain of the result is `a_to_b`'s domain with its implicit bounds replaced by the
//! bounds propagated back from `b_to_c`'s domain (explicit bounds of `b` make the propagated
//! bounds explicit); explicit bounds of `a` must lie inside the propagated ones. Index arrays
//! are carried over or recomputed on the new domain, and an array holding a single value
//! becomes a constant map (after checking the value against the array's bounds).

use super::array::{element_count, ElementBudget, IndexArray};
use super::domain::{Dim, IndexDomain};
use super::error::{TsError, TsResult};
use super::interval::{Interval, OptInterval};
use super::transform::{IndexTransform, OutputMap};

fn overflow(what: &str, dim: usize) -> TsError {
    TsError::bounds(format!("Integer overflow computing {what} for output dimension {dim}"))
}

/// The implicit flags of `a`: those of `a_to_b`, made explicit where an explicit bound of
/// `b` is propagated through a single-input map.
fn implicit_state(b: &IndexDomain, a_to_b: &IndexTransform) -> Vec<(bool, bool)> {
    let mut flags: Vec<(bool, bool)> =
        a_to_b.dims().iter().map(|d| (d.implicit_lower(), d.implicit_upper())).collect();
    for (b_dim, map) in a_to_b.output().iter().enumerate() {
        let (OutputMap::SingleInputDimension { stride, input_dimension, .. }, Some(bd)) =
            (map, b.dim(b_dim))
        else {
            continue;
        };
        let (mut lo, mut hi) = (bd.implicit_lower(), bd.implicit_upper());
        if *stride < 0 {
            std::mem::swap(&mut lo, &mut hi);
        }
        if let Some(f) = flags.get_mut(*input_dimension) {
            f.0 &= lo;
            f.1 &= hi;
        }
    }
    flags
}

/// The bounds of `b` propagated back through the single-input maps of `a_to_b`, one entry
/// per input dimension of `a_to_b` (`None` where nothing was propagated). Also checks
/// constant maps against `b`.
fn inferred_bounds(b: &IndexDomain, a_to_b: &IndexTransform) -> TsResult<Vec<Option<OptInterval>>> {
    let empty = a_to_b.domain().is_explicitly_empty();
    let mut inferred: Vec<Option<OptInterval>> = vec![None; a_to_b.input_rank()];
    for (b_dim, map) in a_to_b.output().iter().enumerate() {
        let b_oi = b.dim(b_dim).map(|d| d.bounds).unwrap_or_default();
        match *map {
            OutputMap::IndexArray { .. } => continue,
            OutputMap::SingleInputDimension { offset, stride, input_dimension: a_dim } => {
                let p = b_oi.affine_domain(offset, stride).map_err(|e| {
                    e.context(format!(
                        "Propagating bounds from dimension {b_dim} to input dimension {a_dim}"
                    ))
                })?;
                if let Some(slot) = inferred.get_mut(a_dim) {
                    *slot = Some(p.intersect_preferring_explicit(slot.unwrap_or_default()));
                }
            }
            _ if empty => {}
            _ => b_oi.effective().check_contains(map.offset()).map_err(|e| {
                e.context(format!(
                    "Checking bounds of constant output index map for dimension {b_dim}"
                ))
            })?,
        }
    }
    Ok(inferred)
}

/// The domain of `b_to_c ∘ a_to_b`.
fn propagate_domain(b: &IndexDomain, a_to_b: &IndexTransform) -> TsResult<IndexDomain> {
    let flags = implicit_state(b, a_to_b);
    let inferred = inferred_bounds(b, a_to_b)?;
    let empty = a_to_b.domain().is_explicitly_empty();
    let mut dims = Vec::with_capacity(a_to_b.input_rank());
    for (a_dim, (d, inf)) in a_to_b.dims().iter().zip(inferred).enumerate() {
        let existing = d.interval();
        let interval = match inf {
            None => existing,
            Some(inf) => {
                let lo = if d.implicit_lower() { inf.interval } else { existing }.inclusive_min();
                let hi = if d.implicit_upper() { inf.interval } else { existing }.inclusive_max();
                let combined = Interval::closed_or_empty(lo, hi.max(lo.saturating_sub(1)));
                if !empty && !inf.effective().contains_interval(combined) {
                    return Err(TsError::bounds(format!(
                        "Propagated bounds {inf} for dimension {a_dim} are incompatible with \
                         existing bounds {combined}."
                    )));
                }
                combined
            }
        };
        let (implicit_lower, implicit_upper) = flags[a_dim];
        let bounds = OptInterval { interval, implicit_lower, implicit_upper };
        dims.push(Dim { bounds, label: d.label.clone() });
    }
    IndexDomain::new(dims)
}

/// Composes two transforms: the result maps the input domain of `a_to_b` to the output
/// space of `b_to_c`. `a_to_b`'s output rank must equal `b_to_c`'s input rank.
///
/// The index arrays recomputed for all output dimensions together hold at most
/// [`MAX_ARRAY_ELEMENTS`](super::MAX_ARRAY_ELEMENTS) elements; more is a bounds error,
/// raised before anything is allocated.
pub fn compose(b_to_c: &IndexTransform, a_to_b: &IndexTransform) -> TsResult<IndexTransform> {
    if a_to_b.output_rank() != b_to_c.input_rank() {
        return Err(TsError::rank(format!(
            "Rank {} -> {} transform cannot be composed with rank {} -> {} transform.",
            b_to_c.input_rank(),
            b_to_c.output_rank(),
            a_to_b.input_rank(),
            a_to_b.output_rank()
        )));
    }
    let domain = propagate_domain(b_to_c.domain(), a_to_b)?;
    let mut output = Vec::with_capacity(b_to_c.output_rank());
    reserve_arrays(b_to_c, a_to_b, &domain)?;
    for (c_dim, map) in b_to_c.output().iter().enumerate() {
        output.push(compose_map(c_dim, map, b_to_c.domain(), a_to_b, &domain)?);
    }
    Ok(IndexTransform::from_parts(domain, output))
}

fn compose_map(
    c_dim: usize,
    map: &OutputMap,
    b: &IndexDomain,
    a_to_b: &IndexTransform,
    a: &IndexDomain,
) -> TsResult<OutputMap> {
    match map {
        _ if map.stride() == 0 => Ok(OutputMap::constant(map.offset())),
        OutputMap::Constant { offset } => Ok(OutputMap::constant(*offset)),
        OutputMap::SingleInputDimension { offset, stride, input_dimension } => {
            let inner = a_to_b.output().get(*input_dimension).ok_or_else(|| {
                TsError::rank(format!("input dimension {input_dimension} has no map"))
            })?;
            let b_dim = b.dim(*input_dimension).map(|d| d.bounds).unwrap_or_default();
            through_single(c_dim, *offset, *stride, inner, b_dim, a)
        }
        OutputMap::IndexArray { offset, stride, array, bounds } => {
            if a.is_explicitly_empty() {
                return Ok(OutputMap::constant(0));
            }
            let Some(new_array) = transform_array(array, b, a_to_b, a)? else {
                return Ok(OutputMap::constant(0));
            };
            if new_array.is_singleton() {
                return singleton_to_constant(&new_array, *bounds, *offset, *stride, c_dim);
            }
            Ok(OutputMap::IndexArray {
                offset: *offset,
                stride: *stride,
                array: new_array,
                bounds: *bounds,
            })
        }
    }
}

/// The constant map `offset + stride·value` for a single-valued array (value checked
/// against `bounds`).
pub(crate) fn singleton_to_constant(
    array: &IndexArray,
    bounds: Interval,
    offset: i64,
    stride: i64,
    dim: usize,
) -> TsResult<OutputMap> {
    let value = array.data().first().copied().unwrap_or(0);
    bounds
        .check_contains(value)
        .map_err(|e| e.context(format!("In index array map for output dimension {dim}")))?;
    let v = value
        .checked_mul(stride)
        .and_then(|v| v.checked_add(offset))
        .ok_or_else(|| overflow("offset", dim))?;
    Ok(OutputMap::constant(v))
}

/// `c = offset + stride·b[k]` where `b[k]` is given by `inner` (a map of `a_to_b`).
fn through_single(
    c_dim: usize,
    offset: i64,
    stride: i64,
    inner: &OutputMap,
    b_dim: OptInterval,
    a: &IndexDomain,
) -> TsResult<OutputMap> {
    let new_offset = inner
        .offset()
        .checked_mul(stride)
        .and_then(|v| offset.checked_add(v))
        .ok_or_else(|| overflow("offset", c_dim))?;
    if inner.stride() == 0 {
        return Ok(OutputMap::constant(new_offset));
    }
    let new_stride = inner.stride().checked_mul(stride).ok_or_else(|| overflow("stride", c_dim))?;
    match inner {
        OutputMap::SingleInputDimension { input_dimension, .. } => {
            Ok(OutputMap::single(new_offset, new_stride, *input_dimension))
        }
        OutputMap::IndexArray { offset: io, stride: is, array, bounds } => {
            if a.is_explicitly_empty() {
                return Ok(OutputMap::constant(0));
            }
            let propagated = b_dim.effective().affine_domain(*io, *is)?;
            let index_range = bounds.intersect(propagated);
            if array.is_singleton() {
                return singleton_to_constant(array, index_range, new_offset, new_stride, c_dim);
            }
            Ok(OutputMap::IndexArray {
                offset: new_offset,
                stride: new_stride,
                array: array.clone(),
                bounds: index_range,
            })
        }
        OutputMap::Constant { .. } => Ok(OutputMap::constant(new_offset)),
    }
}

/// Where the coordinate of one `b` dimension comes from, for an `a` index vector.
enum Source<'a> {
    Fixed(i64),
    Input { dim: usize, offset: i64, stride: i64 },
    Array { offset: i64, stride: i64, array: &'a IndexArray },
}

fn source_for<'a>(
    k: usize,
    map: &'a OutputMap,
    b_int: Interval,
    a: &IndexDomain,
) -> TsResult<Source<'a>> {
    match *map {
        _ if map.stride() == 0 => {
            b_int.check_contains(map.offset()).map_err(|e| {
                e.context(format!("Checking bounds of constant output index map for dimension {k}"))
            })?;
            Ok(Source::Fixed(map.offset()))
        }
        OutputMap::SingleInputDimension { offset, stride, input_dimension } => {
            let a_int = a.dim(input_dimension).map(Dim::interval).unwrap_or_default();
            let range = a_int.affine_range(offset, stride).map_err(|e| {
                e.context(format!("Checking bounds of output index map for dimension {k}"))
            })?;
            if !b_int.contains_interval(range) {
                return Err(TsError::bounds(format!(
                    "Output dimension {k} range of {range} is not contained within array \
                     domain of {b_int}"
                )));
            }
            Ok(Source::Input { dim: input_dimension, offset, stride })
        }
        OutputMap::IndexArray { offset, stride, ref array, bounds } => {
            let index_bounds = b_int.affine_domain(offset, stride)?.intersect(bounds);
            let ctx = || format!("In index array map for output dimension {k}");
            for &v in array.data() {
                index_bounds.check_contains(v).map_err(|e| e.context(ctx()))?;
            }
            match array.data() {
                [v] => v
                    .checked_mul(stride)
                    .and_then(|x| x.checked_add(offset))
                    .map(Source::Fixed)
                    .ok_or_else(|| overflow("offset", k)),
                _ => Ok(Source::Array { offset, stride, array }),
            }
        }
        OutputMap::Constant { offset } => Ok(Source::Fixed(offset)),
    }
}

impl Source<'_> {
    /// The `b` coordinate at result position `pos` (`origin`: the result domain's origin).
    fn coordinate(&self, pos: &[usize], origin: &[i64]) -> Option<i64> {
        match self {
            Source::Fixed(c) => Some(*c),
            Source::Input { dim, offset, stride } => pos
                .get(*dim)
                .and_then(|&q| i64::try_from(q).ok())
                .zip(origin.get(*dim))
                .and_then(|(q, o)| q.checked_add(*o))
                .and_then(|x| x.checked_mul(*stride))
                .and_then(|x| x.checked_add(*offset)),
            Source::Array { offset, stride, array } => {
                let p: Vec<usize> = array
                    .shape()
                    .iter()
                    .zip(pos)
                    .map(|(&n, &q)| if n == 1 { 0 } else { q })
                    .collect();
                array
                    .get(&p)
                    .and_then(|v| v.checked_mul(*stride))
                    .and_then(|v| v.checked_add(*offset))
            }
        }
    }

    /// Whether the coordinate varies along result dimension `d`.
    fn depends_on(&self, d: usize) -> bool {
        match self {
            Source::Input { dim, .. } => *dim == d,
            Source::Array { array, .. } => array.shape().get(d).is_some_and(|&n| n != 1),
            Source::Fixed(_) => false,
        }
    }
}

/// The extents of the recomputed array: the domain size where some source varies, else 1.
fn result_shape(sources: &[Option<Source<'_>>], a: &IndexDomain) -> TsResult<Vec<usize>> {
    let shape: Vec<usize> = a
        .dims()
        .iter()
        .enumerate()
        .map(|(d, x)| {
            let size = usize::try_from(x.interval().size()).unwrap_or(usize::MAX);
            let varies = sources.iter().flatten().any(|s| s.depends_on(d));
            if size != 1 && varies {
                size
            } else {
                1
            }
        })
        .collect();
    element_count(&shape)?;
    Ok(shape)
}

/// Where each `b` coordinate of the recomputed array comes from (`None` where `array` does
/// not vary), and the recomputed array's shape. `None` when `a` holds no index vector.
type ArrayPlan<'a> = Option<(Vec<Option<Source<'a>>>, Vec<usize>)>;

fn plan_array<'a>(
    array: &IndexArray,
    b: &IndexDomain,
    a_to_b: &'a IndexTransform,
    a: &IndexDomain,
) -> TsResult<ArrayPlan<'a>> {
    if a.dims().iter().any(|d| d.interval().is_empty()) {
        return Ok(None);
    }
    let mut sources = Vec::with_capacity(b.rank());
    for (k, (&extent, map)) in array.shape().iter().zip(a_to_b.output()).enumerate() {
        let b_int = b.dim(k).map(Dim::interval).unwrap_or_default();
        sources.push(if extent == 1 { None } else { Some(source_for(k, map, b_int, a)?) });
    }
    let shape = result_shape(&sources, a)?;
    Ok(Some((sources, shape)))
}

/// Checks, before any array is computed, that the index arrays recomputed for all output
/// dimensions together stay within [`MAX_ARRAY_ELEMENTS`](super::MAX_ARRAY_ELEMENTS).
fn reserve_arrays(
    b_to_c: &IndexTransform,
    a_to_b: &IndexTransform,
    a: &IndexDomain,
) -> TsResult<()> {
    if a.is_explicitly_empty() {
        return Ok(());
    }
    let mut budget = ElementBudget::new();
    for (c_dim, map) in b_to_c.output().iter().enumerate() {
        if let (OutputMap::IndexArray { array, .. }, true) = (map, map.stride() != 0) {
            if let Some((_, shape)) = plan_array(array, b_to_c.domain(), a_to_b, a)? {
                budget.take(&shape, c_dim)?;
            }
        }
    }
    Ok(())
}

/// Recomputes the index array `array` (over `b`) on the domain `a` through `a_to_b`.
/// `None` when `a` holds no index vector.
fn transform_array(
    array: &IndexArray,
    b: &IndexDomain,
    a_to_b: &IndexTransform,
    a: &IndexDomain,
) -> TsResult<Option<IndexArray>> {
    let Some((sources, shape)) = plan_array(array, b, a_to_b, a)? else {
        return Ok(None);
    };
    let origin = a.origin();
    let b_origin = b.origin();
    let bad = || TsError::bounds("index array position out of range");
    let new = IndexArray::from_fn(shape, |pos| {
        let mut b_pos = Vec::with_capacity(sources.len());
        for (s, &base) in sources.iter().zip(&b_origin) {
            let rel = match s {
                None => 0,
                Some(s) => {
                    s.coordinate(pos, &origin).and_then(|c| c.checked_sub(base)).ok_or_else(bad)?
                }
            };
            b_pos.push(usize::try_from(rel).map_err(|_| bad())?);
        }
        array.get(&b_pos).copied().ok_or_else(bad)
    })?;
    Ok(Some(new))
}
