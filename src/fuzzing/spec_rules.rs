//! The constraints of a spec operation (permute, einsum, einsum3, concat), checked on concrete
//! shapes: every slot matches its tensor by *flat* equality (no broadcasting), a label denotes
//! one dimension everywhere, a row variable one axis list everywhere (`...` is named after the
//! kind it stands in), a fixed index `i` needs a size above `i`, a strided or convolution axis
//! has the size its formula gives, and a concatenation axis the sum of its components.
//!
//! Sizes that only a formula determines (the `over` label of a strided axis, components of a
//! concatenation seen nowhere else) are solved from the equations; what remains
//! underdetermined is accepted when some non-negative solution exists for each equation alone.

use super::model::{ConcreteDim, ConcreteShape};
use crate::spec::ast::{Affine, AxisKind, Coeff, ConcatPart, EinsumSpec, Padding, Row, RowKind};
use crate::spec::ast::{Name, ShapeSpec};

/// A label's value: exact (seen as a plain axis) or only its size (derived from a formula).
#[derive(Clone, Debug)]
struct Bound {
    dim: ConcreteDim,
    exact: bool,
}

/// An axis whose meaning is arithmetic, with the dimension it faces.
enum Pending<'a> {
    Affine(&'a Affine, ConcreteDim),
    Concat(&'a [ConcatPart], ConcreteDim),
    Flat(&'a [(Name, crate::span::Span)], ConcreteDim),
}

#[derive(Default)]
struct Bindings<'a> {
    labels: Vec<(Name, Bound)>,
    rows: Vec<(String, Vec<ConcreteDim>)>,
    pending: Vec<Pending<'a>>,
}

/// What a spec's names stand for on concrete shapes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SpecBindings {
    /// Each label's size (labels only a formula determines included, when it does).
    pub labels: Vec<(Name, u64)>,
    /// Each row variable's axes (`...` under its kind's name).
    pub rows: Vec<(String, Vec<ConcreteDim>)>,
}

impl SpecBindings {
    /// The size of a label.
    pub fn label(&self, name: &str) -> Option<u64> {
        self.labels.iter().find(|(n, _)| n == name).map(|(_, s)| *s)
    }

    /// The axes of a row variable.
    pub fn row(&self, name: &str) -> Option<&[ConcreteDim]> {
        self.rows.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_slice())
    }
}

/// Checks that `operands` (one per right-hand slot) and `result` (the left-hand slot)
/// satisfy `spec`; returns what the labels and row variables stand for.
pub fn check_spec(
    spec: &EinsumSpec,
    operands: &[&ConcreteShape],
    result: &ConcreteShape,
) -> Result<SpecBindings, String> {
    if spec.rhs.len() != operands.len() {
        return Err(format!("{} slots for {} operands", spec.rhs.len(), operands.len()));
    }
    let mut b = Bindings::default();
    for (i, (slot, shape)) in spec.rhs.iter().zip(operands).enumerate() {
        b.slot(slot, shape).map_err(|e| format!("operand {i}: {e}"))?;
    }
    b.slot(&spec.lhs, result).map_err(|e| format!("result: {e}"))?;
    b.resolve()?;
    Ok(SpecBindings {
        labels: b.labels.into_iter().map(|(n, v)| (n, v.dim.size)).collect(),
        rows: b.rows,
    })
}

impl<'a> Bindings<'a> {
    fn slot(&mut self, slot: &'a ShapeSpec, shape: &ConcreteShape) -> Result<(), String> {
        for kind in RowKind::ALL {
            let flat = shape.row(kind).flat();
            match slot.row(kind) {
                None if flat.is_empty() => {}
                None => return Err(format!("{} row is not written but has axes", kind.name())),
                Some(r) => {
                    self.row(r, kind, &flat).map_err(|e| format!("{} row: {e}", kind.name()))?
                }
            }
        }
        Ok(())
    }

    fn row(&mut self, r: &'a Row, kind: RowKind, flat: &[ConcreteDim]) -> Result<(), String> {
        let (lead, trail) = (r.leading.len(), r.trailing.len());
        let fits = match r.ellipsis {
            None => flat.len() == lead + trail,
            Some(_) => flat.len() >= lead + trail,
        };
        if !fits {
            return Err(format!("{} axes do not fit the {} written", flat.len(), lead + trail));
        }
        let tail_at = flat.len() - trail;
        for (a, d) in r.leading.iter().zip(flat) {
            self.axis(&a.kind, d)?;
        }
        for (a, d) in r.trailing.iter().zip(&flat[tail_at..]) {
            self.axis(&a.kind, d)?;
        }
        if let Some(e) = &r.ellipsis {
            let name = e.var_name(kind).to_string();
            let middle = flat[lead..tail_at].to_vec();
            match self.rows.iter().find(|(n, _)| *n == name) {
                Some((_, v)) if *v != middle => {
                    return Err(format!(
                        "row variable {name} is [{}] and [{}]",
                        show(v),
                        show(&middle)
                    ))
                }
                Some(_) => {}
                None => self.rows.push((name, middle)),
            }
        }
        Ok(())
    }

    fn axis(&mut self, a: &'a AxisKind, d: &ConcreteDim) -> Result<(), String> {
        match a {
            AxisKind::Label(l) => self.bind(l, d, true),
            AxisKind::Placeholder => Ok(()),
            AxisKind::Int(i) if d.size > *i => Ok(()),
            AxisKind::Int(i) => Err(format!("fixed index {i} on an axis of size {}", d.size)),
            AxisKind::Affine(af) => {
                self.pending.push(Pending::Affine(af, d.clone()));
                Ok(())
            }
            AxisKind::Concat(parts) => {
                self.pending.push(Pending::Concat(parts, d.clone()));
                Ok(())
            }
            AxisKind::Flat(labels) => {
                self.pending.push(Pending::Flat(labels, d.clone()));
                Ok(())
            }
        }
    }

    fn bind(&mut self, l: &Name, d: &ConcreteDim, exact: bool) -> Result<(), String> {
        let found = self.labels.iter_mut().find(|(n, _)| n == l);
        match found {
            None => self.labels.push((l.clone(), Bound { dim: d.clone(), exact })),
            Some((_, b)) if b.exact && exact => {
                if b.dim != *d {
                    return Err(format!("label {l} is {} and {d}", b.dim));
                }
            }
            Some((_, b)) => {
                if b.dim.size != d.size {
                    return Err(format!("label {l} has sizes {} and {}", b.dim.size, d.size));
                }
                if exact {
                    *b = Bound { dim: d.clone(), exact };
                }
            }
        }
        Ok(())
    }

    fn size(&self, l: &str) -> Option<u64> {
        self.labels.iter().find(|(n, _)| n == l).map(|(_, b)| b.dim.size)
    }

    /// Solves the arithmetic axes to a fixpoint, then checks what is left.
    fn resolve(&mut self) -> Result<(), String> {
        let mut pending = std::mem::take(&mut self.pending);
        loop {
            let before = pending.len();
            let mut rest = Vec::new();
            for p in pending {
                if !self.step(&p)? {
                    rest.push(p);
                }
            }
            pending = rest;
            if pending.len() == before {
                break;
            }
        }
        for p in &pending {
            self.feasible(p)?;
        }
        Ok(())
    }

    /// Checks or solves one arithmetic axis; `false` when it needs more information.
    fn step(&mut self, p: &Pending) -> Result<bool, String> {
        match p {
            Pending::Affine(af, d) => self.affine(af, d),
            Pending::Concat(parts, d) => self.concat(parts, d),
            Pending::Flat(labels, d) => self.flat(labels, d),
        }
    }

    /// A flattened axis: the product of its labels' sizes.
    fn flat(
        &mut self,
        labels: &[(Name, crate::span::Span)],
        d: &ConcreteDim,
    ) -> Result<bool, String> {
        let mut known: u64 = 1;
        let mut unknown: Vec<&Name> = Vec::new();
        for (l, _) in labels {
            match self.size(l) {
                Some(n) => known = known.saturating_mul(n),
                None if !unknown.contains(&l) => unknown.push(l),
                None => return Ok(false),
            }
        }
        match unknown.as_slice() {
            [] if known == d.size => Ok(true),
            [] => Err(format!("flattened labels multiply to {known}, not {}", d.size)),
            [one] if known > 0 && d.size.is_multiple_of(known) => {
                self.bind(one, &ConcreteDim::new(d.size / known), false)?;
                Ok(true)
            }
            [_] if known > 0 => {
                Err(format!("flattened labels' {known} does not divide {}", d.size))
            }
            _ => Ok(false),
        }
    }

    fn affine(&mut self, af: &Affine, d: &ConcreteDim) -> Result<bool, String> {
        let s = coeff(&af.stride)?;
        let over = self.size(&af.over);
        let conv = match &af.conv {
            None => None,
            Some(c) if c.padding == Padding::Unspecified => {
                return Err("a convolution axis without a padding marker".into())
            }
            Some(c) => Some((coeff(&c.dilation)?, c.kernel.as_str(), c.padding)),
        };
        let n = d.size;
        match (conv, over) {
            // PyTorch's: the output from the input and the kernel (the input is not a function
            // of the output).
            (Some((dil, k, Padding::Floor(pad))), _) => {
                let Some(ks) = self.size(k) else { return Ok(false) };
                let window = dil.saturating_mul(ks.saturating_sub(1)).saturating_add(1);
                let padded = n.saturating_add(pad.saturating_mul(2));
                let r = padded
                    .checked_sub(window)
                    .filter(|_| ks > 0)
                    .ok_or_else(|| format!("the input {n} is shorter than the window of {af}"))?;
                self.bind(&af.over, &ConcreteDim::new(r / s + 1), false)?;
            }
            (None, Some(o)) | (Some((_, _, Padding::Same)), Some(o)) => {
                expect_size(s.checked_mul(o), n, af)?;
            }
            (None, None) | (Some((_, _, Padding::Same)), None) => {
                if !n.is_multiple_of(s) {
                    return Err(format!("axis of size {n} is not a multiple of stride {s}: {af}"));
                }
                self.bind(&af.over, &ConcreteDim::new(n / s), false)?;
            }
            (Some((dil, k, _)), Some(o)) => match self.size(k) {
                Some(ks) => expect_size(valid_extent(s, o, dil, ks), n, af)?,
                None => {
                    // kernel = (n - s*(o-1) - 1) / dil + 1, integral and at least 1.
                    let used = s.checked_mul(o.saturating_sub(1)).and_then(|x| x.checked_add(1));
                    let rest = used.and_then(|u| n.checked_sub(u)).filter(|r| r % dil == 0);
                    let r = rest.ok_or_else(|| format!("no kernel size fits {n} in {af}"))?;
                    self.bind(&k.into(), &ConcreteDim::new(r / dil + 1), false)?;
                }
            },
            (Some((dil, k, _)), None) => match self.size(k) {
                Some(ks) => {
                    let span = dil.checked_mul(ks.saturating_sub(1)).and_then(|x| x.checked_add(1));
                    let rest = span.and_then(|sp| n.checked_sub(sp)).filter(|r| r % s == 0);
                    let r = rest.ok_or_else(|| format!("no output size fits {n} in {af}"))?;
                    self.bind(&af.over, &ConcreteDim::new(r / s + 1), false)?;
                }
                None => return Ok(false),
            },
        }
        Ok(true)
    }

    fn concat(&mut self, parts: &[ConcatPart], d: &ConcreteDim) -> Result<bool, String> {
        let mut known: u64 = 0;
        let mut unknown: Vec<&Name> = Vec::new();
        for p in parts {
            match p {
                ConcatPart::Size(n) => known = known.saturating_add(*n),
                ConcatPart::Label(l) => match self.size(l) {
                    Some(n) => known = known.saturating_add(n),
                    None if !unknown.contains(&l) => unknown.push(l),
                    None => return Ok(false),
                },
            }
        }
        let residual = d.size.checked_sub(known).ok_or_else(|| {
            format!("concatenation components sum to {known}, more than the axis size {}", d.size)
        })?;
        match unknown.as_slice() {
            [] if residual == 0 => Ok(true),
            [] => Err(format!("concatenation components sum to {known}, not {}", d.size)),
            [one] => {
                self.bind(one, &ConcreteDim::new(residual), false)?;
                Ok(true)
            }
            _ => Ok(false),
        }
    }

    /// An arithmetic axis left underdetermined: accept it when it has a solution on its own.
    fn feasible(&self, p: &Pending) -> Result<(), String> {
        match p {
            Pending::Concat(parts, d) => {
                let known: u64 = parts
                    .iter()
                    .map(|p| match p {
                        ConcatPart::Size(n) => *n,
                        ConcatPart::Label(l) => self.size(l).unwrap_or(0),
                    })
                    .fold(0, u64::saturating_add);
                if known > d.size {
                    return Err(format!(
                        "concatenation components exceed the axis size {}",
                        d.size
                    ));
                }
                Ok(())
            }
            Pending::Affine(..) | Pending::Flat(..) => Ok(()),
        }
    }
}

fn coeff(c: &Coeff) -> Result<u64, String> {
    match c {
        Coeff::Int(0) => Err("a zero stride or dilation".into()),
        Coeff::Int(n) => Ok(*n),
        Coeff::Name(n) => Err(format!("host-language coefficient `{n}`")),
    }
}

/// The input extent of a valid convolution: `s*(o-1) + dil*(k-1) + 1`.
fn valid_extent(s: u64, o: u64, dil: u64, k: u64) -> Option<u64> {
    let a = s.checked_mul(o.checked_sub(1)?)?;
    let b = dil.checked_mul(k.checked_sub(1)?)?;
    a.checked_add(b)?.checked_add(1)
}

fn expect_size(want: Option<u64>, n: u64, af: &Affine) -> Result<(), String> {
    match want {
        Some(w) if w == n => Ok(()),
        Some(w) => Err(format!("axis {af} should have size {w}, has {n}")),
        None => Err(format!("axis {af} has no valid size (overflow or empty)")),
    }
}

fn show(dims: &[ConcreteDim]) -> String {
    super::model::join_dims(dims)
}
