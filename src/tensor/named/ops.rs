//! The view operations of [`NamedView`] that add, drop or regroup axes: broadcast, slice,
//! flatten, unflatten, elementwise alignment, and the row-major copy flatten may need.

use std::sync::Arc;

use super::model::{check_unique, internal, names_error, NamedAxis, NamedView, SliceItem, Source};
use crate::tensor::error::{Result, TensorError};
use crate::tensor::layout::Layout;
use crate::tensor::size;
use crate::tensor::view::{resolve_index, SliceSpec};

/// One item of a flatten: the component names that become one axis (a single name keeps a
/// plain axis).
pub type FlattenItem = Vec<String>;

impl NamedView {
    /// Adds axes of stride 0. `axes` lists the result's axes in order and must include every
    /// current (plain) axis with its length.
    pub fn broadcast(&self, axes: &[(String, u64)]) -> Result<NamedView> {
        check_unique(axes.iter().map(|a| &a.0))?;
        let shape = self.shape();
        let (mut order, mut fresh) = (Vec::new(), Vec::new());
        for (name, len) in axes {
            let len = size::check_dim(*len)?;
            match self.find(std::slice::from_ref(name)) {
                Some(k) if shape[k] != len => {
                    return Err(length_mismatch(name, shape[k], len));
                }
                Some(k) => order.push(Some(k)),
                None => {
                    order.push(None);
                    fresh.push((name.clone(), len));
                }
            }
        }
        if order.iter().flatten().count() != self.axes.len() {
            return Err(names_error("a broadcast must keep every axis of the view"));
        }
        let out = self.rearranged(&order, &fresh)?;
        check_unique(out.axes.iter().flat_map(|a| a.names.iter()))?;
        Ok(out)
    }

    /// The view as the left operand of a binary elementwise op whose right operand has axes
    /// `other`: broadcast and reordered to the result axes, which are `other`'s order when
    /// `other` has every axis of the view, else the view's axes followed by the new ones
    /// (Nervana's `BinaryElementWiseOp` rule).
    pub fn elementwise(&self, other: &[(String, u64)]) -> Result<NamedView> {
        check_unique(other.iter().map(|a| &a.0))?;
        let shape = self.shape();
        let mut in_self = Vec::with_capacity(other.len());
        for (name, len) in other {
            let k = self.find(std::slice::from_ref(name));
            if let Some(k) = k {
                if shape[k] as u64 != *len {
                    return Err(length_mismatch(name, shape[k], size::check_dim(*len)?));
                }
            }
            in_self.push(k);
        }
        let covers = in_self.iter().flatten().count() == self.axes.len();
        if covers {
            self.broadcast(other)
        } else {
            self.aligned(other, &in_self)
        }
    }

    /// Self's axes followed by the axes of `other` it lacks (stride 0).
    fn aligned(&self, other: &[(String, u64)], in_self: &[Option<usize>]) -> Result<NamedView> {
        let mut order: Vec<Option<usize>> = (0..self.axes.len()).map(Some).collect();
        let mut fresh = Vec::new();
        for ((name, len), k) in other.iter().zip(in_self) {
            if k.is_none() {
                order.push(None);
                fresh.push((name.clone(), size::check_dim(*len)?));
            }
        }
        let out = self.rearranged(&order, &fresh)?;
        check_unique(out.axes.iter().flat_map(|a| a.names.iter()))?;
        Ok(out)
    }

    /// Nervana's slice: one item per leading axis (missing trailing items are full slices).
    /// An index drops its axis; a range (step 1 or -1) keeps it. `names`, when given, renames
    /// the kept axes in order (one name per range item).
    pub fn slice(&self, items: &[SliceItem], names: Option<&[String]>) -> Result<NamedView> {
        if items.len() > self.axes.len() {
            let (expected, got) = (self.axes.len(), items.len());
            return Err(TensorError::Rank { what: "a slice", expected, got });
        }
        let mut items = items.to_vec();
        items.resize(self.axes.len(), SliceItem::Range(SliceSpec::full(1)));
        for it in &items {
            if let SliceItem::Range(s) = it {
                if s.step != 1 && s.step != -1 {
                    return Err(TensorError::Value {
                        message: format!("a slice step must be 1 or -1, got {}", s.step),
                    });
                }
            }
        }
        let kept = items.iter().filter(|i| matches!(i, SliceItem::Range(_))).count();
        if let Some(n) = names {
            if n.len() != kept {
                return Err(TensorError::Arity {
                    message: format!("{} names given for {kept} sliced axes", n.len()),
                });
            }
        }
        let ranges = self.dim_ranges();
        let mut layout = self.layout.clone();
        let mut axes = Vec::with_capacity(kept);
        let mut new_names = names.map(|n| n.iter().rev());
        // Walk from the last axis so earlier dimension numbers stay valid as dims go away.
        for ((item, axis), r) in items.iter().zip(&self.axes).zip(ranges).rev() {
            match item {
                SliceItem::Index(i) => layout = index_axis(&layout, r, *i)?,
                SliceItem::Range(spec) => {
                    let rename = new_names.as_mut().and_then(|n| n.next());
                    let whole = spec.start.is_none() && spec.stop.is_none() && spec.step == 1;
                    if axis.flattened && whole && rename.is_none() {
                        axes.push(axis.clone());
                        continue;
                    }
                    if axis.flattened && rename.is_none() {
                        return Err(TensorError::Value {
                            message:
                                "slicing a flattened axis makes a plain axis, which needs a name"
                                    .into(),
                        });
                    }
                    layout = merge_dims(&layout, r.clone())?.slice(r.start, *spec)?;
                    let name = rename.unwrap_or(&axis.names[0]);
                    axes.push(NamedAxis::plain(name));
                }
            }
        }
        axes.reverse();
        check_unique(axes.iter().flat_map(|a| a.names.iter()))?;
        Ok(NamedView { layout, axes, ..self.clone() })
    }

    /// Groups consecutive axes: `items`, concatenated, must be the current axes' components in
    /// order, each item covering whole axes. A view that is not `c_contiguous` is first
    /// replaced by a row-major copy.
    pub fn flatten(&self, items: &[FlattenItem]) -> Result<NamedView> {
        let want: Vec<&String> = items.iter().flatten().collect();
        let have: Vec<&String> = self.axes.iter().flat_map(|a| a.names.iter()).collect();
        if want != have || items.iter().any(|i| i.is_empty()) {
            return Err(TensorError::AxisMismatch {
                message: format!(
                    "flatten must list the axes [{}] in order, got [{}]",
                    join(&have),
                    join(&want)
                ),
            });
        }
        let mut ends = std::collections::HashSet::new();
        let mut acc = 0;
        for a in &self.axes {
            acc += a.names.len();
            ends.insert(acc);
        }
        let mut acc = 0;
        for it in items {
            acc += it.len();
            if !ends.contains(&acc) {
                return Err(TensorError::AxisMismatch {
                    message: format!("flatten item [{}] splits a flattened axis", it.join(",")),
                });
            }
        }
        let base = if self.c_contiguous() { self.clone() } else { self.copied()? };
        let axes = items
            .iter()
            .map(|it| NamedAxis { names: it.clone(), flattened: it.len() > 1 })
            .collect();
        Ok(NamedView { axes, ..base })
    }

    /// Splits every flattened axis back into its components.
    pub fn unflatten(&self) -> NamedView {
        let axes =
            self.axes.iter().flat_map(|a| a.names.iter().map(|n| NamedAxis::plain(n))).collect();
        NamedView { axes, ..self.clone() }
    }

    /// A row-major copy of the view (values carried along lazily).
    pub fn copied(&self) -> Result<NamedView> {
        let layout = Layout::contiguous(self.layout.shape())?;
        let source =
            Arc::new(Source::Copy { layout: self.layout.clone(), prev: self.source.clone() });
        Ok(NamedView { layout, source, ..self.clone() })
    }
}

/// Fixes one axis (layout dims `r`, row-major components) at index `i` of its length.
fn index_axis(layout: &Layout, r: std::ops::Range<usize>, i: i64) -> Result<Layout> {
    let len: usize = layout.shape()[r.clone()].iter().product();
    let mut rest = resolve_index(i, len)?;
    let mut out = layout.clone();
    for d in r.rev() {
        let n = layout.shape()[d].max(1);
        out = out.index(d, (rest % n) as i64)?;
        rest /= n;
    }
    Ok(out)
}

/// Layout dims `r` merged into one dimension at `r.start` (they must compose).
fn merge_dims(layout: &Layout, r: std::ops::Range<usize>) -> Result<Layout> {
    if r.len() == 1 {
        return Ok(layout.clone());
    }
    let s = layout.shape();
    let mut shape: Vec<usize> = s[..r.start].to_vec();
    shape.push(s[r.clone()].iter().product());
    shape.extend_from_slice(&s[r.end..]);
    layout.reshape(&shape)?.ok_or_else(|| internal("flattened axis not contiguous"))
}

fn length_mismatch(name: &str, have: usize, given: usize) -> TensorError {
    TensorError::AxisMismatch { message: format!("axis {name} has length {have}, not {given}") }
}

fn join(names: &[&String]) -> String {
    names.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(axes: &[(&str, u64)]) -> NamedView {
        let axes: Vec<(String, u64)> = axes.iter().map(|(n, l)| (n.to_string(), *l)).collect();
        NamedView::new(&axes, 4, None).unwrap()
    }

    fn names(v: &NamedView) -> Vec<String> {
        v.axes().iter().map(|a| a.names.join("+")).collect()
    }

    #[test]
    fn slice_reversed_twice_uses_signed_stride() {
        let v = view(&[("A", 5), ("B", 3)]);
        let r = v.slice(&[SliceItem::Range(SliceSpec::full(-1))], None).unwrap();
        assert_eq!((r.strides_bytes(), r.offset_bytes()), (vec![-12, 4], 48));
        let spec = SliceSpec { start: Some(1), stop: None, step: 1 };
        let r2 = r.slice(&[SliceItem::Range(spec)], None).unwrap();
        assert_eq!((r2.shape(), r2.offset_bytes()), (vec![4, 3], 36));
        assert_eq!(r2.values().unwrap()[..3], [9.0, 10.0, 11.0]);
    }

    #[test]
    fn flatten_slice_and_errors() {
        let v = view(&[("A", 2), ("B", 3), ("C", 4)]);
        let f = v.flatten(&[vec!["A".into(), "B".into()], vec!["C".into()]]).unwrap();
        assert_eq!((f.shape(), f.strides_bytes()), (vec![6, 4], vec![16, 4]));
        let s = f.slice(&[SliceItem::Index(4)], None).unwrap();
        assert_eq!((s.shape(), s.offset_bytes()), (vec![4], 64));
        assert!(f
            .slice(&[SliceItem::Range(SliceSpec { start: Some(1), stop: None, step: 1 })], None)
            .is_err());
        assert!(v.flatten(&[vec!["A".into()], vec!["C".into(), "B".into()]]).is_err());
        assert!(f.flatten(&[vec!["A".into()], vec!["B".into(), "C".into()]]).is_err());
        assert!(v.broadcast(&[("A".into(), 2), ("B".into(), 3)]).is_err());
        assert!(v.broadcast(&[("A".into(), 2), ("B".into(), 4), ("C".into(), 4)]).is_err());
        assert!(v.slice(&[SliceItem::Index(2)], None).is_err());
        assert_eq!(names(&v.elementwise(&[("D".into(), 2)]).unwrap()), ["A", "B", "C", "D"]);
    }

    #[test]
    fn transposed_flatten_copies() {
        let v = view(&[("A", 2), ("B", 3)]).transpose();
        let f = v.flatten(&[vec!["B".into(), "A".into()]]).unwrap();
        assert_eq!(f.values(), Ok(vec![0., 3., 1., 4., 2., 5.]));
        assert!(f.c_contiguous());
        let u = f.unflatten();
        assert_eq!((names(&u), u.strides_bytes()), (vec!["B".to_string(), "A".into()], vec![8, 4]));
        assert_eq!(u.values(), Ok(vec![0., 3., 1., 4., 2., 5.]));
    }

    /// A view of 10^9 elements is described at once; listing its values is a `value` error.
    #[test]
    fn huge_views_are_described_but_not_listed() {
        use crate::code::{Coded, ErrorCode};
        let v = view(&[("A", 1_000_000_000)]);
        assert_eq!(v.shape(), vec![1_000_000_000]);
        let e = v.values().expect_err("10^9 values are not listed");
        assert_eq!(e.code(), ErrorCode::Value);
        assert!(e.to_string().contains("at most 16777216"), "{e}");
        let at_limit = view(&[("A", super::super::MAX_LISTED_VALUES as u64)]);
        assert_eq!(at_limit.values().map(|v| v.len()), Ok(1 << 24));
    }

    /// Each copying flatten adds a link to the chain of sources; reading and dropping a long
    /// chain must not recurse once per link.
    #[test]
    fn long_copy_chains_read_and_drop_without_recursion() {
        let mut v = view(&[("A", 2), ("B", 3)]);
        for _ in 0..100_000 {
            let t = v.transpose();
            let item: Vec<String> = t.axes().iter().map(|a| a.names[0].clone()).collect();
            v = t.flatten(&[item]).unwrap().unflatten();
        }
        assert_eq!(v.values(), Ok(vec![0., 1., 2., 3., 4., 5.]));
        drop(v);
    }
}
