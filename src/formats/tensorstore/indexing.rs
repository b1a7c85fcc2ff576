//! NumPy-style indexing of selected dimensions (`[i]`, `[a:b:s]`, `.oindex[...]`,
//! `.vindex[...]`, `[ts.newaxis]`).
//!
//! As in TensorStore, each operation builds an *indexing transform* from a new input domain
//! to the current input domain, then composes the current transform with it; bounds are
//! checked by the composition (explicit bounds constrain, implicit ones do not).

use super::array::{IndexArray, NdArray};
use super::compose::compose;
use super::domain::{Dim, IndexDomain};
use super::error::{TsError, TsResult};
use super::interval::{Interval, OptInterval};
use super::select::{resolve_new, DimSelector};
use super::slice::{strided_slice_map, IntervalForm, SliceSpec};
use super::transform::{IndexTransform, OutputMap};

/// How index arrays combine.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Mode {
    /// Each array adds its own dimensions in place of the indexed dimension (`oindex`).
    Outer,
    /// The arrays broadcast together; their dimensions come first (`vindex`).
    Vectorized,
}

/// One indexing term, applied to one selected dimension (a mask to as many as its rank).
#[derive(Clone, PartialEq, Eq, Debug)]
pub(crate) enum Term {
    Index(i64),
    Slice(SliceSpec),
    Array(IndexArray),
    Mask(NdArray<bool>),
}

/// A term after masks are turned into coordinate arrays, with the dimensions it consumes.
enum Part {
    Index(usize, i64),
    Slice(usize, SliceSpec),
    Arrays(Vec<(usize, IndexArray)>),
    /// Coordinates of a mask: one 1-d array per consumed dimension, sharing one new dimension.
    MaskCoords(Vec<(usize, IndexArray)>),
}

fn mask_coords(mask: &NdArray<bool>) -> TsResult<Vec<IndexArray>> {
    if mask.rank() == 0 {
        return Err(TsError::rank("zero-rank boolean arrays are not supported"));
    }
    let mut coords: Vec<Vec<i64>> = vec![Vec::new(); mask.rank()];
    super::array::for_each_position(mask.shape(), |pos| {
        if mask.get(pos).copied().unwrap_or(false) {
            for (c, &p) in coords.iter_mut().zip(pos) {
                c.push(i64::try_from(p).unwrap_or(0));
            }
        }
        Ok(())
    })?;
    coords.into_iter().map(|c| IndexArray::new(vec![c.len()], c)).collect()
}

fn split_terms(dims: &[usize], terms: Vec<Term>) -> TsResult<Vec<Part>> {
    let needed: usize =
        terms.iter().map(|t| if let Term::Mask(m) = t { m.rank() } else { 1 }).sum();
    if needed != dims.len() {
        return Err(TsError::arity(format!(
            "Indexing expression requires {needed} dimensions but selection has {} dimensions",
            dims.len()
        )));
    }
    let mut parts = Vec::with_capacity(terms.len());
    let mut next = dims.iter().copied();
    let mut take = || next.next().ok_or_else(|| TsError::arity("selection too short"));
    for term in terms {
        parts.push(match term {
            Term::Index(i) => Part::Index(take()?, i),
            Term::Slice(s) => Part::Slice(take()?, s),
            Term::Array(a) => Part::Arrays(vec![(take()?, a)]),
            Term::Mask(m) => {
                let coords = mask_coords(&m)?;
                Part::MaskCoords(
                    coords.into_iter().map(|c| Ok((take()?, c))).collect::<TsResult<_>>()?,
                )
            }
        });
    }
    Ok(parts)
}

/// The NumPy broadcast of the array shapes (right-aligned).
fn broadcast_shapes<'a>(shapes: impl Iterator<Item = &'a [usize]> + Clone) -> TsResult<Vec<usize>> {
    let rank = shapes.clone().map(<[usize]>::len).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for s in shapes.clone() {
        for (j, &n) in s.iter().enumerate() {
            let slot = &mut out[rank - s.len() + j];
            if *slot == 1 {
                *slot = n;
            } else if n != 1 && n != *slot {
                let all: Vec<String> = shapes.map(|s| format!("{s:?}")).collect();
                return Err(TsError::mismatch(format!(
                    "Index arrays with shapes {} cannot be broadcast to a common shape",
                    all.join(", ")
                )));
            }
        }
    }
    Ok(out)
}

/// An array placed on dimensions `at..at+rank` of a rank-`input_rank` domain.
fn place(array: &IndexArray, at: usize, input_rank: usize) -> TsResult<IndexArray> {
    let mut shape = vec![1usize; input_rank];
    let slot = shape
        .get_mut(at..at + array.rank())
        .ok_or_else(|| TsError::rank("index array does not fit the new domain"))?;
    slot.copy_from_slice(array.shape());
    IndexArray::new(shape, array.data().to_vec())
}

fn new_dim(size: usize) -> TsResult<Dim> {
    let size = i64::try_from(size).map_err(|_| TsError::bounds("array too large"))?;
    Ok(Dim::explicit(Interval::sized(0, size)?))
}

/// The number of new input dimensions each part creates in place of its first consumed
/// dimension (joint array dimensions are counted separately).
fn in_place_count(part: &Part, mode: Mode) -> usize {
    match (part, mode) {
        (Part::Index(..), _) => 0,
        (Part::Slice(..), _) => 1,
        (_, Mode::Vectorized) => 0,
        (Part::Arrays(a), Mode::Outer) => a.first().map_or(0, |(_, x)| x.rank()),
        (Part::MaskCoords(_), Mode::Outer) => 1,
    }
}

fn first_dim(part: &Part) -> Option<usize> {
    match part {
        Part::Index(d, _) | Part::Slice(d, _) => Some(*d),
        Part::Arrays(a) | Part::MaskCoords(a) => a.first().map(|(d, _)| *d),
    }
}

/// Applies indexing terms to the selected dimensions `dims` (resolved, one per consumed
/// dimension) of `t`.
pub(crate) fn apply(
    t: &IndexTransform,
    dims: &[usize],
    terms: Vec<Term>,
    mode: Mode,
) -> TsResult<IndexTransform> {
    let parts = split_terms(dims, terms)?;
    let joint_shape = match mode {
        Mode::Outer => Vec::new(),
        Mode::Vectorized => broadcast_shapes(parts.iter().flat_map(|p| match p {
            Part::Arrays(a) | Part::MaskCoords(a) => a.iter().map(|(_, x)| x.shape()).collect(),
            _ => Vec::new(),
        }))?,
    };
    let rank = t.input_rank();
    // For each current dimension: the part that consumes it first, if any.
    let mut owner: Vec<Option<usize>> = vec![None; rank];
    let mut consumed = vec![false; rank];
    for (i, p) in parts.iter().enumerate() {
        if let Some(d) = first_dim(p) {
            owner[d] = Some(i);
        }
        match p {
            Part::Index(d, _) | Part::Slice(d, _) => consumed[*d] = true,
            Part::Arrays(a) | Part::MaskCoords(a) => {
                a.iter().for_each(|(d, _)| consumed[*d] = true)
            }
        }
    }
    let mut first_input = vec![0usize; rank];
    let mut next = joint_shape.len();
    for m in 0..rank {
        first_input[m] = next;
        next += match owner[m] {
            Some(i) => in_place_count(&parts[i], mode),
            None if consumed[m] => 0,
            None => 1,
        };
    }
    let input_rank = next;
    super::domain::check_rank(input_rank)?;
    let mut dims_b: Vec<Dim> = vec![Dim::default(); input_rank];
    for (j, &n) in joint_shape.iter().enumerate() {
        dims_b[j] = new_dim(n)?;
    }
    let mut maps: Vec<OutputMap> = (0..rank).map(|m| OutputMap::identity(first_input[m])).collect();
    for m in (0..rank).filter(|&m| !consumed[m]) {
        dims_b[first_input[m]] = t.dims()[m].clone();
    }
    let joint = joint_shape.len();
    for p in &parts {
        build_part(p, mode, t, &first_input, joint, &mut dims_b, &mut maps)?;
    }
    let b = IndexTransform::new(IndexDomain::new(dims_b)?, maps)?;
    compose(t, &b)
}

fn build_part(
    p: &Part,
    mode: Mode,
    t: &IndexTransform,
    first_input: &[usize],
    joint: usize,
    dims_b: &mut [Dim],
    maps: &mut [OutputMap],
) -> TsResult<()> {
    let input_rank = dims_b.len();
    match p {
        Part::Index(m, v) => maps[*m] = OutputMap::constant(*v),
        Part::Slice(m, spec) => {
            let d = &t.dims()[*m];
            let s = strided_slice_map(d.bounds, IntervalForm::HalfOpen, *spec)
                .map_err(|e| e.context(format!("Computing interval slice for dimension {m}")))?;
            let at = first_input[*m];
            dims_b[at] = Dim { bounds: s.domain, label: d.label.clone() };
            maps[*m] = OutputMap::single(s.offset, s.stride, at);
        }
        Part::Arrays(arrays) | Part::MaskCoords(arrays) => {
            let Some(&(m0, ref a0)) = arrays.first() else { return Ok(()) };
            let at = match mode {
                Mode::Outer => first_input[m0],
                Mode::Vectorized => 0,
            };
            if mode == Mode::Outer {
                for (j, &n) in a0.shape().iter().enumerate() {
                    dims_b[at + j] = new_dim(n)?;
                }
            }
            for (m, a) in arrays {
                let start = match mode {
                    Mode::Outer => at,
                    Mode::Vectorized => joint - a.rank(),
                };
                maps[*m] = OutputMap::IndexArray {
                    offset: 0,
                    stride: 1,
                    array: place(a, start, input_rank)?,
                    bounds: Interval::INFINITE,
                };
            }
        }
    }
    Ok(())
}

/// Inserts new singleton dimensions `[0*, 1*)` at the selected positions of the result.
pub(crate) fn add_new_axes(
    t: &IndexTransform,
    selectors: &[DimSelector],
) -> TsResult<IndexTransform> {
    let positions = resolve_new(selectors, t.input_rank())?;
    let new_rank = t.input_rank() + positions.len();
    let mut dims = Vec::with_capacity(new_rank);
    let mut maps = Vec::with_capacity(t.input_rank());
    let mut old = t.dims().iter();
    for i in 0..new_rank {
        if positions.contains(&i) {
            let bounds = OptInterval {
                interval: Interval::sized(0, 1)?,
                implicit_lower: true,
                implicit_upper: true,
            };
            dims.push(Dim { bounds, label: String::new() });
        } else if let Some(d) = old.next() {
            dims.push(d.clone());
            maps.push(OutputMap::identity(i));
        }
    }
    let b = IndexTransform::new(IndexDomain::new(dims)?, maps)?;
    compose(t, &b)
}
