//! Writing spec slots for concrete shapes: every axis gets a label (shared by axes of equal
//! dimension when chosen), a placeholder, a fixed index below its size, or a strided or
//! convolution expression whose formula gives its size; a middle stretch of a row may become
//! a row variable. The labeler remembers what each label and row variable stands for, so the
//! left-hand side (and fresh operands) can be written consistently.

use super::choices::Choices;
use crate::fuzzing::model::{ConcreteBasis, ConcreteDim};
use crate::spec::ast::{Affine, Axis, AxisKind, Coeff, Conv, Ellipsis, Name, Padding, Row};
use crate::spec::ast::{RowKind, ShapeSpec};
use crate::Span;

/// A row variable of the spec being written and its value.
#[derive(Clone, Debug)]
pub struct VarValue {
    /// The name (a kind name for plain `...`).
    pub name: String,
    /// The axes it stands for.
    pub value: Vec<ConcreteDim>,
    /// Whether the value may carry a leading flank.
    pub lead: bool,
    /// Whether the value may stay open in the solver until closing.
    pub open: bool,
}

/// Labels and row variables of one spec.
pub struct Labeler {
    /// Whether the spec is written in multichar mode.
    pub multichar: bool,
    /// Labels with their dimensions.
    pub labels: Vec<(Name, ConcreteDim)>,
    /// Row variables with their values.
    pub vars: Vec<VarValue>,
    /// Kernel labels of convolution axes, which a fresh operand must define.
    pub required: Vec<Name>,
    fresh_labels: usize,
    fresh_vars: usize,
}

fn axis(kind: AxisKind) -> Axis {
    Axis { kind, span: Span::default() }
}

impl Labeler {
    /// A labeler for a spec in the given mode.
    pub fn new(multichar: bool) -> Labeler {
        Labeler {
            multichar,
            labels: Vec::new(),
            vars: Vec::new(),
            required: Vec::new(),
            fresh_labels: 0,
            fresh_vars: 0,
        }
    }

    /// A fresh label for `d`; `None` when single-char mode ran out of letters.
    pub fn fresh_label(&mut self, d: &ConcreteDim) -> Option<Name> {
        let i = self.fresh_labels;
        let name: Name = match (self.multichar, i) {
            (_, 0..=25) => char::from(b'a' + i as u8).to_string().into(),
            (false, 26..=38) => char::from(b'A' + (i - 26) as u8).to_string().into(),
            (false, _) => return None,
            (true, _) => format!("l{i}").into(),
        };
        self.fresh_labels += 1;
        self.labels.push((name.clone(), d.clone()));
        Some(name)
    }

    fn fresh_var_name(&mut self) -> Option<String> {
        let i = self.fresh_vars;
        self.fresh_vars += 1;
        match (self.multichar, i) {
            (false, 0..=12) => Some(char::from(b'N' + i as u8).to_string()),
            (false, _) => None,
            (true, _) => Some(format!("r{i}")),
        }
    }

    /// An existing label standing for `d`, if any.
    pub fn label_of(&self, ch: &mut Choices, d: &ConcreteDim) -> Option<Name> {
        let same: Vec<&Name> = self.labels.iter().filter(|(_, x)| x == d).map(|(n, _)| n).collect();
        ch.pick(&same).map(|n| (*n).clone())
    }

    /// The axis for one position of an existing operand.
    fn axis_for(&mut self, ch: &mut Choices, d: &ConcreteDim, arith: bool, conv: bool) -> Axis {
        let kind = match ch.below(12) {
            5..=7 => self.label_of(ch, d).map(AxisKind::Label),
            8 => Some(AxisKind::Placeholder),
            // A fixed index on a `1!` the solver still has as a variable would close it to a
            // plain 1 (its lower bound) rather than the witness' `1!`: both are solutions.
            9 if !d.is_top() => Some(AxisKind::Int(ch.below(d.size.min(4) as usize) as u64)),
            10 if arith && self.multichar => self.affine(ch, d, conv),
            _ => None,
        };
        let kind = kind.or_else(|| self.fresh_label(d).map(AxisKind::Label));
        axis(kind.unwrap_or(AxisKind::Placeholder))
    }

    /// A strided axis `s*o[+off]` for a default-basis size, or (with `conv`) a convolution axis
    /// whose kernel label the caller must define in another operand.
    fn affine(&mut self, ch: &mut Choices, d: &ConcreteDim, conv: bool) -> Option<AxisKind> {
        if d.basis != ConcreteBasis::Default || d.size < 2 {
            return None;
        }
        let n = d.size;
        let stride = 1 + ch.below(3) as u64;
        let with_conv = conv && ch.one_in(2);
        let (over, conv_term, offset) = if !with_conv {
            if !n.is_multiple_of(stride) {
                return None;
            }
            (n / stride, None, ch.below(stride as usize) as u64)
        } else {
            let dil = 1 + ch.below(2) as u64;
            let ks = 1 + ch.below(n.min(4) as usize) as u64;
            let padded = ch.one_in(2);
            let span = dil * (ks - 1) + 1;
            let over = if padded {
                n.is_multiple_of(stride).then(|| n / stride)?
            } else {
                (n >= span && (n - span).is_multiple_of(stride)).then(|| (n - span) / stride + 1)?
            };
            let kernel = self.fresh_label(&ConcreteDim::new(ks))?;
            self.required.push(kernel.clone());
            let padding = if padded { Padding::Same } else { Padding::Valid };
            let c =
                Conv { dilation: Coeff::Int(dil), kernel, padding, kernel_span: Span::default() };
            (over, Some(c), 0)
        };
        let over_label = self.fresh_label(&ConcreteDim::new(over))?;
        Some(AxisKind::Affine(Box::new(Affine {
            stride: Coeff::Int(stride),
            over: over_label,
            over_span: Span::default(),
            offset,
            conv: conv_term,
        })))
    }

    /// The name for a row variable standing for `value` in a row of `kind`: plain `...` when
    /// that name is free or already means the same axes, else a fresh named variable.
    pub fn row_var(
        &mut self,
        kind: RowKind,
        value: &[ConcreteDim],
        (lead, open): (bool, bool),
    ) -> Option<Ellipsis> {
        let plain = kind.name();
        let name = match self.vars.iter().find(|v| v.name == plain) {
            None => None,
            Some(v) if v.value == value => None,
            Some(_) => Some(self.fresh_var_name()?),
        };
        let key = name.clone().unwrap_or_else(|| plain.to_string());
        if !self.vars.iter().any(|v| v.name == key) {
            self.vars.push(VarValue { name: key, value: value.to_vec(), lead, open });
        }
        Some(Ellipsis { name: name.map(Into::into), span: Span::default() })
    }

    /// A slot row for an existing operand's row. `flags` are the row's lead and open flags;
    /// with `avoid` an open row gets no axes beside its row variable (see
    /// [`super::GenConfig::avoid_known_issues`]).
    pub fn row(
        &mut self,
        ch: &mut Choices,
        kind: RowKind,
        row: &[ConcreteDim],
        (lead, open, avoid): (bool, bool, bool),
        (arith, conv): (bool, bool),
    ) -> Row {
        let n = row.len();
        let with_var = ch.below(3) == 1;
        let (l, t) = match (with_var, open && avoid) {
            (false, _) => (0, n),
            (true, true) => (0, 0),
            (true, false) => {
                let l = ch.below(n + 1);
                (l, ch.below(n - l + 1))
            }
        };
        let ellipsis =
            if with_var { self.row_var(kind, &row[l..n - t], (lead, open)) } else { None };
        let (l, t) = if ellipsis.is_some() { (l, t) } else { (0, n) };
        let leading = row[..l].iter().map(|d| self.axis_for(ch, d, arith, conv)).collect();
        let trailing = row[n - t..].iter().map(|d| self.axis_for(ch, d, arith, conv)).collect();
        Row { leading, ellipsis, trailing, span: Span::default() }
    }

    /// A slot for an existing operand (`avoid`: see [`Labeler::row`]).
    pub fn slot(
        &mut self,
        ch: &mut Choices,
        e: &super::pool::Entry,
        avoid: bool,
        arith: (bool, bool),
    ) -> ShapeSpec {
        let mut slot = ShapeSpec::default();
        for (i, kind) in RowKind::ALL.into_iter().enumerate() {
            let omit = kind != RowKind::Output && e.rows[i].is_empty() && ch.below(3) == 0;
            if !omit {
                let flags = (e.lead[i], e.open[i], avoid);
                let r = self.row(ch, kind, &e.rows[i], flags, arith);
                set_row(&mut slot, kind, r);
            }
        }
        slot
    }
}

/// Puts a row into a slot.
pub fn set_row(slot: &mut ShapeSpec, kind: RowKind, row: Row) {
    match kind {
        RowKind::Batch => slot.batch = Some(Box::new(row)),
        RowKind::Input => slot.input = Some(Box::new(row)),
        RowKind::Output => slot.output = row,
    }
}

/// Builds a row from items (axes or the row variable) in order.
pub fn row_of(items: Vec<Item>) -> Row {
    let mut row = Row::default();
    let mut seen_var = false;
    for it in items {
        match it {
            Item::Axis(a) if seen_var => row.trailing.push(a),
            Item::Axis(a) => row.leading.push(a),
            Item::Var(e) => {
                row.ellipsis = Some(e);
                seen_var = true;
            }
        }
    }
    if !seen_var {
        row.trailing = std::mem::take(&mut row.leading);
    }
    row
}

/// An item of a row being assembled.
pub enum Item {
    /// An axis.
    Axis(Axis),
    /// The row variable.
    Var(Ellipsis),
}
