//! numpy einsum over a caller's strided arrays: operands read in place (any strides,
//! negative and zero included) and the result written into a caller's strided output
//! ([`EinsumPlan`], [`einsum_into`]). What a binding to an array library runs: the arrays are
//! never copied, and an einsum repeated on the same shapes is analysed and planned once.

use super::einsum::{label_holders, presum_labels, view_strides};
use super::error::EinsumError;
use super::last_nest::LastNest;
use super::lower::{contract_slabs, Slab};
use super::path::{greedy, planned_steps, LiveList, PathOptions, PathStep};
use super::shapes::{analyze, parse_subscripts, Analysis};
use super::step_view::step_view;
use crate::kernel::{RunOptions, Scalar};
use crate::tensor::{Layout, Tensor};

/// An einsum operand borrowed from a caller: `data` seen through a [`Layout`] (shape,
/// element strides, offset), every address of which lies in `data`.
#[derive(Clone, Debug)]
pub struct StridedRef<'a, T> {
    pub(super) data: &'a [T],
    pub(super) layout: Layout,
}

impl<'a, T> StridedRef<'a, T> {
    /// `data` seen through `layout`; an error (code `bounds`) when an address leaves `data`.
    pub fn new(data: &'a [T], layout: Layout) -> Result<StridedRef<'a, T>, EinsumError> {
        layout.check_fits(data.len())?;
        Ok(StridedRef { data, layout })
    }

    /// A row-major array of `shape` filling `data` from its start.
    pub fn contiguous(data: &'a [T], shape: &[usize]) -> Result<StridedRef<'a, T>, EinsumError> {
        StridedRef::new(data, Layout::contiguous(shape)?)
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
}

/// An einsum output borrowed from a caller: as [`StridedRef`], and no two elements share an
/// address (no stride 0 along an axis of several elements, no interleaved axes).
#[derive(Debug)]
pub struct StridedMut<'a, T> {
    pub(super) data: &'a mut [T],
    pub(super) layout: Layout,
}

impl<'a, T> StridedMut<'a, T> {
    /// `data` seen through `layout`; an error when an address leaves `data` (`bounds`) or
    /// when elements overlap ([`EinsumError::OutputOverlap`]).
    pub fn new(data: &'a mut [T], layout: Layout) -> Result<StridedMut<'a, T>, EinsumError> {
        layout.check_fits(data.len())?;
        check_disjoint(&layout)?;
        Ok(StridedMut { data, layout })
    }

    /// A row-major array of `shape` filling `data` from its start.
    pub fn contiguous(
        data: &'a mut [T],
        shape: &[usize],
    ) -> Result<StridedMut<'a, T>, EinsumError> {
        StridedMut::new(data, Layout::contiguous(shape)?)
    }

    /// The layout.
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
}

/// Checks that no two elements of `layout` share an address
/// ([`overlapping_axis`](crate::tensor::overlapping_axis)).
fn check_disjoint(layout: &Layout) -> Result<(), EinsumError> {
    match crate::tensor::overlapping_axis(layout.shape(), layout.strides()) {
        None => Ok(()),
        Some(axis) => {
            let (size, stride) = (layout.shape()[axis], layout.strides()[axis]);
            Err(EinsumError::OutputOverlap { axis, size, stride })
        }
    }
}

/// An einsum analysed and planned for operands of given shapes, to run on any arrays of those
/// shapes: the analysis (labels, sizes, output), the single-operand sums done first, and the
/// contraction steps (the planned path, or the greedy order for three or more operands).
///
/// ```
/// use einrow::kernel::RunOptions;
/// use einrow::numpy::{EinsumPlan, StridedMut, StridedRef};
/// use einrow::tensor::Layout;
///
/// let plan = EinsumPlan::new("ij,jk->ik", &[&[2, 3], &[3, 2]], None)?;
/// assert_eq!(plan.output_shape(), &[2, 2]);
/// let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
/// // `a` read as a 3x2 array backwards (negative strides, offset at its last element):
/// // [[6, 5], [4, 3], [2, 1]]; the result is written into columns 0 and 2 of a 2x3 buffer.
/// let at = StridedRef::new(&a, Layout::from_parts(&[3, 2], &[-2, -1], 5)?)?;
/// let a23 = StridedRef::contiguous(&a, &[2, 3])?;
/// let mut buf = [0.0f32; 6];
/// let mut out = StridedMut::new(&mut buf, Layout::from_parts(&[2, 2], &[3, 2], 0)?)?;
/// plan.run(&[a23, at], &mut out, &RunOptions::default())?;
/// assert_eq!(buf, [20.0, 0.0, 14.0, 56.0, 0.0, 41.0]);
/// # Ok::<(), einrow::numpy::EinsumError>(())
/// ```
#[derive(Clone, Debug)]
pub struct EinsumPlan {
    an: Analysis,
    shapes: Vec<Vec<usize>>,
    output_shape: Vec<usize>,
    /// For each operand, the labels it keeps when summed alone first (`None`: it is not).
    presum: Vec<Option<Vec<usize>>>,
    /// The contraction steps; empty when the operands are contracted in one step.
    steps: Vec<PathStep>,
    /// The nest of the last run's final step, prepared for the layouts it ran on.
    last: LastNest,
}

impl EinsumPlan {
    /// Analyses numpy subscripts on operands of these shapes and plans the contraction along
    /// `path` (`None`: [`einsum`](super::einsum)'s default order). The errors are
    /// [`einsum`](super::einsum)'s and [`einsum_path`](super::einsum_path)'s.
    pub fn new(
        spec: &str,
        shapes: &[&[usize]],
        path: Option<&PathOptions>,
    ) -> Result<EinsumPlan, EinsumError> {
        let parsed = parse_subscripts(spec, shapes.len())?;
        for s in shapes {
            crate::tensor::numel(s)?;
        }
        let an = analyze(&parsed, shapes)?;
        crate::tensor::numel(&an.output_shape())?;
        let steps = path.map(|p| planned_steps(&an, p)).transpose()?;
        let mut labels = an.operands.clone();
        let mut presum = vec![None; labels.len()];
        if labels.len() >= 2 {
            let holders = label_holders(&an, &labels);
            for k in 0..labels.len() {
                if let Some(keep) = presum_labels(&holders, &labels[k]) {
                    labels[k] = keep.clone();
                    presum[k] = Some(keep);
                }
            }
        }
        let steps = match steps {
            Some(steps) => steps,
            None if labels.len() <= 2 => Vec::new(),
            None => greedy(&labels, &an.output, &an.sizes)
                .into_iter()
                .map(|s| PathStep { positions: vec![s.pair.0, s.pair.1], keep: s.keep })
                .collect(),
        };
        let shapes = shapes.iter().map(|s| s.to_vec()).collect();
        let last = LastNest::default();
        Ok(EinsumPlan { output_shape: an.output_shape(), an, shapes, presum, steps, last })
    }

    /// The result's shape.
    pub fn output_shape(&self) -> &[usize] {
        &self.output_shape
    }

    /// The operand shapes the plan was made for.
    pub fn shapes(&self) -> &[Vec<usize>] {
        &self.shapes
    }

    /// The shape analysis.
    pub fn analysis(&self) -> &Analysis {
        &self.an
    }

    /// The contraction steps (numpy's path convention: positions in the current operand list,
    /// the result appended); empty when the operands are contracted in one step.
    pub fn steps(&self) -> &[PathStep] {
        &self.steps
    }

    /// The points of the loop nests the plan runs, summed over its steps (saturating): a
    /// measure of the work, e.g. to decide whether to run on another thread.
    pub fn work(&self) -> u128 {
        let points = |labels: &mut dyn Iterator<Item = usize>| -> u128 {
            let mut seen: Vec<usize> = Vec::new();
            let mut n: u128 = 1;
            for l in labels {
                if !seen.contains(&l) {
                    seen.push(l);
                    n = n.saturating_mul(self.an.sizes.get(l).copied().unwrap_or(1) as u128);
                }
            }
            n
        };
        let mut total = points(&mut self.an.operands.iter().flatten().copied());
        if !self.steps.is_empty() {
            // Each step reaches at most every label: a bound without replaying the path.
            total = total.saturating_mul(self.steps.len() as u128);
        }
        total
    }

    /// With one operand and no label summed, the strides (in elements) of the result as a
    /// view of that operand, whose strides are `strides` (numpy returns such views); `None`
    /// otherwise.
    pub fn view_strides(&self, strides: &[isize]) -> Result<Option<Vec<isize>>, EinsumError> {
        if self.shapes.len() != 1 || strides.len() != self.shapes[0].len() {
            return Ok(None);
        }
        view_strides(&self.an, strides)
    }

    /// Runs the einsum on `inputs` (of the shapes planned for), writing every element of
    /// `out` (of the result's shape). Only intermediates of three or more operands and
    /// operands summed alone first are allocated; the inputs are read where they are.
    pub fn run<T: Scalar>(
        &self,
        inputs: &[StridedRef<'_, T>],
        out: &mut StridedMut<'_, T>,
        opts: &RunOptions,
    ) -> Result<(), EinsumError> {
        self.check_shapes(inputs, out)?;
        if inputs.iter().any(|i| i.layout.numel() == 0) {
            // Every product has an empty factor: each result element is a sum over nothing.
            let data = &mut *out.data;
            out.layout.for_each_address(|a| {
                if let Some(x) = data.get_mut(a) {
                    *x = T::ZERO;
                }
            });
            return Ok(());
        }
        let (last, before) = match self.steps.split_last() {
            Some((last, before)) => (Some(last), before),
            None => (None, &[][..]),
        };
        let mut live = LiveList::new(self.operands(inputs, opts)?, before.len());
        for step in before {
            let len = live.len();
            let result = match <[_; 1]>::try_from(live.take(&step.positions)) {
                // One operand: a view when the step sums nothing.
                Ok([Some((h, labels))]) => h.step(&labels, &step.keep, opts)?,
                Ok([None]) => return Err(EinsumError::Arity { terms: len, operands: len + 1 }),
                Err(taken) => {
                    let ops = slabs(&taken, &step.positions, len)?;
                    Held::Owned(contract_slabs(&ops, &step.keep, opts)?)
                }
            };
            live.push((result, step.keep.clone()));
        }
        let left = live.len();
        let all: Vec<usize> = (0..left).collect();
        let positions = last.map_or(&all[..], |step| &step.positions[..]);
        if positions.len() != left {
            // A planned path contracts everything left in its last step.
            return Err(EinsumError::Arity { terms: left, operands: positions.len() });
        }
        let taken = live.take(positions);
        self.last.run(
            &slabs(&taken, positions, left)?,
            &self.an.output,
            out.data,
            &out.layout,
            opts,
        )
    }

    /// The operands as the steps take them: each caller's array, or what it keeps when summed
    /// alone first (a view when that sums nothing, as a diagonal).
    fn operands<'a, T: Scalar>(
        &self,
        inputs: &'a [StridedRef<'_, T>],
        opts: &RunOptions,
    ) -> Result<Vec<Labelled<'a, T>>, EinsumError> {
        let each = inputs.iter().zip(&self.an.operands).zip(&self.presum);
        each.map(|((i, labels), keep)| {
            let h = Held::Borrowed(i.data, &i.layout);
            match keep {
                Some(keep) => Ok((h.step(labels, keep, opts)?, keep.clone())),
                None => Ok((h, labels.clone())),
            }
        })
        .collect()
    }

    fn check_shapes<T>(
        &self,
        inputs: &[StridedRef<'_, T>],
        out: &StridedMut<'_, T>,
    ) -> Result<(), EinsumError> {
        if inputs.len() != self.shapes.len() {
            return Err(EinsumError::Arity { terms: self.shapes.len(), operands: inputs.len() });
        }
        for (k, (i, s)) in inputs.iter().zip(&self.shapes).enumerate() {
            if i.layout.shape() != s.as_slice() {
                let (expected, got) = (s.clone(), i.layout.shape().to_vec());
                return Err(EinsumError::WrongShape { operand: Some(k), expected, got });
            }
        }
        if out.layout.shape() != self.output_shape.as_slice() {
            let (expected, got) = (self.output_shape.clone(), out.layout.shape().to_vec());
            return Err(EinsumError::WrongShape { operand: None, expected, got });
        }
        Ok(())
    }
}

/// The operands taken at `positions` from the current list of `len` operands (`None`: a
/// position past it).
fn slabs<'s, T: Scalar>(
    taken: &'s [Option<Labelled<'_, T>>],
    positions: &[usize],
    len: usize,
) -> Result<Vec<Slab<'s, T>>, EinsumError> {
    taken
        .iter()
        .zip(positions)
        .map(|(t, &p)| match t {
            Some((h, l)) => h.slab(l),
            None => Err(EinsumError::Arity { terms: len, operands: p + 1 }),
        })
        .collect()
}

/// An operand of the current list with the label of each of its axes.
type Labelled<'a, T> = (Held<'a, T>, Vec<usize>);

/// An operand of the current list: a caller's array, a view of one, or an intermediate
/// (or a view of one: an intermediate's tensor is itself a view of its buffer).
enum Held<'a, T> {
    Borrowed(&'a [T], &'a Layout),
    Viewed(&'a [T], Layout),
    Owned(Tensor),
}

impl<'a, T: Scalar> Held<'a, T> {
    fn slab<'s>(&'s self, labels: &'s [usize]) -> Result<Slab<'s, T>, EinsumError> {
        let (data, layout) = match self {
            Held::Borrowed(data, layout) => (*data, *layout),
            Held::Viewed(data, layout) => (*data, layout),
            Held::Owned(t) => t.typed::<T>().ok_or(crate::tensor::TensorError::DType {
                expected: T::DTYPE.name(),
                got: t.dtype().name(),
            })?,
        };
        Ok(Slab { data, layout, labels })
    }

    /// The result of a step of this operand alone (labelled `labels`) keeping `keep`: a view
    /// of the same elements when nothing is summed, else a contraction reading them in place.
    fn step(
        self,
        labels: &[usize],
        keep: &[usize],
        opts: &RunOptions,
    ) -> Result<Self, EinsumError> {
        let layout = match &self {
            Held::Borrowed(_, layout) => step_view(layout, labels, keep)?,
            Held::Viewed(_, layout) => step_view(layout, labels, keep)?,
            Held::Owned(t) => step_view(t.layout(), labels, keep)?,
        };
        Ok(match (self, layout) {
            (Held::Borrowed(data, _) | Held::Viewed(data, _), Some(l)) => Held::Viewed(data, l),
            (Held::Owned(t), Some(l)) => Held::Owned(t.with_layout(l)?),
            (h, _) => Held::Owned(contract_slabs(&[h.slab(labels)?], keep, opts)?),
        })
    }
}

/// Evaluates numpy subscripts on a caller's strided arrays into a caller's strided output,
/// along `path` (`None`: [`einsum`](super::einsum)'s default order): [`EinsumPlan::new`]
/// then [`EinsumPlan::run`]. Results equal [`einsum`](super::einsum)'s.
///
/// ```
/// use einrow::kernel::RunOptions;
/// use einrow::numpy::{einsum_into, StridedMut, StridedRef};
/// use einrow::tensor::Layout;
///
/// let m = [1.0f64, 2.0, 3.0, 4.0];
/// let ones = [1.0f64];
/// // `ij,j->i` with the vector broadcast from one element (stride 0).
/// let v = StridedRef::new(&ones, Layout::from_parts(&[2], &[0], 0)?)?;
/// let mut sums = [0.0f64; 2];
/// let mut out = StridedMut::contiguous(&mut sums, &[2])?;
/// einsum_into("ij,j->i", &[StridedRef::contiguous(&m, &[2, 2])?, v], &mut out, None, &RunOptions::default())?;
/// assert_eq!(sums, [3.0, 7.0]);
/// # Ok::<(), einrow::numpy::EinsumError>(())
/// ```
pub fn einsum_into<T: Scalar>(
    spec: &str,
    inputs: &[StridedRef<'_, T>],
    out: &mut StridedMut<'_, T>,
    path: Option<&PathOptions>,
    opts: &RunOptions,
) -> Result<(), EinsumError> {
    let shapes: Vec<&[usize]> = inputs.iter().map(|i| i.layout.shape()).collect();
    EinsumPlan::new(spec, &shapes, path)?.run(inputs, out, opts)
}
