//! Near-valid programs: a valid program with one of its steps (the last one for the simplest
//! choice) copied to the end with one mutation, so that every step drawn stays valid and one
//! probes the boundary of the rules: an operand replaced by a leaf
//! of an edited shape (a size changed, an axis inserted, removed or swapped), a parameter
//! edited (an axis out of range, a repeated or missing permutation entry, a letter added to or
//! removed from einsum subscripts, an output label unknown or repeated, a `...` dropped, a
//! reshape that does not fit), an operand added or dropped, or an operand's element type
//! changed. einrow's verdict on the result may be an error or still a result.

use super::builder::Builder;
use super::config::NpConfig;
use super::einsum_edit::edit_subscripts;
use super::op::{Axes, NpKind, NpOp};
use super::program::{NpProgram, NpValue, Outcome};
use crate::fuzzing::gen::Draw;

/// A mutated program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mutated {
    /// The program.
    pub program: NpProgram,
    /// The index of the mutated step in it.
    pub step: usize,
    /// What was changed, in words.
    pub what: String,
}

/// `p` with one of its steps copied to the end with one mutation (the program is returned
/// unchanged, with `what` empty, when it has no step).
///
/// ```
/// use einrow::fuzzing::gen::Choices;
/// use einrow::fuzzing::numpy_ops::{draw_program, near_valid, NpConfig};
///
/// let cfg = NpConfig::default();
/// let words: Vec<u32> = (0..300u32).map(|i| i.wrapping_mul(2654435761)).collect();
/// let mut d = Choices::new(&words);
/// let p = draw_program(&cfg, &mut d);
/// let m = near_valid(&p, &cfg, &mut d);
/// assert_ne!(m.program, p);
/// ```
pub fn near_valid(p: &NpProgram, cfg: &NpConfig, d: &mut dyn Draw) -> Mutated {
    let steps: Vec<usize> = p.steps().collect();
    let unchanged = |step| Mutated { program: p.clone(), step, what: String::new() };
    if steps.is_empty() {
        return unchanged(0);
    }
    let target = steps[steps.len() - 1 - d.below(steps.len())];
    let mut base = p.clone();
    base.values.push(p.values[target].clone());
    let Some(site) = Site::new(&base, base.values.len() - 1) else { return unchanged(target) };
    let b = Builder::new(cfg);
    let menu = site.menu();
    let first = d.below(menu.len());
    // An edit that leaves the step valid is followed by one of the next kind in the menu (a
    // few times): near-valid cases are mostly refused, as the boundary of the rules is what
    // they probe.
    let mut kept = None;
    for attempt in 0..ATTEMPTS {
        let kind = menu[(first + attempt) % menu.len()];
        let m = site.apply(&b, d, kind);
        if m.program == base {
            continue;
        }
        if matches!(m.program.evaluate().get(m.step), Some(Outcome::Rejected(_))) {
            return m;
        }
        kept.get_or_insert(m);
    }
    kept.unwrap_or_else(|| site.apply(&b, d, Kind::Size))
}

/// How many edits are drawn, at most, to find one that makes the step refused.
const ATTEMPTS: usize = 4;

/// The step a mutation edits, with the verdicts of the program before it.
struct Site<'p> {
    p: &'p NpProgram,
    target: usize,
    op: &'p NpOp,
    args: &'p [usize],
    outcomes: Vec<Outcome>,
}

impl<'p> Site<'p> {
    fn new(p: &'p NpProgram, target: usize) -> Option<Site<'p>> {
        let NpValue::Step { op, args } = p.values.get(target)? else { return None };
        Some(Site { p, target, op, args, outcomes: p.evaluate() })
    }

    /// The mutations that apply, each repeated by its weight: an operand's rank (the most
    /// common class of shape bugs), its sizes, the parameters; the operand count of variadic
    /// operations; element types (which rarely change a shape) least.
    fn menu(&self) -> Vec<Kind> {
        if self.args.is_empty() {
            return vec![Kind::Param];
        }
        let kind = self.op.kind();
        let param = match kind {
            NpKind::Add => 0,
            NpKind::Matmul => 1,
            _ => 3,
        };
        let variadic = matches!(kind, NpKind::Einsum | NpKind::Concatenate | NpKind::Stack);
        let mut menu = vec![Kind::Rank, Kind::Size, Kind::Rank, Kind::Size, Kind::Rank];
        menu.extend(std::iter::repeat_n(Kind::Param, param));
        if variadic {
            menu.push(Kind::Arity);
        }
        menu.push(Kind::Dtype);
        menu
    }

    fn shape_of(&self, i: usize) -> Vec<usize> {
        self.outcomes.get(i).and_then(Outcome::typed).map_or(Vec::new(), |t| t.shape.clone())
    }

    fn dtype_of(&self, i: usize) -> &'static str {
        self.outcomes.get(i).and_then(Outcome::typed).map_or("float64", |t| t.dtype)
    }

    fn apply(&self, b: &Builder, d: &mut dyn Draw, kind: Kind) -> Mutated {
        let (op, args, target) = (self.op, self.args, self.target);
        let mut program = self.p.clone();
        let leaf_first = leaf_first(self.p, args);
        let k = leaf_first[d.below(leaf_first.len())];
        let (step, what) = match kind {
            Kind::Rank | Kind::Size if !args.is_empty() => {
                let old = self.shape_of(args[k]);
                let new =
                    if kind == Kind::Rank { edit_rank(b, d, &old) } else { edit_size(b, d, &old) };
                let what = format!("operand {k}: shape {old:?} -> {new:?}");
                (replace_operand(&mut program, target, k, new, self.dtype_of(args[k])), what)
            }
            Kind::Param | Kind::Rank | Kind::Size => {
                let first = args.first().map_or(Vec::new(), |&a| self.shape_of(a));
                let (new, what) = edit_param(d, op, &first);
                set_step(&mut program, target, new, args.to_vec());
                (target, what)
            }
            Kind::Arity => {
                let mut new_args = args.to_vec();
                let what = if new_args.len() > 1 && d.below(2) == 0 {
                    new_args.remove(d.below(new_args.len()));
                    "an operand dropped".to_string()
                } else {
                    new_args.push(args[k]);
                    format!("operand {k} passed again at the end")
                };
                set_step(&mut program, target, op.clone(), new_args);
                (target, what)
            }
            Kind::Dtype => {
                let old = self.dtype_of(args[k]);
                let others: Vec<&'static str> =
                    b.cfg.dtypes.iter().copied().filter(|t| *t != old).collect();
                let new = others.get(d.below(others.len())).copied().unwrap_or(old);
                let what = format!("operand {k}: dtype {old} -> {new}");
                (replace_operand(&mut program, target, k, self.shape_of(args[k]), new), what)
            }
        };
        Mutated { program, step, what }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Rank,
    Size,
    Param,
    Arity,
    Dtype,
}

/// Operand positions, leaves first: editing a leaf keeps the data flowing from earlier steps.
fn leaf_first(p: &NpProgram, args: &[usize]) -> Vec<usize> {
    let mut pos: Vec<usize> = (0..args.len()).collect();
    pos.sort_by_key(|&k| matches!(p.values.get(args[k]), Some(NpValue::Step { .. })));
    if pos.is_empty() {
        pos.push(0);
    }
    pos
}

fn set_step(p: &mut NpProgram, at: usize, op: NpOp, args: Vec<usize>) {
    p.values[at] = NpValue::Step { op, args };
}

/// Replaces operand `k` of step `at` by a new leaf (placed just before the step); returns
/// the step's new index.
fn replace_operand(
    p: &mut NpProgram,
    at: usize,
    k: usize,
    shape: Vec<usize>,
    dtype: &'static str,
) -> usize {
    for v in &mut p.values[at..] {
        if let NpValue::Step { args, .. } = v {
            for a in args.iter_mut().filter(|a| **a >= at) {
                *a += 1;
            }
        }
    }
    p.values.insert(at, NpValue::Leaf { shape, dtype });
    if let NpValue::Step { args, .. } = &mut p.values[at + 1] {
        if let Some(a) = args.get_mut(k) {
            *a = at;
        }
    }
    at + 1
}

/// One edit of a shape: its rank ([`edit_rank`]) or its sizes ([`edit_size`]).
pub fn edit_shape(b: &Builder, d: &mut dyn Draw, s: &[usize]) -> Vec<usize> {
    if d.below(2) == 0 {
        edit_size(b, d, s)
    } else {
        edit_rank(b, d, s)
    }
}

/// An axis inserted (of a size that does not broadcast) or removed.
pub fn edit_rank(b: &Builder, d: &mut dyn Draw, s: &[usize]) -> Vec<usize> {
    let mut t = s.to_vec();
    if !t.is_empty() && d.below(2) == 1 {
        t.remove(d.below(s.len()));
    } else {
        let at = d.below(t.len() + 1);
        let size = b.solid_size(d);
        t.insert(at, size);
    }
    t
}

/// A size changed (to one that does not broadcast), or two axes of different sizes swapped;
/// a 0-d shape gets an axis.
pub fn edit_size(b: &Builder, d: &mut dyn Draw, s: &[usize]) -> Vec<usize> {
    let mut t = s.to_vec();
    let n = t.len();
    if n == 0 {
        return edit_rank(b, d, s);
    }
    if d.below(3) == 2 && t.iter().any(|&x| x != t[0]) {
        let i = d.below(n);
        let j = (0..n).find(|&j| t[j] != t[i]).unwrap_or(0);
        t.swap(i, j);
    } else {
        let i = d.below(n);
        let new = b.solid_size(d);
        t[i] = if new == t[i] { t[i] + 1 } else { new };
    }
    t
}

/// One edit of a step's parameters (`first`: the first operand's shape).
fn edit_param(d: &mut dyn Draw, op: &NpOp, first: &[usize]) -> (NpOp, String) {
    let n = first.len() as i64;
    let new = match op {
        NpOp::Add | NpOp::Matmul => return (op.clone(), "operands swapped".into()),
        NpOp::Einsum { subscripts } => NpOp::Einsum { subscripts: edit_subscripts(d, subscripts) },
        NpOp::Concatenate { axis } => NpOp::Concatenate {
            axis: match (d.below(3), axis) {
                (0, _) => Some(n),
                (1, _) => Some(-n - 1),
                (_, Some(_)) => None,
                (_, None) => Some(0),
            },
        },
        NpOp::Stack { .. } => NpOp::Stack { axis: if d.below(2) == 0 { n + 1 } else { -n - 2 } },
        NpOp::Transpose { axes } => {
            NpOp::Transpose { axes: Some(edit_perm(d, axes.as_deref(), n)) }
        }
        NpOp::Sum { axis, keepdims } => match d.below(3) {
            0 => NpOp::Sum { axis: Axes::One(n), keepdims: *keepdims },
            1 => {
                let a = match axis {
                    Axes::One(a) => *a,
                    Axes::Many(v) if !v.is_empty() => v[0],
                    _ => 0,
                };
                NpOp::Sum { axis: Axes::Many(vec![a, a]), keepdims: *keepdims }
            }
            _ => NpOp::Sum { axis: axis.clone(), keepdims: !keepdims },
        },
        NpOp::ExpandDims { .. } => {
            NpOp::ExpandDims { axis: if d.below(2) == 0 { n + 1 } else { -n - 2 } }
        }
        NpOp::Squeeze { .. } => {
            let solid = first.iter().position(|&x| x != 1);
            NpOp::Squeeze {
                axis: Some(match (d.below(2), solid) {
                    (0, Some(i)) => i as i64,
                    _ => -n - 1,
                }),
            }
        }
        NpOp::Reshape { shape } => NpOp::Reshape { shape: edit_reshape(d, shape) },
    };
    let what = format!("parameters {} -> {}", op.to_json(), new.to_json());
    (new, what)
}

/// One edit of a permutation: an entry repeated, the last dropped, an extra one, one out of
/// range, one written with the other sign (still valid).
fn edit_perm(d: &mut dyn Draw, axes: Option<&[i64]>, n: i64) -> Vec<i64> {
    let mut p: Vec<i64> = axes.map_or_else(|| (0..n).rev().collect(), <[i64]>::to_vec);
    let i = d.below(p.len().max(1)).min(p.len().saturating_sub(1));
    match d.below(5) {
        0 if p.len() >= 2 => {
            let j = (i + 1) % p.len();
            p[j] = p[i];
        }
        1 if !p.is_empty() => {
            p.pop();
        }
        3 if !p.is_empty() => p[i] = if d.below(2) == 0 { n } else { -n - 1 },
        4 if !p.is_empty() => p[i] = if p[i] < 0 { p[i] + n } else { p[i] - n },
        _ => p.push(n),
    }
    p
}

fn edit_reshape(d: &mut dyn Draw, shape: &[i64]) -> Vec<i64> {
    let mut s = shape.to_vec();
    let i = d.below(s.len().max(1)).min(s.len().saturating_sub(1));
    match d.below(4) {
        0 if !s.is_empty() => s[i] = if s[i] < 0 { 2 } else { s[i] + 1 },
        1 if !s.is_empty() => match s.iter().position(|&x| x == -1) {
            Some(_) => s.push(-1),
            None => s[i] = -1,
        },
        // A `-1` beside a size-0 entry: nothing can be inferred.
        2 if !s.is_empty() => {
            let j = s.iter().position(|&x| x == -1).unwrap_or(i);
            s[j] = -1;
            match (0..s.len()).find(|&k| k != j) {
                Some(k) => s[k] = 0,
                None => s.push(0),
            }
        }
        _ => s.push(2),
    }
    s
}

/// Whether a program's every value has a result (no step refused).
pub fn is_valid(p: &NpProgram) -> bool {
    p.evaluate().iter().all(|o| matches!(o, Outcome::Value(_)))
}
