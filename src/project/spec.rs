//! Plans of spec operations, re-derived locally per operation: every label of the spec is one
//! loop (two operations co-iterating an axis elsewhere do not merge loops here), a row
//! variable's k-th axis is one loop, each `_` its own loop, integers are fixed indices,
//! strided and convolution axes are affine indices, and a concatenation is one part per
//! component.

use super::concrete::Concrete;
use super::error::ProjectError;
use super::plan::{Index, Loop, PlanPart};
use crate::spec::ast::{self, AxisKind, ConcatPart, EinsumSpec, Name, Padding, RowKind, ShapeSpec};

/// What a loop stands for.
#[derive(Clone, PartialEq, Eq, Debug)]
enum Key {
    Label(Name),
    RowPos(Name, usize),
}

/// A concatenation axis: its label components (position and name) and fixed-size components.
struct ConcatAxis {
    parts: Vec<ConcatPart>,
}

struct Builder<'a> {
    loops: Vec<Loop>,
    keys: Vec<(Key, usize)>,
    label_size: &'a dyn Fn(&str) -> Option<u64>,
    /// Chosen component per concatenation axis, in spec order.
    choice: &'a [usize],
    concat_seen: usize,
}

impl Builder<'_> {
    fn loop_for(&mut self, key: Key, size: u64) -> usize {
        if let Some((_, l)) = self.keys.iter().find(|(k, _)| *k == key) {
            return *l;
        }
        let name = match &key {
            Key::Label(n) => n.clone(),
            Key::RowPos(n, k) => smol_str::format_smolstr!("{n}[{k}]"),
        };
        self.loops.push(Loop { name, size });
        self.keys.push((key, self.loops.len() - 1));
        self.loops.len() - 1
    }

    fn label(&mut self, name: &Name, fallback: u64) -> usize {
        let size = (self.label_size)(name).unwrap_or(fallback);
        self.loop_for(Key::Label(name.clone()), size)
    }

    fn axis(&mut self, axis: &ast::Axis, size: u64) -> Index {
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

    fn affine(&mut self, a: &ast::Affine) -> Index {
        let stride = coeff(&a.stride);
        let over = self.label(&a.over, 1);
        let mut terms = vec![(stride, over)];
        let mut offset = i64::try_from(a.offset).unwrap_or(i64::MAX);
        let mut padded = false;
        if let Some(c) = &a.conv {
            let kernel_size = (self.label_size)(&c.kernel).unwrap_or(1);
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

    fn concat(&mut self, parts: &[ConcatPart]) -> Index {
        let chosen = self.choice.get(self.concat_seen).copied().unwrap_or(0);
        self.concat_seen += 1;
        let mut offset: u64 = 0;
        for (i, p) in parts.iter().enumerate() {
            let size = match p {
                ConcatPart::Label(n) => (self.label_size)(n).unwrap_or(0),
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

    /// The indices of one tensor under one slot, in memory order.
    fn slot(&mut self, slot: &ShapeSpec, shape: &Concrete) -> Vec<Index> {
        let mut out = Vec::new();
        for kind in RowKind::MEMORY_ORDER {
            let sizes = shape.row(kind).flat();
            let Some(row) = slot.row(kind) else { continue };
            let (nl, nt) = (row.leading.len(), row.trailing.len());
            let middle = sizes.len().saturating_sub(nl + nt);
            for (i, a) in row.leading.iter().enumerate() {
                out.push(self.axis(a, sizes.get(i).copied().unwrap_or(1)));
            }
            if let Some(e) = &row.ellipsis {
                let name: Name = e.var_name(kind).into();
                for k in 0..middle {
                    out.push(Index::Iter(
                        self.loop_for(Key::RowPos(name.clone(), k), sizes[nl + k]),
                    ));
                }
            }
            for (j, a) in row.trailing.iter().enumerate() {
                out.push(self.axis(a, sizes.get(nl + middle + j).copied().unwrap_or(1)));
            }
        }
        out
    }
}

fn coeff(c: &ast::Coeff) -> i64 {
    match c {
        ast::Coeff::Int(n) => i64::try_from(*n).unwrap_or(i64::MAX),
        ast::Coeff::Name(_) => 1,
    }
}

fn concat_axes(spec: &EinsumSpec) -> Vec<ConcatAxis> {
    let slots = std::iter::once(&spec.lhs).chain(&spec.rhs);
    let mut out = Vec::new();
    for slot in slots {
        for kind in RowKind::MEMORY_ORDER {
            for a in slot.row(kind).into_iter().flat_map(|r| r.axes()) {
                if let AxisKind::Concat(parts) = &a.kind {
                    out.push(ConcatAxis { parts: parts.clone() });
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

/// Labels an axis mentions outside concatenations.
fn plain_labels(slot: &ShapeSpec) -> Vec<&Name> {
    let mut v = Vec::new();
    for (_, row) in slot.rows() {
        for a in row.axes() {
            match &a.kind {
                AxisKind::Label(n) => v.push(n),
                AxisKind::Affine(af) => {
                    v.push(&af.over);
                    v.extend(af.conv.as_ref().map(|c| &c.kernel));
                }
                _ => {}
            }
        }
    }
    v
}

/// The plan parts of a spec operation.
pub fn spec_parts(
    spec: &EinsumSpec,
    out: &Concrete,
    args: &[Concrete],
    label_size: &dyn Fn(&str) -> Option<u64>,
) -> Result<Vec<PlanPart>, ProjectError> {
    let axes = concat_axes(spec);
    let mut combos: Vec<Vec<usize>> = vec![Vec::new()];
    for ax in &axes {
        let labelled: Vec<usize> =
            (0..ax.parts.len()).filter(|i| matches!(ax.parts[*i], ConcatPart::Label(_))).collect();
        combos = combos
            .iter()
            .flat_map(|c| labelled.iter().map(move |i| [c.clone(), vec![*i]].concat()))
            .collect();
        if combos.len() > 256 {
            return Err(ProjectError::TooLarge("more than 256 concatenation parts".into()));
        }
    }
    let mut parts = Vec::new();
    for choice in combos {
        let inactive: Vec<&Name> = axes
            .iter()
            .zip(&choice)
            .flat_map(|(ax, c)| {
                ax.parts.iter().enumerate().filter(move |(i, _)| i != c).filter_map(
                    |(_, p)| match p {
                        ConcatPart::Label(n) => Some(n),
                        ConcatPart::Size(_) => None,
                    },
                )
            })
            .collect();
        let active = |slot: &ShapeSpec| !plain_labels(slot).iter().any(|l| inactive.contains(l));
        if !active(&spec.lhs) {
            continue;
        }
        let mut b = Builder {
            loops: Vec::new(),
            keys: Vec::new(),
            label_size,
            choice: &choice,
            concat_seen: 0,
        };
        let result = b.slot(&spec.lhs, out);
        let mut operands = Vec::with_capacity(args.len());
        for (slot, shape) in spec.rhs.iter().zip(args) {
            if active(slot) {
                operands.push(Some(b.slot(slot, shape)));
            } else {
                b.concat_seen += concat_count(slot);
                operands.push(None);
            }
        }
        if operands.iter().any(Option::is_some) {
            parts.push(PlanPart { loops: b.loops, result, operands });
        }
    }
    Ok(parts)
}
