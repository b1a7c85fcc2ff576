//! Sizes a step computes rather than carries: the output extent of a strided or convolution
//! axis (`2*o`, `o<+k`), the input extent it covers, a kernel's size, a concatenation's sum
//! and one of its components. Each is found from the step's spec placed on its tensors' rows,
//! with the formula and the sizes it is computed from (each traced in turn by the walk).

use super::links::{label_axes, placed, view};
use super::walk::Walker;
use crate::ids::{StepId, TensorId};
use crate::infer::error::AxisRef;
use crate::span::Span;
use crate::spec::ast::{Affine, AxisKind, Coeff, ConcatPart, EinsumSpec, Name, Padding, ShapeSpec};

/// A computation found for an axis, before its inputs are traced.
pub struct Found {
    /// The step that computes the size (set once the step is known).
    pub step: Option<StepId>,
    /// Where in the step's spec.
    pub span: Span,
    /// What is computed.
    pub what: String,
    /// The formula with the sizes put in.
    pub formula: String,
    /// Each size it is computed from: what it is, its value, and the axes where it shows.
    pub inputs: Vec<(String, u64, Vec<AxisRef>)>,
}

/// A spec slot with its tensor.
type Slot<'s> = (&'s ShapeSpec, TensorId);

/// A known integer coefficient (stride or dilation); a named one is not computed with.
fn coeff(c: &Coeff) -> Option<u64> {
    match c {
        Coeff::Int(n) => Some(*n),
        Coeff::Name(_) => None,
    }
}

impl Walker<'_, '_> {
    /// How a step computes `size` at axis `a`, when one of `a`'s steps does.
    pub(super) fn computation(&mut self, a: AxisRef, size: u64) -> Option<Found> {
        let steps: Vec<StepId> = self.step_index().steps_of(a.tensor).collect();
        for s in steps {
            if Some(s) == self.skip {
                continue;
            }
            let Some(step) = self.g.steps().get(s.index()) else { continue };
            let Some(spec) = step.spec.as_ref().map(|sp| sp.parsed.clone()) else { continue };
            let args = step.args.to_vec();
            let out = step.out;
            if let Some(f) = self.computed_in(&spec, &args, out, a, size) {
                return Some(Found { step: Some(s), ..f });
            }
        }
        None
    }

    /// How the spec `spec` over `args` and `out` computes `size` at `a`.
    fn computed_in(
        &mut self,
        spec: &EinsumSpec,
        args: &[TensorId],
        out: TensorId,
        a: AxisRef,
        size: u64,
    ) -> Option<Found> {
        let slots: Vec<Slot> =
            spec.rhs.iter().zip(args.iter().copied()).chain([(&spec.lhs, out)]).collect();
        let mut written = None;
        for &(slot, t) in slots.iter().filter(|(_, t)| *t == a.tensor) {
            let Some(row) = slot.row(a.kind) else { continue };
            let v = view(self.g, &mut self.views, t, a.kind).clone();
            written = placed(&v, row).find(|(_, pos)| *pos == Some(a.axis)).map(|(x, _)| x.clone());
            if written.is_some() {
                break;
            }
        }
        let axis = written?;
        let found = match &axis.kind {
            AxisKind::Label(l) => self.found_by_label(&slots, l.as_str(), size),
            AxisKind::Affine(af) => {
                self.extent(&slots, af, size).map(|f| Found { span: axis.span, ..f })
            }
            AxisKind::Concat(parts) => {
                self.sum(&slots, parts, size).map(|f| Found { span: axis.span, ..f })
            }
            AxisKind::Flat(parts) => {
                self.product(&slots, parts, size).map(|f| Found { span: axis.span, ..f })
            }
            AxisKind::Int(_) | AxisKind::Placeholder => None,
        }?;
        Some(found)
    }

    /// The size of a label in the slots, and the axes that show it.
    fn label_size(&mut self, slots: &[Slot], label: &str) -> Option<(u64, Vec<AxisRef>)> {
        let axes = label_axes(self.g, &mut self.views, slots, label);
        let value = axes.iter().find_map(|&x| self.size(x))?;
        let shown: Vec<AxisRef> =
            axes.into_iter().filter(|&x| self.size(x) == Some(value)).collect();
        Some((value, shown))
    }

    /// The strided, convolution or concatenation axes of the slots, each placed on its tensor.
    fn computed_axes(&mut self, slots: &[Slot]) -> Vec<(AxisKind, Span, Option<AxisRef>)> {
        let mut out = Vec::new();
        for &(slot, t) in slots {
            for (kind, row) in slot.rows() {
                let v = view(self.g, &mut self.views, t, kind).clone();
                for (x, pos) in placed(&v, row) {
                    if matches!(
                        x.kind,
                        AxisKind::Affine(_) | AxisKind::Concat(_) | AxisKind::Flat(_)
                    ) {
                        let at = pos.map(|p| AxisRef { tensor: t, kind, axis: p });
                        out.push((x.kind.clone(), x.span, at));
                    }
                }
            }
        }
        out
    }

    /// A label's size computed from a strided, convolution or concatenation axis that holds it.
    fn found_by_label(&mut self, slots: &[Slot], label: &str, size: u64) -> Option<Found> {
        for (kind, span, at) in self.computed_axes(slots) {
            let Some(at) = at else { continue };
            let Some(n) = self.size(at) else { continue };
            let found = match &kind {
                AxisKind::Affine(af) if af.over.as_str() == label => self.over(slots, af, n, at),
                AxisKind::Affine(af)
                    if af.conv.as_ref().is_some_and(|c| c.kernel.as_str() == label) =>
                {
                    self.kernel(slots, af, n, at)
                }
                AxisKind::Concat(parts)
                    if parts
                        .iter()
                        .any(|p| matches!(p, ConcatPart::Label(x) if x.as_str() == label)) =>
                {
                    self.component(slots, parts, label, n, at)
                }
                AxisKind::Flat(parts) if parts.iter().any(|(x, _)| x.as_str() == label) => {
                    self.factor(slots, parts, label, n, at)
                }
                _ => None,
            };
            if let Some(f) = found.filter(|f| f.1 == size) {
                return Some(Found { span, ..f.0 });
            }
        }
        None
    }

    /// The output extent `over` of a strided or convolution axis whose input extent is `n`.
    fn over(&mut self, slots: &[Slot], af: &Affine, n: u64, at: AxisRef) -> Option<(Found, u64)> {
        let s = coeff(&af.stride)?;
        let input = ("the input extent".to_string(), n, vec![at]);
        match &af.conv {
            Some(c) if c.padding == Padding::Valid => {
                let d = coeff(&c.dilation)?;
                let (k, kat) = self.label_size(slots, c.kernel.as_str())?;
                let window = d.checked_mul(k.checked_sub(1)?)?.checked_add(1)?;
                let o = n.checked_sub(window)? / s + 1;
                let windowed = if d == 1 { k.to_string() } else { format!("({d}*({k} - 1) + 1)") };
                let formula = format!("({n} - {windowed})/{s} + 1");
                let what = "the output extent of a valid convolution".to_string();
                let kernel = (format!("the kernel `{}`", c.kernel), k, kat);
                Some((found(what, formula, vec![input, kernel]), o))
            }
            Some(c) if matches!(c.padding, Padding::Floor(_)) => {
                let Padding::Floor(p) = c.padding else { return None };
                let d = coeff(&c.dilation)?;
                let (k, kat) = self.label_size(slots, c.kernel.as_str())?;
                let reach = d.checked_mul(k.checked_sub(1)?)?.checked_add(1)?;
                let o = n.checked_add(p.checked_mul(2)?)?.checked_sub(reach)? / s + 1;
                let formula = format!("floor(({n} + 2*{p} - {d}*({k} - 1) - 1)/{s}) + 1");
                let what = "the output extent of a convolution (PyTorch's floor)".to_string();
                let kernel = (format!("the kernel `{}`", c.kernel), k, kat);
                Some((found(what, formula, vec![input, kernel]), o))
            }
            _ if s > 1 => {
                let what = if af.conv.is_some() {
                    "the output extent of a padded convolution"
                } else {
                    "the output extent of a strided axis"
                };
                Some((found(what.into(), format!("{n}/{s}"), vec![input]), n / s))
            }
            _ => None,
        }
    }

    /// The kernel size of a valid convolution axis whose input extent is `n`.
    fn kernel(&mut self, slots: &[Slot], af: &Affine, n: u64, at: AxisRef) -> Option<(Found, u64)> {
        let c = af.conv.as_ref().filter(|c| c.padding == Padding::Valid)?;
        let (s, d) = (coeff(&af.stride)?, coeff(&c.dilation)?);
        let (o, oat) = self.label_size(slots, af.over.as_str())?;
        let k = (n.checked_sub(s.checked_mul(o.checked_sub(1)?)?)?.checked_sub(1)?) / d + 1;
        let formula = format!("({n} - {s}*({o} - 1) - 1)/{d} + 1");
        let inputs = vec![
            ("the input extent".to_string(), n, vec![at]),
            (format!("the output extent `{}`", af.over), o, oat),
        ];
        Some((found("the kernel size of a valid convolution".into(), formula, inputs), k))
    }

    /// The input extent a strided or convolution axis covers.
    fn extent(&mut self, slots: &[Slot], af: &Affine, size: u64) -> Option<Found> {
        let s = coeff(&af.stride)?;
        let (o, oat) = self.label_size(slots, af.over.as_str())?;
        let over = (format!("the output extent `{}`", af.over), o, oat);
        let f = match &af.conv {
            Some(c) if c.padding == Padding::Valid => {
                let d = coeff(&c.dilation)?;
                let (k, kat) = self.label_size(slots, c.kernel.as_str())?;
                let n = s
                    .checked_mul(o.checked_sub(1)?)?
                    .checked_add(d.checked_mul(k.checked_sub(1)?)?)?
                    .checked_add(1)?;
                let formula = format!("{s}*({o} - 1) + {d}*({k} - 1) + 1");
                let kernel = (format!("the kernel `{}`", c.kernel), k, kat);
                (
                    found(
                        "the input extent of a valid convolution".into(),
                        formula,
                        vec![over, kernel],
                    ),
                    n,
                )
            }
            _ => (
                found("the input extent of a strided axis".into(), format!("{s}*{o}"), vec![over]),
                s.checked_mul(o)?,
            ),
        };
        (f.1 == size).then_some(f.0)
    }

    /// A concatenation's size: the sum of its components.
    fn sum(&mut self, slots: &[Slot], parts: &[ConcatPart], size: u64) -> Option<Found> {
        let mut terms = Vec::new();
        let mut inputs = Vec::new();
        let mut total = 0u64;
        for p in parts {
            let n = match p {
                ConcatPart::Size(n) => *n,
                ConcatPart::Label(l) => {
                    let (n, at) = self.label_size(slots, l.as_str())?;
                    inputs.push((format!("the component `{l}`"), n, at));
                    n
                }
            };
            terms.push(n.to_string());
            total = total.checked_add(n)?;
        }
        (total == size).then(|| found("a concatenation".into(), terms.join(" + "), inputs))
    }

    /// A concatenation's component `label`: the total less the other components.
    fn component(
        &mut self,
        slots: &[Slot],
        parts: &[ConcatPart],
        label: &str,
        n: u64,
        at: AxisRef,
    ) -> Option<(Found, u64)> {
        let mut inputs = vec![("the concatenation".to_string(), n, vec![at])];
        let mut rest = n;
        let mut terms = vec![n.to_string()];
        for p in parts {
            let m = match p {
                ConcatPart::Label(l) if l.as_str() == label => continue,
                ConcatPart::Size(m) => *m,
                ConcatPart::Label(l) => {
                    let (m, at) = self.label_size(slots, l.as_str())?;
                    inputs.push((format!("the component `{l}`"), m, at));
                    m
                }
            };
            terms.push(m.to_string());
            rest = rest.checked_sub(m)?;
        }
        let what = format!("the component `{label}` of a concatenation");
        Some((found(what, terms.join(" - "), inputs), rest))
    }

    /// A flattened axis `(a*b*…)`: the product of its parts.
    fn product(&mut self, slots: &[Slot], parts: &[(Name, Span)], size: u64) -> Option<Found> {
        let (mut terms, mut inputs, mut total) = (Vec::new(), Vec::new(), 1u64);
        for (l, _) in parts {
            let (n, at) = self.label_size(slots, l.as_str())?;
            inputs.push((format!("the part `{l}`"), n, at));
            terms.push(n.to_string());
            total = total.checked_mul(n)?;
        }
        (total == size).then(|| found("a flattened axis".into(), terms.join(" * "), inputs))
    }

    /// A flattened axis's part `label`: the flattened size divided by the other parts.
    fn factor(
        &mut self,
        slots: &[Slot],
        parts: &[(Name, Span)],
        label: &str,
        n: u64,
        at: AxisRef,
    ) -> Option<(Found, u64)> {
        let mut inputs = vec![("the flattened axis".to_string(), n, vec![at])];
        let (mut rest, mut terms) = (n, vec![n.to_string()]);
        for (l, _) in parts.iter().filter(|(l, _)| l.as_str() != label) {
            let (m, at) = self.label_size(slots, l.as_str())?;
            inputs.push((format!("the part `{l}`"), m, at));
            terms.push(m.to_string());
            rest = rest.checked_div(m).filter(|_| m > 0)?;
        }
        let what = format!("the part `{label}` of a flattened axis");
        Some((found(what, terms.join(" / "), inputs), rest))
    }
}

fn found(what: String, formula: String, inputs: Vec<(String, u64, Vec<AxisRef>)>) -> Found {
    Found { step: None, span: Span::default(), what, formula, inputs }
}
