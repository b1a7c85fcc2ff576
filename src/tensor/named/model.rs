//! The Nervana Graph tensor-description model (ngraph-python `axes.py`) on top of [`Layout`].
//!
//! A [`NamedView`] has axes identified by name (no duplicates); each axis is either plain or a
//! *flattened* group of component axes. The layout keeps one dimension per component, so
//! `unflatten` is free and strides never get lost. Reported values follow Nervana: strides and
//! offsets in **bytes** (element stride × `dtype_bytes`), a flattened axis reports the product
//! of its components' lengths and the smallest of their strides.
//!
//! Where Nervana's code is wrong, the documented intent wins (see the `view` kind of the
//! [case format](crate::check::format#nervana-views-view)):
//! - slicing adds `start·stride` to the offset (Nervana adds `start·|stride|`, which is wrong
//!   for an already reversed axis);
//! - flatten of a view that is not `c_contiguous` first makes a row-major copy (the `Flatten`
//!   op's `ContiguousOp`), instead of the wrong view `TensorDescription.flatten` gives;
//! - an axis named again with a different length (broadcast, elementwise) is a mismatch error
//!   instead of a silent change of length.
//!
//! The base tensor holds the values `0..n-1` in row-major order of its allocation; copies are
//! kept lazily (a chain of layouts), so huge views never allocate.

use std::sync::Arc;

use smallvec::SmallVec;

use crate::tensor::error::{Result, TensorError};
use crate::tensor::layout::Layout;
use crate::tensor::size::{self, Dims};
use crate::tensor::view::SliceSpec;

/// One axis of a named view: a plain axis (one name) or a flattened group (its components).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedAxis {
    /// Component names, outermost first (exactly one for a plain axis).
    pub names: Vec<String>,
    /// Whether this is a flattened axis.
    pub flattened: bool,
}

impl NamedAxis {
    pub(super) fn plain(name: &str) -> NamedAxis {
        NamedAxis { names: vec![name.to_string()], flattened: false }
    }
}

/// One entry of a slice operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SliceItem {
    /// An integer index: the axis is dropped.
    Index(i64),
    /// A Python slice (Nervana supports steps 1 and -1 only).
    Range(SliceSpec),
}

/// Where the values of a view come from: the base (value = address) or a row-major copy of
/// an earlier view.
#[derive(Debug)]
pub(super) enum Source {
    Base,
    Copy { layout: Layout, prev: Arc<Source> },
}

impl Source {
    /// The value at `addr`, following the chain of copies back to the base (a loop: the chain
    /// is as long as the list of operations that made it).
    fn value_at(&self, mut addr: usize) -> f64 {
        let mut source = self;
        loop {
            match source {
                Source::Base => return addr as f64,
                Source::Copy { layout, prev } => {
                    // Unravel the row-major address over the copied view's shape.
                    let mut rest = addr;
                    let mut src = layout.offset() as i128;
                    for (&d, &s) in layout.shape().iter().zip(layout.strides()).rev() {
                        let d = d.max(1);
                        src += (rest % d) as i128 * s as i128;
                        rest /= d;
                    }
                    addr = usize::try_from(src).unwrap_or(0);
                    source = prev;
                }
            }
        }
    }
}

impl Drop for Source {
    /// Unlinks a chain of copies one by one (the default drop would recurse once per link).
    fn drop(&mut self) {
        let Source::Copy { prev, .. } = self else { return };
        let mut next = std::mem::replace(prev, Arc::new(Source::Base));
        while let Ok(mut owned) = Arc::try_unwrap(next) {
            match &mut owned {
                Source::Copy { prev, .. } => next = std::mem::replace(prev, Arc::new(Source::Base)),
                Source::Base => return,
            }
        }
    }
}

/// The most values [`NamedView::values`] lists: a larger view is a `value` error (the base is
/// lazy, so any view can be described, but listing 2^62 values is never useful).
pub const MAX_LISTED_VALUES: usize = 1 << 24;

/// A Nervana tensor description: named axes over a strided layout, with byte units.
#[derive(Clone, Debug)]
pub struct NamedView {
    pub(super) layout: Layout,
    pub(super) axes: Vec<NamedAxis>,
    pub(super) dtype_bytes: usize,
    pub(super) source: Arc<Source>,
}

impl NamedView {
    /// A fresh row-major tensor of `axes` (name, length), optionally padded to `full_sizes`.
    pub fn new(
        axes: &[(String, u64)],
        dtype_bytes: u64,
        full_sizes: Option<&[u64]>,
    ) -> Result<NamedView> {
        if dtype_bytes == 0 {
            return Err(TensorError::Value { message: "dtype_bytes must be positive".into() });
        }
        let dtype_bytes = size::check_dim(dtype_bytes)?;
        let shape: Dims = axes.iter().map(|a| size::check_dim(a.1)).collect::<Result<_>>()?;
        let layout = match full_sizes {
            None => Layout::contiguous(&shape)?,
            Some(full) => {
                let full: Dims = full.iter().map(|&f| size::check_dim(f)).collect::<Result<_>>()?;
                Layout::padded(&shape, &full)?
            }
        };
        let named: Vec<NamedAxis> = axes.iter().map(|a| NamedAxis::plain(&a.0)).collect();
        check_unique(named.iter().flat_map(|a| a.names.iter()))?;
        Ok(NamedView { layout, axes: named, dtype_bytes, source: Arc::new(Source::Base) })
    }

    /// The axes, outermost first.
    pub fn axes(&self) -> &[NamedAxis] {
        &self.axes
    }

    /// The underlying layout (one dimension per component axis, strides in elements).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }

    /// The range of layout dimensions of each axis.
    pub(super) fn dim_ranges(&self) -> Vec<std::ops::Range<usize>> {
        let mut start = 0;
        self.axes
            .iter()
            .map(|a| {
                let r = start..start + a.names.len();
                start = r.end;
                r
            })
            .collect()
    }

    /// The reported shape: one length per axis (product of components for flattened ones).
    pub fn shape(&self) -> Vec<usize> {
        self.dim_ranges().into_iter().map(|r| self.layout.shape()[r].iter().product()).collect()
    }

    /// Reported element strides: the smallest component stride of each axis.
    fn elem_strides(&self) -> Vec<isize> {
        let s = self.layout.strides();
        self.dim_ranges().into_iter().map(|r| s[r].iter().copied().min().unwrap_or(0)).collect()
    }

    /// The reported strides in bytes.
    pub fn strides_bytes(&self) -> Vec<i128> {
        self.elem_strides().into_iter().map(|s| s as i128 * self.dtype_bytes as i128).collect()
    }

    /// The offset in bytes.
    pub fn offset_bytes(&self) -> i128 {
        self.layout.offset() as i128 * self.dtype_bytes as i128
    }

    fn reported_layout(&self) -> Option<Layout> {
        Layout::from_parts(&self.shape(), &self.elem_strides(), self.layout.offset()).ok()
    }

    /// Nervana's `c_contiguous`: reported strides equal the row-major strides of the shape.
    pub fn c_contiguous(&self) -> bool {
        self.reported_layout().is_some_and(|l| l.is_row_major_exact())
    }

    /// Nervana's `broadcast_contiguous` (see [`Layout::is_broadcast_contiguous`]).
    pub fn broadcast_contiguous(&self) -> bool {
        self.reported_layout().is_some_and(|l| l.is_broadcast_contiguous())
    }

    /// The values in row-major order of the view (the base holds `0..n-1`). A view of more than
    /// [`MAX_LISTED_VALUES`] elements is a `value` error, as is a list the system cannot
    /// allocate.
    pub fn values(&self) -> Result<Vec<f64>> {
        let n = self.layout.numel();
        if n > MAX_LISTED_VALUES {
            return Err(TensorError::Value {
                message: format!(
                    "the view has {n} elements; values are listed for at most {MAX_LISTED_VALUES}"
                ),
            });
        }
        let mut out = crate::tensor::hugepage::try_with_capacity(n)?;
        self.layout.for_each_address(|a| out.push(self.source.value_at(a)));
        Ok(out)
    }

    /// Reverses all axes.
    pub fn transpose(&self) -> NamedView {
        let ranges = self.dim_ranges();
        let perm: Vec<usize> = ranges.into_iter().rev().flatten().collect();
        let layout = self.layout.permute(&perm).unwrap_or_else(|_| self.layout.clone());
        let axes = self.axes.iter().rev().cloned().collect();
        NamedView { layout, axes, ..self.clone() }
    }

    /// The index of the axis `item` names: a plain axis by its name, a flattened one by the
    /// list of its components.
    pub(super) fn find(&self, item: &[String]) -> Option<usize> {
        self.axes.iter().position(|a| match item {
            [one] => !a.flattened && a.names[0] == *one,
            many => a.flattened && a.names == many,
        })
    }

    /// The view with its axes in the order `order` (indices into `self.axes`), followed by
    /// `extra` new axes of stride 0 inserted at the given result positions.
    pub(super) fn rearranged(
        &self,
        order: &[Option<usize>],
        new_axes: &[(String, usize)],
    ) -> Result<NamedView> {
        let ranges = self.dim_ranges();
        let (mut shape, mut strides) = (Dims::new(), SmallVec::<[isize; 6]>::new());
        let mut axes = Vec::with_capacity(order.len());
        let mut fresh = new_axes.iter();
        for o in order {
            match o {
                Some(k) => {
                    shape.extend_from_slice(&self.layout.shape()[ranges[*k].clone()]);
                    strides.extend_from_slice(&self.layout.strides()[ranges[*k].clone()]);
                    axes.push(self.axes[*k].clone());
                }
                None => {
                    let (name, len) = fresh.next().ok_or_else(|| internal("new axis"))?;
                    shape.push(*len);
                    strides.push(0);
                    axes.push(NamedAxis::plain(name));
                }
            }
        }
        let layout = Layout::from_parts(&shape, &strides, self.layout.offset())?;
        Ok(NamedView { layout, axes, ..self.clone() })
    }

    /// Permutes the axes to `items` (each a name, or a flattened axis's component list); the
    /// set of axes must stay the same.
    pub fn reorder(&self, items: &[Vec<String>]) -> Result<NamedView> {
        let order = self.resolve_all(items)?;
        let mut seen = vec![false; self.axes.len()];
        for &k in &order {
            if std::mem::replace(&mut seen[k], true) {
                return Err(TensorError::DuplicateAxis { name: self.axes[k].names.join(",") });
            }
        }
        if order.len() != self.axes.len() {
            return Err(names_error(
                "reorder can only change the order of the axes, not which axes there are",
            ));
        }
        self.rearranged(&order.into_iter().map(Some).collect::<Vec<_>>(), &[])
    }

    pub(super) fn resolve_all(&self, items: &[Vec<String>]) -> Result<Vec<usize>> {
        items
            .iter()
            .map(|it| {
                self.find(it)
                    .ok_or_else(|| names_error(&format!("the view has no axis {}", it.join(","))))
            })
            .collect()
    }
}

/// Checks that no name repeats.
pub(super) fn check_unique<'a>(names: impl Iterator<Item = &'a String>) -> Result<()> {
    let mut seen = std::collections::HashSet::new();
    for n in names {
        if !seen.insert(n.as_str()) {
            return Err(TensorError::DuplicateAxis { name: n.clone() });
        }
    }
    Ok(())
}

pub(super) fn names_error(message: &str) -> TensorError {
    TensorError::AxisNames { message: message.to_string() }
}

pub(super) fn internal(what: &str) -> TensorError {
    TensorError::Value { message: format!("internal inconsistency in a named view ({what})") }
}
