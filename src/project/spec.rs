//! Plans of spec operations, re-derived locally per operation: every label of the spec is one
//! loop (two operations co-iterating an axis elsewhere do not merge loops here), a row
//! variable's k-th axis is one loop, each `_` its own loop, integers are fixed indices,
//! strided and convolution axes are affine indices, and a concatenation is one part per
//! component.

use std::collections::{HashMap, HashSet};

use foldhash::fast::FixedState;
use smallvec::SmallVec;

use super::error::ProjectError;
use super::plan::{room_for, Index, Loop, PlanPart};
use super::sizes::Sizes;
use crate::spec::ast::{self, AxisKind, ConcatPart, EinsumSpec, Name, Padding, RowKind, ShapeSpec};

/// The solved size of each label of a step (`None` when unsolved), in the order of its labels.
#[derive(Clone, Copy)]
pub struct LabelSizes<'a>(pub &'a [(&'a Name, Option<u64>)]);

impl LabelSizes<'_> {
    fn get(&self, name: &str) -> Option<u64> {
        let found = self.0.iter().find(|(n, _)| Key::Label(n).same(Key::Label(name)));
        found.and_then(|(_, size)| *size)
    }
}

/// Loops (and label sizes) from which a plan's builder looks keys up in a table rather than
/// in a list: a spec of many labels costs O(1) per axis, a short one a few comparisons.
const INDEX_FROM: usize = 16;

/// What a loop stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Key<'s> {
    Label(&'s str),
    RowPos(&'s str, usize),
}

impl Key<'_> {
    /// Equality without a `memcmp` call per comparison (names are a few bytes).
    fn same(self, other: Key) -> bool {
        let eq =
            |a: &str, b: &str| a.len() == b.len() && a.bytes().zip(b.bytes()).all(|(x, y)| x == y);
        match (self, other) {
            (Key::Label(a), Key::Label(b)) => eq(a, b),
            (Key::RowPos(a, i), Key::RowPos(b, j)) => i == j && eq(a, b),
            _ => false,
        }
    }
}

/// A concatenation axis: its label components (position and name) and fixed-size components.
struct ConcatAxis<'s> {
    parts: &'s [ConcatPart],
}

struct Builder<'s, 'a> {
    loops: &'a mut Vec<Loop>,
    keys: SmallVec<[(Key<'s>, usize); 8]>,
    /// The loop of each key in `keys`, once there are [`INDEX_FROM`] of them.
    index: HashMap<Key<'s>, usize, FixedState>,
    label_size: LabelSizes<'a>,
    /// The sizes of `label_size` by name (the first of a name), made on the first lookup when
    /// there are [`INDEX_FROM`] labels or more.
    size_index: Option<HashMap<&'a str, Option<u64>, FixedState>>,
    /// Chosen component per concatenation axis, in spec order.
    choice: &'a [usize],
    concat_seen: usize,
}

impl<'s, 'a> Builder<'s, 'a> {
    fn new(loops: &'a mut Vec<Loop>, label_size: LabelSizes<'a>, choice: &'a [usize]) -> Self {
        let (keys, index, size_index) = (SmallVec::new(), HashMap::default(), None);
        Builder { loops, keys, index, label_size, size_index, choice, concat_seen: 0 }
    }

    fn find(&self, key: Key<'s>) -> Option<usize> {
        if self.keys.len() >= INDEX_FROM {
            return self.index.get(&key).copied();
        }
        self.keys.iter().find(|(k, _)| k.same(key)).map(|(_, l)| *l)
    }

    fn push_loop(&mut self, key: Key<'s>, name: Name, size: u64) -> usize {
        self.loops.push(Loop { name, size });
        let l = self.loops.len() - 1;
        self.keys.push((key, l));
        match self.keys.len() {
            INDEX_FROM => self.index.extend(self.keys.iter().copied()),
            n if n > INDEX_FROM => {
                self.index.insert(key, l);
            }
            _ => {}
        }
        l
    }

    /// The solved size of a label, if it is known.
    fn size_of(&mut self, name: &str) -> Option<u64> {
        let all = self.label_size.0;
        if all.len() < INDEX_FROM {
            return self.label_size.get(name);
        }
        // Inserted last to first: the first of a name is the one kept, as in the list.
        let index = self
            .size_index
            .get_or_insert_with(|| all.iter().rev().map(|(n, s)| (n.as_str(), *s)).collect());
        index.get(name).copied().flatten()
    }

    fn row_pos(&mut self, var: &'s str, k: usize, size: u64) -> usize {
        let key = Key::RowPos(var, k);
        match self.find(key) {
            Some(l) => l,
            None => self.push_loop(key, Loop::numbered(var, "[", k, "]"), size),
        }
    }

    fn label(&mut self, name: &'s Name, fallback: u64) -> usize {
        let key = Key::Label(name);
        match self.find(key) {
            Some(l) => l,
            None => {
                let size = self.size_of(name).unwrap_or(fallback);
                self.push_loop(key, name.clone(), size)
            }
        }
    }

    fn axis(&mut self, axis: &'s ast::Axis, size: u64) -> Index {
        match &axis.kind {
            AxisKind::Label(n) => Index::Iter(self.label(n, size)),
            AxisKind::Placeholder => {
                self.loops.push(Loop { name: "_".into(), size });
                Index::Iter(self.loops.len() - 1)
            }
            AxisKind::Int(i) => Index::Fixed(*i),
            AxisKind::Affine(a) => self.affine(a),
            AxisKind::Concat(parts) => self.concat(parts),
        }
    }

    fn affine(&mut self, a: &'s ast::Affine) -> Index {
        let stride = coeff(&a.stride);
        let over = self.label(&a.over, 1);
        let mut terms = vec![(stride, over)];
        let mut offset = i64::try_from(a.offset).unwrap_or(i64::MAX);
        let mut padded = false;
        if let Some(c) = &a.conv {
            let kernel_size = self.size_of(&c.kernel).unwrap_or(1);
            let kernel = self.label(&c.kernel, 1);
            terms.push((coeff(&c.dilation), kernel));
            if c.padding == Padding::Same {
                // Padding of a same convolution: `right = (k+1)/2`, `left = k - right`.
                let left = kernel_size - kernel_size.div_ceil(2);
                offset -= i64::try_from(left).unwrap_or(0);
                padded = true;
            }
        }
        Index::Affine { terms, offset, padded }
    }

    fn concat(&mut self, parts: &'s [ConcatPart]) -> Index {
        let chosen = self.choice.get(self.concat_seen).copied().unwrap_or(0);
        self.concat_seen += 1;
        let mut offset: u64 = 0;
        for (i, p) in parts.iter().enumerate() {
            let size = match p {
                ConcatPart::Label(n) => self.size_of(n).unwrap_or(0),
                ConcatPart::Size(n) => *n,
            };
            if i == chosen {
                if let ConcatPart::Label(n) = p {
                    let l = self.label(n, size);
                    return Index::Affine {
                        terms: vec![(1, l)],
                        offset: offset as i64,
                        padded: false,
                    };
                }
            }
            offset += size;
        }
        Index::Fixed(0)
    }

    /// The indices of one tensor under one slot, in memory order, written into `out`
    /// (cleared first).
    fn slot(&mut self, slot: &'s ShapeSpec, shape: &Sizes, out: &mut Vec<Index>) {
        out.clear();
        room_for(out, shape.memory().len());
        for kind in RowKind::MEMORY_ORDER {
            let sizes = shape.row(kind).all();
            let Some(row) = slot.row(kind) else { continue };
            let (nl, nt) = (row.leading.len(), row.trailing.len());
            let middle = sizes.len().saturating_sub(nl + nt);
            for (i, a) in row.leading.iter().enumerate() {
                out.push(self.axis(a, sizes.get(i).copied().unwrap_or(1)));
            }
            if let Some(e) = &row.ellipsis {
                let var = e.var_name(kind);
                for (k, &size) in sizes.iter().skip(nl).take(middle).enumerate() {
                    out.push(Index::Iter(self.row_pos(var, k, size)));
                }
            }
            for (j, a) in row.trailing.iter().enumerate() {
                out.push(self.axis(a, sizes.get(nl + middle + j).copied().unwrap_or(1)));
            }
        }
    }
}

fn coeff(c: &ast::Coeff) -> i64 {
    match c {
        ast::Coeff::Int(n) => i64::try_from(*n).unwrap_or(i64::MAX),
        ast::Coeff::Name(_) => 1,
    }
}

fn concat_axes(spec: &EinsumSpec) -> Vec<ConcatAxis<'_>> {
    let slots = std::iter::once(&spec.lhs).chain(&spec.rhs);
    let mut out = Vec::new();
    for slot in slots {
        for kind in RowKind::MEMORY_ORDER {
            for a in slot.row(kind).into_iter().flat_map(|r| r.axes()) {
                if let AxisKind::Concat(parts) = &a.kind {
                    out.push(ConcatAxis { parts });
                }
            }
        }
    }
    out
}

fn concat_count(slot: &ShapeSpec) -> usize {
    slot.rows()
        .flat_map(|(_, r)| r.axes())
        .filter(|a| matches!(a.kind, AxisKind::Concat(_)))
        .count()
}

/// Labels looked up in a list while they are few, in a set once they are [`INDEX_FROM`] or
/// more (a concatenation of n operands leaves n-1 labels out of each of its n parts).
struct LabelSet<'s> {
    list: Vec<&'s Name>,
    set: HashSet<&'s str, FixedState>,
}

impl<'s> LabelSet<'s> {
    fn new(list: Vec<&'s Name>) -> Self {
        let set = if list.len() >= INDEX_FROM {
            list.iter().map(|n| n.as_str()).collect()
        } else {
            HashSet::default()
        };
        LabelSet { list, set }
    }

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }

    fn contains(&self, name: &str) -> bool {
        if self.list.len() >= INDEX_FROM {
            return self.set.contains(name);
        }
        self.list.iter().any(|n| n.as_str() == name)
    }
}

/// Whether an axis of the slot mentions one of `labels` outside concatenations.
fn mentions_any(slot: &ShapeSpec, labels: &LabelSet) -> bool {
    let hit = |n: &Name| labels.contains(n);
    slot.rows().flat_map(|(_, row)| row.axes()).any(|a| match &a.kind {
        AxisKind::Label(n) => hit(n),
        AxisKind::Affine(af) => hit(&af.over) || af.conv.as_ref().is_some_and(|c| hit(&c.kernel)),
        _ => false,
    })
}

/// The most combinations of concatenation parts a spec may make beyond one per part.
const MAX_CHOICES: usize = 256;

/// Every choice of one labelled component per concatenation axis, in spec order. Their
/// number is the product of the axes' parts: it may be at most 256, or the number of parts in
/// all (one concatenation of many operands has one choice per operand).
fn choices(axes: &[ConcatAxis]) -> Result<Vec<Vec<usize>>, ProjectError> {
    let parts: usize = axes.iter().map(|ax| ax.parts.len()).sum();
    let most = MAX_CHOICES.max(parts);
    let mut combos: Vec<Vec<usize>> = vec![Vec::new()];
    for ax in axes {
        let labelled: Vec<usize> =
            (0..ax.parts.len()).filter(|i| matches!(ax.parts[*i], ConcatPart::Label(_))).collect();
        combos = combos
            .iter()
            .flat_map(|c| labelled.iter().map(move |i| [c.clone(), vec![*i]].concat()))
            .collect();
        if combos.len() > most {
            let msg = format!(
                "the concatenation axes make more than {most} combinations of parts ({} of \
                 their parts in all)",
                parts
            );
            return Err(ProjectError::TooLarge(msg));
        }
    }
    Ok(combos)
}

/// The labels of the components a choice leaves out, except those it also chooses (`i^i`
/// repeats a label: every part iterates it, so no operand is left out for it).
fn inactive_labels<'s>(axes: &[ConcatAxis<'s>], choice: &[usize]) -> LabelSet<'s> {
    let label = |ax: &ConcatAxis<'s>, i: usize| match ax.parts.get(i) {
        Some(ConcatPart::Label(n)) => Some(n),
        _ => None,
    };
    let chosen = axes.iter().zip(choice).filter_map(|(ax, &c)| label(ax, c));
    let chosen = LabelSet::new(chosen.collect());
    let left_out = axes.iter().zip(choice).flat_map(|(ax, &c)| {
        (0..ax.parts.len()).filter(move |&i| i != c).filter_map(move |i| label(ax, i))
    });
    LabelSet::new(left_out.filter(|n| !chosen.contains(n)).collect())
}

/// The sizes a spec operation's plan reads: the result's, the operands' and the labels'.
#[derive(Clone, Copy)]
pub struct SpecSizes<'a> {
    /// The result's shape.
    pub out: &'a Sizes,
    /// The operands' shapes.
    pub args: &'a [Sizes],
    /// The labels' sizes.
    pub labels: LabelSizes<'a>,
}

/// The part of one choice of concatenation components, written into `part` (its buffers
/// reused); `false` when the result or every operand is left out (then `part` holds no plan).
fn part(
    spec: &EinsumSpec,
    sizes: SpecSizes,
    (choice, inactive): (&[usize], &LabelSet),
    part: &mut PlanPart,
) -> bool {
    let active = |slot: &ShapeSpec| inactive.is_empty() || !mentions_any(slot, inactive);
    if !active(&spec.lhs) {
        return false;
    }
    let PlanPart { loops, result, operands } = part;
    loops.clear();
    // Every label is a loop (besides row variables' axes and placeholders).
    room_for(loops, sizes.labels.0.len());
    room_for(operands, sizes.args.len());
    operands.resize_with(sizes.args.len(), || None);
    let mut b = Builder::new(loops, sizes.labels, choice);
    b.slot(&spec.lhs, sizes.out, result);
    let mut any = false;
    for ((slot, shape), indices) in spec.rhs.iter().zip(sizes.args).zip(operands.iter_mut()) {
        if active(slot) {
            b.slot(slot, shape, indices.get_or_insert_with(Vec::new));
            any = true;
        } else {
            b.concat_seen += concat_count(slot);
            *indices = None;
        }
    }
    any
}

/// The plan parts of a spec operation, written into `parts`: the parts it holds are reused
/// (their buffers keep their capacity), extra ones are dropped.
pub fn spec_parts(
    spec: &EinsumSpec,
    sizes: SpecSizes,
    parts: &mut Vec<PlanPart>,
) -> Result<(), ProjectError> {
    let axes = concat_axes(spec);
    let mut kept = 0;
    let mut add = |parts: &mut Vec<PlanPart>, choice: (&[usize], &LabelSet)| {
        if parts.len() == kept {
            parts.push(PlanPart::default());
        }
        if part(spec, sizes, choice, &mut parts[kept]) {
            kept += 1;
        }
    };
    if axes.is_empty() {
        room_for(parts, 1);
        add(parts, (&[], &LabelSet::new(Vec::new())));
    } else {
        let choices = choices(&axes)?;
        room_for(parts, choices.len());
        for choice in choices {
            let inactive = inactive_labels(&axes, &choice);
            add(parts, (&choice, &inactive));
        }
    }
    parts.truncate(kept);
    Ok(())
}
