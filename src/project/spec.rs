//! Plans of spec operations, re-derived locally per operation: every label of the spec is one
//! loop (two operations co-iterating an axis elsewhere do not merge loops here), a row
//! variable's k-th axis is one loop, each `_` its own loop, integers are fixed indices,
//! strided and convolution axes are affine indices, and a concatenation is one part per
//! component.

use std::collections::HashMap;

use foldhash::fast::FixedState;
use smallvec::SmallVec;

use super::components::{Choice, Components, Reads};
use super::error::ProjectError;
use super::plan::{room_for, Index, Loop, PartOperand, PlanPart};
use super::sizes::Sizes;
use crate::spec::ast::{self, AxisKind, EinsumSpec, Name, Padding, RowKind, ShapeSpec};

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

/// The solved sizes of a step's labels, looked up in a list while they are few and in a table
/// (made once per plan, on the first lookup) once they are [`INDEX_FROM`] or more.
struct SizeTable<'a> {
    labels: LabelSizes<'a>,
    /// The sizes of `labels` by name (the first of a name).
    index: Option<HashMap<&'a str, Option<u64>, FixedState>>,
}

impl<'a> SizeTable<'a> {
    fn new(labels: LabelSizes<'a>) -> Self {
        SizeTable { labels, index: None }
    }

    /// The solved size of a label, if it is known.
    fn get(&mut self, name: &str) -> Option<u64> {
        let all = self.labels.0;
        if all.len() < INDEX_FROM {
            return self.labels.get(name);
        }
        // Inserted last to first: the first of a name is the one kept, as in the list.
        let index = self
            .index
            .get_or_insert_with(|| all.iter().rev().map(|(n, s)| (n.as_str(), *s)).collect());
        index.get(name).copied().flatten()
    }
}

/// The concatenation choice a part is built for.
#[derive(Clone, Copy)]
struct Chosen<'s, 'p> {
    components: &'p Components<'s>,
    choice: &'p Choice,
}

/// The builder of one part: `'s` the spec, `'p` the part's buffers, `'t` the label sizes.
struct Builder<'s, 'p, 't> {
    loops: &'p mut Vec<Loop>,
    keys: SmallVec<[(Key<'s>, usize); 8]>,
    /// The loop of each key in `keys`, once there are [`INDEX_FROM`] of them.
    index: HashMap<Key<'s>, usize, FixedState>,
    sizes: &'p mut SizeTable<'t>,
    chosen: Chosen<'s, 'p>,
    /// The concatenation axis met next (axes count in spec order).
    concat_seen: usize,
}

impl<'s, 'p, 't> Builder<'s, 'p, 't> {
    fn new(loops: &'p mut Vec<Loop>, sizes: &'p mut SizeTable<'t>, chosen: Chosen<'s, 'p>) -> Self {
        let (keys, index) = (SmallVec::new(), HashMap::default());
        Builder { loops, keys, index, sizes, chosen, concat_seen: 0 }
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
        self.sizes.get(name)
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
            AxisKind::Concat(_) => self.concat(),
            AxisKind::Flat(labels) => self.flat(labels),
        }
    }

    /// The index of a flattened axis, row-major: each label's loop times the product of the
    /// sizes of the labels after it.
    fn flat(&mut self, labels: &'s [(ast::Name, crate::span::Span)]) -> Index {
        let mut terms = Vec::with_capacity(labels.len());
        let mut scale: i64 = 1;
        for (name, _) in labels.iter().rev() {
            let size = self.size_of(name).unwrap_or(1);
            let l = self.label(name, size);
            terms.push((scale, l));
            scale = scale.saturating_mul(i64::try_from(size).unwrap_or(i64::MAX));
        }
        terms.reverse();
        Index::Affine { terms, offset: 0, padded: false }
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
            if let Padding::Floor(pad) = c.padding {
                // PyTorch's: the window starts `pad` before the input; the last windows'
                // leftover input is never read.
                offset -= i64::try_from(pad).unwrap_or(i64::MAX);
                padded = pad > 0;
            }
        }
        Index::Affine { terms, offset, padded }
    }

    /// The index of the next concatenation axis: the chosen component's loop from its offset
    /// (index 0 when the choice has none).
    fn concat(&mut self) -> Index {
        let axis = self.concat_seen;
        self.concat_seen += 1;
        match self.chosen.components.chosen(self.chosen.choice, axis) {
            Some((name, offset)) => {
                let l = self.label(name, 0);
                let offset = i64::try_from(offset).unwrap_or(i64::MAX);
                Index::Affine { terms: vec![(1, l)], offset, padded: false }
            }
            None => Index::Fixed(0),
        }
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

/// Index entries a plan may hold beyond which its size is checked against its operation.
const ENTRIES_FLOOR: usize = 1 << 20;

/// Index entries a plan may hold per axis, label, operand and concatenation component of its
/// operation (beyond [`ENTRIES_FLOOR`]).
const ENTRIES_PER_ELEMENT: usize = 16;

/// The most index entries ([`PlanPart::entries`], with the slots each part visits) the plan
/// of an operation of these sizes may hold: a single part holds a few per axis, label and
/// operand; a spec whose concatenation parts each repeat a large share of it (parts that
/// all read the same large operands, or a result of many concatenation axes) would hold
/// their product, and is refused.
fn entries_bound(sizes: SpecSizes, components: &Components) -> usize {
    let axes = sizes.args.iter().map(|a| a.memory().len()).sum::<usize>();
    let elements = axes + sizes.out.memory().len() + sizes.labels.0.len() + sizes.args.len();
    let elements = elements + components.component_count();
    ENTRIES_FLOOR.max(elements.saturating_mul(ENTRIES_PER_ELEMENT))
}

fn too_many_entries(bound: usize, parts: usize) -> ProjectError {
    ProjectError::TooLarge(format!(
        "the plan's concatenation parts would hold more than {bound} index entries (past \
         {parts} parts): each part repeats the axes of the result and of the operands it \
         reads; concatenate fewer operands per operation, or read fewer operands in every part"
    ))
}

/// The part of one choice of concatenation components, written into `part` (its buffers
/// reused): the result and the operands `reads` lists.
fn part(
    spec: &EinsumSpec,
    sizes: SpecSizes,
    (table, chosen): (&mut SizeTable, Chosen),
    reads: &[usize],
    part: &mut PlanPart,
) {
    let PlanPart { loops, result, operands } = part;
    loops.clear();
    // Every label is a loop (besides row variables' axes and placeholders): room for all of
    // them where the plan has one part; the parts of a concatenation grow theirs.
    if chosen.components.axis_count() == 0 {
        room_for(loops, sizes.labels.0.len());
    }
    room_for(operands, reads.len());
    operands.truncate(reads.len());
    operands.resize_with(reads.len(), PartOperand::default);
    let mut b = Builder::new(loops, table, chosen);
    b.slot(&spec.lhs, sizes.out, result);
    for (&k, read) in reads.iter().zip(operands.iter_mut()) {
        let (Some(slot), Some(shape)) = (spec.rhs.get(k), sizes.args.get(k)) else { continue };
        b.concat_seen = chosen.components.first_axis(Some(k));
        read.operand = k;
        b.slot(slot, shape, &mut read.index);
    }
}

/// The plan parts of a spec operation, written into `parts`: the parts it holds are reused
/// (their buffers keep their capacity), extra ones are dropped. A choice of concatenation
/// components whose result or every operand is left out makes no part.
pub fn spec_parts(
    spec: &EinsumSpec,
    sizes: SpecSizes,
    parts: &mut Vec<PlanPart>,
) -> Result<(), ProjectError> {
    let mut table = SizeTable::new(sizes.labels);
    let components = Components::new(spec, &mut |name| table.get(name));
    let count = components.choice_count()?;
    let bound = entries_bound(sizes, &components);
    if count.saturating_mul(components.axis_count() + 1) > bound {
        return Err(too_many_entries(bound, 0));
    }
    room_for(parts, count);
    let (mut kept, mut entries, mut reads) = (0, 0usize, Reads::default());
    let mut next = components.first();
    while let Some(choice) = next.as_mut() {
        let (writes, work) = components.reads(choice, &mut reads);
        entries = entries.saturating_add(work);
        if writes && !reads.operands.is_empty() {
            if parts.len() == kept {
                parts.push(PlanPart::default());
            }
            let chosen = Chosen { components: &components, choice };
            part(spec, sizes, (&mut table, chosen), &reads.operands, &mut parts[kept]);
            entries = entries.saturating_add(parts[kept].entries());
            kept += 1;
        }
        if entries > bound {
            parts.truncate(kept);
            return Err(too_many_entries(bound, kept));
        }
        if !components.advance(choice) {
            next = None;
        }
    }
    parts.truncate(kept);
    Ok(())
}
