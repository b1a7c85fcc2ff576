//! [`Components`]: the concatenation axes of a spec operation, every choice of one labelled
//! component per axis (one plan part each), and the operands each choice reads.
//!
//! A slot is read by a choice when every component label it mentions outside concatenations
//! is chosen (a component left out is not iterated). Rather than testing every slot against
//! every choice, each component label lists the slots that mention it: a choice visits the
//! slots of its chosen labels only, so the part of a concatenation of n operands costs what
//! it reads, not n.

use std::collections::HashMap;

use foldhash::fast::FixedState;

use super::error::ProjectError;
use crate::spec::ast::{AxisKind, ConcatPart, EinsumSpec, Name, RowKind, ShapeSpec};

/// The most combinations of concatenation parts a spec may make beyond one per part.
const MAX_CHOICES: usize = 256;

/// The concatenation axes of a spec and the slots their labels reach. Slot 0 is the result,
/// slot `k + 1` operand `k`.
pub(super) struct Components<'s> {
    /// Each axis's components, in spec order (slot by slot, rows in memory order).
    axes: Vec<&'s [ConcatPart]>,
    /// Where each axis's entries start in `offset` (one more entry than axes).
    start: Vec<usize>,
    /// Each component's offset along its axis: the sizes of the components before it.
    offset: Vec<u64>,
    /// The labelled components of every axis, axis after axis (positions within the axis).
    labelled: Vec<usize>,
    /// Where each axis's entries start in `labelled` (one more entry than axes).
    labelled_start: Vec<usize>,
    /// The number of each component label.
    label_number: HashMap<&'s str, u32, FixedState>,
    /// The first axis of each slot (one more entry than slots).
    first_axis: Vec<usize>,
    /// How many component labels each slot mentions outside concatenations.
    need: Vec<usize>,
    /// The slots that mention each component label, label after label.
    slots: Vec<usize>,
    /// Where each label's entries start in `slots` (one more entry than labels).
    slots_start: Vec<usize>,
    /// The operands that mention no component label: every choice reads them.
    base: Vec<usize>,
}

/// One choice of a labelled component per axis: for each axis, a position among its
/// labelled components.
pub(super) struct Choice {
    pos: Vec<usize>,
}

/// Scratch space of [`Components::reads`], reused from one choice to the next.
#[derive(Default)]
pub(super) struct Reads {
    /// The choice being read (counting from 1); the marks below are of it when equal.
    stamp: usize,
    label_mark: Vec<usize>,
    slot_mark: Vec<usize>,
    /// The chosen labels each slot mentions (valid where `slot_mark` is the stamp).
    count: Vec<usize>,
    /// The operands the choice reads beyond the base ones.
    more: Vec<usize>,
    /// The operands the choice reads, by increasing number.
    pub operands: Vec<usize>,
}

impl<'s> Components<'s> {
    /// The concatenation axes of `spec`; `size` gives a label's solved size (the offsets of
    /// unsolved components count them as 0).
    pub fn new(spec: &'s EinsumSpec, size: &mut dyn FnMut(&str) -> Option<u64>) -> Self {
        let slots = || std::iter::once(&spec.lhs).chain(&spec.rhs);
        let mut c = Components {
            axes: Vec::new(),
            start: vec![0],
            offset: Vec::new(),
            labelled: Vec::new(),
            labelled_start: vec![0],
            label_number: HashMap::default(),
            first_axis: Vec::with_capacity(spec.rhs.len() + 2),
            need: Vec::with_capacity(spec.rhs.len() + 1),
            slots: Vec::new(),
            slots_start: Vec::new(),
            base: Vec::new(),
        };
        for slot in slots() {
            c.first_axis.push(c.axes.len());
            for a in memory_order_axes(slot) {
                if let AxisKind::Concat(parts) = &a.kind {
                    c.add_axis(parts, size);
                }
            }
        }
        c.first_axis.push(c.axes.len());
        c.index_mentions(slots());
        c
    }

    fn add_axis(&mut self, parts: &'s [ConcatPart], size: &mut dyn FnMut(&str) -> Option<u64>) {
        let mut at: u64 = 0;
        for (i, p) in parts.iter().enumerate() {
            self.offset.push(at);
            let n = match p {
                ConcatPart::Label(name) => {
                    self.labelled.push(i);
                    let next = u32::try_from(self.label_number.len()).unwrap_or(u32::MAX);
                    self.label_number.entry(name.as_str()).or_insert(next);
                    size(name).unwrap_or(0)
                }
                ConcatPart::Size(n) => *n,
            };
            at = at.saturating_add(n);
        }
        self.axes.push(parts);
        self.start.push(self.offset.len());
        self.labelled_start.push(self.labelled.len());
    }

    /// Fills `need`, `slots` and `base` from the component labels each slot mentions.
    fn index_mentions(&mut self, slots: impl Iterator<Item = &'s ShapeSpec>) {
        let mut pairs: Vec<(u32, usize)> = Vec::new();
        let mut mentioned: Vec<u32> = Vec::new();
        for (s, slot) in slots.enumerate() {
            mentioned.clear();
            for name in mentions(slot) {
                mentioned.extend(self.label_number.get(name.as_str()).copied());
            }
            mentioned.sort_unstable();
            mentioned.dedup();
            self.need.push(mentioned.len());
            pairs.extend(mentioned.iter().map(|&l| (l, s)));
            if mentioned.is_empty() && s > 0 {
                self.base.push(s - 1);
            }
        }
        // Grouped by label, slots in order within a label.
        pairs.sort_unstable();
        self.slots_start = vec![0; self.label_number.len() + 1];
        for &(l, _) in &pairs {
            self.slots_start[l as usize + 1] += 1;
        }
        for k in 1..self.slots_start.len() {
            self.slots_start[k] += self.slots_start[k - 1];
        }
        self.slots = pairs.into_iter().map(|(_, s)| s).collect();
    }

    /// The number of axes.
    pub fn axis_count(&self) -> usize {
        self.axes.len()
    }

    /// The number of components of all axes.
    pub fn component_count(&self) -> usize {
        self.offset.len()
    }

    /// The first axis of operand `k`'s slot (`None`: of the result's).
    pub fn first_axis(&self, operand: Option<usize>) -> usize {
        let slot = operand.map_or(0, |k| k + 1);
        self.first_axis.get(slot).copied().unwrap_or(self.axes.len())
    }

    fn labelled(&self, axis: usize) -> &[usize] {
        &self.labelled[self.labelled_start[axis]..self.labelled_start[axis + 1]]
    }

    /// The number of choices: the product of the axes' labelled components (one for a spec
    /// without concatenations). It may be at most 256, or the number of components in all (one
    /// concatenation of many operands has one choice per operand).
    pub fn choice_count(&self) -> Result<usize, ProjectError> {
        let most = MAX_CHOICES.max(self.component_count());
        let mut n: usize = 1;
        for axis in 0..self.axes.len() {
            n = n.saturating_mul(self.labelled(axis).len());
            if n > most {
                let msg = format!(
                    "the concatenation axes make more than {most} combinations of parts ({} of \
                     their parts in all)",
                    self.component_count()
                );
                return Err(ProjectError::TooLarge(msg));
            }
        }
        Ok(n)
    }

    /// The first choice, in the order where the last axis changes fastest; `None` when an
    /// axis has no labelled component.
    pub fn first(&self) -> Option<Choice> {
        let empty = (0..self.axes.len()).any(|a| self.labelled(a).is_empty());
        (!empty).then(|| Choice { pos: vec![0; self.axes.len()] })
    }

    /// Moves `choice` to the next one; `false` after the last.
    pub fn advance(&self, choice: &mut Choice) -> bool {
        for axis in (0..choice.pos.len()).rev() {
            choice.pos[axis] += 1;
            if choice.pos[axis] < self.labelled(axis).len() {
                return true;
            }
            choice.pos[axis] = 0;
        }
        false
    }

    /// The component a choice takes on an axis: its label and its offset along the axis.
    pub fn chosen(&self, choice: &Choice, axis: usize) -> Option<(&'s Name, u64)> {
        let i = *self.labelled(axis).get(*choice.pos.get(axis)?)?;
        let ConcatPart::Label(name) = self.axes[axis].get(i)? else { return None };
        Some((name, self.offset[self.start[axis] + i]))
    }

    /// The operands a choice reads, by increasing number, into `r.operands`; `false` when it
    /// writes no result (the result mentions a component left out). Returns with it the work
    /// done (slots visited), for the plan's bound.
    pub fn reads(&self, choice: &Choice, r: &mut Reads) -> (bool, usize) {
        r.stamp += 1;
        r.label_mark.resize(self.label_number.len(), 0);
        r.slot_mark.resize(self.need.len(), 0);
        r.count.resize(self.need.len(), 0);
        r.more.clear();
        let mut work = self.axes.len();
        for axis in 0..self.axes.len() {
            let Some((name, _)) = self.chosen(choice, axis) else { continue };
            let Some(&l) = self.label_number.get(name.as_str()) else { continue };
            let l = l as usize;
            if r.label_mark[l] == r.stamp {
                continue;
            }
            r.label_mark[l] = r.stamp;
            let slots = &self.slots[self.slots_start[l]..self.slots_start[l + 1]];
            work += slots.len();
            for &s in slots {
                if r.slot_mark[s] != r.stamp {
                    r.slot_mark[s] = r.stamp;
                    r.count[s] = 0;
                }
                r.count[s] += 1;
                if r.count[s] == self.need[s] && s > 0 {
                    r.more.push(s - 1);
                }
            }
        }
        let writes = self.need[0] == 0 || (r.slot_mark[0] == r.stamp && r.count[0] == self.need[0]);
        r.more.sort_unstable();
        merge(&self.base, &r.more, &mut r.operands);
        (writes, work + r.operands.len())
    }
}

/// The axes of a slot in memory order of its rows, each row's leading axes then trailing ones
/// (the order in which a plan's builder meets them).
fn memory_order_axes(slot: &ShapeSpec) -> impl Iterator<Item = &crate::spec::ast::Axis> {
    RowKind::MEMORY_ORDER.into_iter().flat_map(|k| slot.row(k).into_iter().flat_map(|r| r.axes()))
}

/// The labels a slot iterates outside concatenations: plain labels, the strided label and the
/// kernel of affine axes.
fn mentions(slot: &ShapeSpec) -> impl Iterator<Item = &Name> {
    slot.rows().flat_map(|(_, row)| row.axes()).flat_map(|a| {
        let (first, second) = match &a.kind {
            AxisKind::Label(n) => (Some(n), None),
            AxisKind::Affine(af) => (Some(&af.over), af.conv.as_ref().map(|c| &c.kernel)),
            _ => (None, None),
        };
        first.into_iter().chain(second)
    })
}

/// The sorted union of two sorted lists of distinct numbers, into `out`.
fn merge(a: &[usize], b: &[usize], out: &mut Vec<usize>) {
    out.clear();
    out.reserve(a.len() + b.len());
    let (mut i, mut j) = (0, 0);
    while i < a.len() && j < b.len() {
        if a[i] < b[j] {
            out.push(a[i]);
            i += 1;
        } else {
            out.push(b[j]);
            j += 1;
        }
    }
    out.extend_from_slice(&a[i..]);
    out.extend_from_slice(&b[j..]);
}
