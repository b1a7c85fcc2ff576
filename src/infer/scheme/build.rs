//! Solving a scheme: the probes (see the module documentation of `scheme/mod.rs`) and the forms
//! read off them.

use std::sync::Arc;

use smallvec::SmallVec;

use super::core::{SchemeData, Var};
use super::form::{Item, TensorForm};
use super::markers::{largest_literal, MarkerSizes};
use super::Scheme;
use crate::code::ErrorCode;
use crate::ids::{StepId, TensorId};
use crate::infer::error::InferError;
use crate::infer::graph::{Graph, Handle, HandleKind};
use crate::infer::warnings::Warning;
use crate::shape::{Basis, Solved};
use crate::spec::ast::{AxisKind, RowKind};

/// A probe: the graph solved with each variable bound to marker axes.
struct Probe {
    g: Graph,
}

impl Probe {
    fn axes(&self, t: TensorId) -> Option<crate::infer::graph::SolvedAxes> {
        self.g.solved_axes(t)
    }
}

/// The marker bases of one variable: of its axis in the one-axis probes, and of its two axes
/// in the two-axis probe.
#[derive(Clone, Copy)]
struct Markers {
    one: Basis,
    two: [Basis; 2],
    /// The scheme's marker sizes (the same for every variable).
    sizes: MarkerSizes,
}

impl Graph {
    /// Solves the graph as a [`Scheme`] with the row variables `vars` kept symbolic (typically
    /// the batch row: a [`Graph::row_var`] the inputs share, or [`Graph::row_of`] an input).
    /// The graph itself is left as it is. Errors (coded): a handle of another graph or not a
    /// row (`label`), a variable solved already (`unsupported`: build the scheme before
    /// solving), a graph that does not solve with the variables open (its error, with the
    /// variables' marker axes written `..name..`), a solution that depends on a
    /// variable's size in a way a scheme cannot express (`unsupported`).
    ///
    /// ```
    /// use einrow::infer::Graph;
    /// use einrow::spec::ast::RowKind;
    /// let mut g = Graph::new();
    /// let x = g.declare("x", Some("...,6|8"), false)?;
    /// let w = g.declare("w", Some("...->4"), true)?;
    /// let y = g.compose(w, x)?;
    /// let batch = g.row_of(x, RowKind::Batch)?;
    /// let scheme = g.solve_scheme(&[batch])?;
    /// assert_eq!(scheme.shape_string(y)?, "..x.batch..,6|4");
    /// for batch in [&[1][..], &[8], &[64]] {
    ///     let inst = scheme.instantiate(&[batch])?;
    ///     assert_eq!(inst.sizes(y)?.batch, [batch, &[6]].concat());
    /// }
    /// # Ok::<(), einrow::infer::InferError>(())
    /// ```
    pub fn solve_scheme(&self, vars: &[Handle]) -> Result<Scheme, InferError> {
        let names = self.check_scheme_vars(vars)?;
        let largest = largest_literal(self);
        let sizes = MarkerSizes::above(largest).ok_or_else(|| {
            unsupported(format!(
                "the program writes sizes up to {largest}: a scheme's symbolic variables need \
                 room above them (solve the graph with the sizes given instead)"
            ))
        })?;
        let mut base = self.fork();
        let markers: Vec<Markers> = names
            .iter()
            .map(|n| Markers {
                one: base.intern_basis(&format!("..{n}..")),
                two: [0, 1].map(|i| base.intern_basis(&format!("..{n}..[{i}]"))),
                sizes,
            })
            .collect();
        let one = |size: u64| -> Vec<Vec<Solved>> {
            markers.iter().map(|m| vec![Solved { size, basis: m.one }]).collect()
        };
        let names_ref = &names;
        let fail = |why: &'static str| move |e| context(e, names_ref, why, &sizes);
        let a = probe(&base, vars, &one(sizes.p[0])).map_err(fail(""))?;
        let depends = "the solution depends on the variables' sizes";
        let c = probe(&base, vars, &one(sizes.p[1])).map_err(fail(depends))?;
        let d = probe(&base, vars, &one(sizes.p[2])).map_err(fail(depends))?;
        let probes = [&a, &c, &d];
        let mut data = SchemeData {
            graph: self.id(),
            vars: vars
                .iter()
                .zip(&names)
                .map(|(h, n)| Var { handle: *h, name: n.clone(), rank_fixed: false, min: 0 })
                .collect(),
            tensors: Vec::with_capacity(self.tensor_count()),
            items: Vec::new(),
            labels: Vec::with_capacity(self.steps().len()),
            label_items: Vec::new(),
            steps: a.g.steps().to_vec(),
            names: (0..self.tensor_count()).map(|i| a.g.name_or_id(self.tensor_at(i))).collect(),
            leaves: (0..self.tensor_count())
                .map(|i| self.tensor_entry(self.tensor_at(i)).kind())
                .collect(),
            uses: vec![0; vars.len()],
            sizes: 0,
            warnings: Vec::new(),
        };
        for i in 0..self.tensor_count() {
            read_tensor(&mut data, &probes, &markers, self.tensor_at(i))?;
        }
        for i in 0..data.steps.len() {
            read_labels(&mut data, &probes, &markers, self.step_at(i))?;
        }
        for k in 0..vars.len() {
            if !data.vars[k].rank_fixed {
                data.vars[k].rank_fixed = !keeps_rank(&mut base, &data, &markers, k);
            }
        }
        fixed_index_bounds(&mut data);
        let warnings = a.g.warnings().into_iter().map(|w| match w {
            Warning::ParameterBatch { tensor, name, row, .. } => {
                let axes = data.row_text(tensor, row);
                Warning::ParameterBatch { tensor, name, row, axes }
            }
            other => other,
        });
        data.warnings = warnings.collect();
        Ok(Scheme { data: Arc::new(data) })
    }

    /// The names of the scheme's variables, checked to be open row handles of this graph.
    fn check_scheme_vars(
        &self,
        vars: &[Handle],
    ) -> Result<Vec<crate::spec::ast::Name>, InferError> {
        let mut names = Vec::with_capacity(vars.len());
        for (i, h) in vars.iter().enumerate() {
            if self.handle_kind(*h)? != HandleKind::Row {
                let msg = format!("`{}` is not a row variable", self.handle_name(*h)?);
                return Err(InferError::Usage { code: ErrorCode::Label, message: msg });
            }
            let name = self.handle_name(*h)?;
            if vars[..i].contains(h) {
                let msg = format!("`{name}` is given twice");
                return Err(InferError::Usage { code: ErrorCode::Label, message: msg });
            }
            if let Ok(sizes) = self.handle_dims(*h) {
                let msg = format!(
                    "`{name}` is solved already (to {sizes:?}): solve the scheme before solving \
                     the graph"
                );
                return Err(InferError::Usage { code: ErrorCode::Unsupported, message: msg });
            }
            names.push(name);
        }
        Ok(names)
    }
}

/// The graph solved with variable `k` bound to `axes[k]`.
fn probe(base: &Graph, vars: &[Handle], axes: &[Vec<Solved>]) -> Result<Probe, InferError> {
    let mut g = base.fork();
    for (h, a) in vars.iter().zip(axes) {
        g.bind_probe(*h, a)?;
    }
    g.solve()?;
    Ok(Probe { g })
}

/// A probe's error, said to come from solving with the variables symbolic, the marker sizes
/// taken out of it (a lone marker size is written as the first variable's name).
fn context(
    e: InferError,
    names: &[crate::spec::ast::Name],
    why: &str,
    sizes: &MarkerSizes,
) -> InferError {
    let vars: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let head = match why {
        "" => format!("with {} symbolic", vars.join(", ")),
        why => format!("with {} symbolic, {why}", vars.join(", ")),
    };
    let first = names.first().map_or("", |n| n.as_str());
    let hide = |m: &str| sizes.hide(m, first);
    match e {
        InferError::Shape(mut s) => {
            s.message = format!("{head}: {}", hide(&s.message));
            for link in &mut s.chain {
                *link = hide(link);
            }
            InferError::Shape(s)
        }
        InferError::Usage { code, message } => {
            InferError::Usage { code, message: format!("{head}: {}", hide(&message)) }
        }
        other => other,
    }
}

fn unsupported(message: String) -> InferError {
    InferError::Usage { code: ErrorCode::Unsupported, message }
}

/// The item of one axis read in the three one-axis probes.
fn classify(axes: [Solved; 3], markers: &[Markers]) -> Option<Item> {
    let [a, c, d] = axes;
    let Some(k) = markers.iter().position(|m| m.one == a.basis) else {
        // Not from a variable: the same in every probe.
        return (a == c && a == d).then_some(Item::Size(a.size));
    };
    if c.basis != a.basis || d.basis != a.basis {
        return None;
    }
    let p = markers[k].sizes.p;
    let k = u32::try_from(k).ok()?;
    if [a.size, c.size, d.size] == p {
        return Some(Item::Var(k));
    }
    // `scale·P + offset` through the three probes.
    let (da, dp) = (i128::from(a.size) - i128::from(c.size), i128::from(p[0]) - i128::from(p[1]));
    if da <= 0 || da % dp != 0 {
        return None;
    }
    let scale = da / dp;
    let offset = i128::from(a.size) - scale * i128::from(p[0]);
    if scale * i128::from(p[2]) + offset != i128::from(d.size) {
        return None;
    }
    Some(Item::Affine {
        var: k,
        scale: u64::try_from(scale).ok()?,
        offset: i64::try_from(offset).ok()?,
    })
}

/// Reads a tensor's form off the probes.
fn read_tensor(
    data: &mut SchemeData,
    probes: &[&Probe; 3],
    markers: &[Markers],
    t: TensorId,
) -> Result<(), InferError> {
    let name = &data.names[t.index()];
    let [a, c, d] = probes.map(|p| p.axes(t));
    let unsolved =
        || InferError::shape(ErrorCode::Unresolved, format!("the shape of `{name}` is not solved"));
    let (a, rows) = a.ok_or_else(unsolved)?;
    let (c, d) = match (c, d) {
        (Some((c, rc)), Some((d, rd))) if rc == rows && rd == rows => (c, d),
        _ => return Err(depends(name)),
    };
    let mut form = TensorForm::default();
    let mut at = 0;
    for (kind, (len, leading)) in RowKind::ALL.into_iter().zip(rows) {
        let start = u32::try_from(data.items.len()).unwrap_or(u32::MAX);
        for i in at..at + len {
            let item = classify([a[i], c[i], d[i]], markers).ok_or_else(|| depends(name))?;
            match item.var() {
                Some(k) => {
                    data.uses[k as usize] += 1;
                    if matches!(item, Item::Affine { .. }) {
                        data.vars[k as usize].rank_fixed = true;
                    }
                }
                None => data.sizes += 1,
            }
            data.items.push(item);
        }
        at += len;
        let (len, leading) = (u32::try_from(len).unwrap_or(0), u32::try_from(leading).unwrap_or(0));
        form.rows[kind.index()] = (start, len, leading);
    }
    data.tensors.push(form);
    Ok(())
}

fn depends(name: &str) -> InferError {
    unsupported(format!(
        "the shape of `{name}` depends on the symbolic variables' sizes in a way a scheme \
         cannot express"
    ))
}

/// Reads a step's label sizes off the probes; a label from a variable fixes its rank.
fn read_labels(
    data: &mut SchemeData,
    probes: &[&Probe; 3],
    markers: &[Markers],
    step: StepId,
) -> Result<(), InferError> {
    let [a, c, d] = probes.map(|p| p.g.label_axes(step));
    let start = u32::try_from(data.label_items.len()).unwrap_or(u32::MAX);
    for i in 0..a.len() {
        let axes = [a[i], c.get(i).copied().flatten(), d.get(i).copied().flatten()];
        let item = match axes {
            [Some(x), Some(y), Some(z)] => classify([x, y, z], markers),
            _ => None,
        };
        let item = item.ok_or_else(|| {
            unsupported(format!(
                "a label of {step} depends on the symbolic variables' sizes in a way a scheme \
                 cannot express"
            ))
        })?;
        if let Some(k) = item.var() {
            data.vars[k as usize].rank_fixed = true;
        }
        data.label_items.push(item);
    }
    data.labels.push((start, u32::try_from(a.len()).unwrap_or(0)));
    Ok(())
}

/// Whether variable `k` may have any rank: the graph solved with it bound to two marker axes
/// (the others to one) has every shape of the one-axis solution with `k`'s axis replaced by
/// the two.
fn keeps_rank(base: &mut Graph, data: &SchemeData, markers: &[Markers], k: usize) -> bool {
    let vars: Vec<Handle> = data.vars.iter().map(|v| v.handle).collect();
    let two = |m: &Markers| [0, 1].map(|x| Solved { size: m.sizes.q[x], basis: m.two[x] });
    let p0 = |m: &Markers| m.sizes.p[0];
    let axes: Vec<Vec<Solved>> = markers
        .iter()
        .enumerate()
        .map(|(j, m)| match j == k {
            true => two(m).to_vec(),
            false => vec![Solved { size: p0(m), basis: m.one }],
        })
        .collect();
    let Ok(b) = probe(base, &vars, &axes) else { return false };
    let is_marker = |basis: Basis| markers.iter().any(|m| m.one == basis || m.two.contains(&basis));
    for (i, form) in data.tensors.iter().enumerate() {
        let Some((got, rows)) = b.axes(b.g.tensor_at(i)) else { return false };
        // What each axis of the two-axis solution must be: a plain size, or a marker axis.
        let mut want: SmallVec<[Result<u64, Solved>; 8]> = SmallVec::new();
        for (kind, &(len, _)) in RowKind::ALL.into_iter().zip(&rows) {
            let before = want.len();
            for &item in form.row_items(kind, &data.items) {
                match item {
                    Item::Size(n) => want.push(Ok(n)),
                    Item::Var(j) if j as usize == k => want.extend(two(&markers[k]).map(Err)),
                    Item::Var(j) => {
                        let m = &markers[j as usize];
                        want.push(Err(Solved { size: p0(m), basis: m.one }))
                    }
                    Item::Affine { var, .. } if var as usize == k => return false,
                    Item::Affine { var, .. } => match item.one(p0(&markers[var as usize])) {
                        Some(size) => {
                            want.push(Err(Solved { size, basis: markers[var as usize].one }))
                        }
                        None => return false,
                    },
                }
            }
            if want.len() - before != len {
                return false;
            }
        }
        let same = got.iter().zip(&want).all(|(g, w)| match w {
            Ok(n) => g.size == *n && !is_marker(g.basis),
            Err(m) => g == m,
        });
        if got.len() != want.len() || !same {
            return false;
        }
    }
    true
}

/// The least size of each variable's axis that every fixed index reading it allows.
fn fixed_index_bounds(data: &mut SchemeData) {
    let mut mins: Vec<u64> = vec![0; data.vars.len()];
    for step in &data.steps {
        let Some(spec) = &step.spec else { continue };
        let slots =
            spec.parsed.rhs.iter().zip(step.args.iter()).chain([(&spec.parsed.lhs, &step.out)]);
        for (slot, t) in slots {
            let Some(form) = data.tensors.get(t.index()) else { continue };
            for (kind, row) in slot.rows() {
                let items = form.row_items(kind, &data.items);
                let trail = row.trailing.len();
                let at = |i: usize, leading: bool| {
                    if leading {
                        items.get(i)
                    } else {
                        items.len().checked_sub(trail - i).and_then(|j| items.get(j))
                    }
                };
                let axes = row.leading.iter().enumerate().map(|(i, a)| (a, at(i, true)));
                let axes =
                    axes.chain(row.trailing.iter().enumerate().map(|(i, a)| (a, at(i, false))));
                for (axis, item) in axes {
                    if let (AxisKind::Int(n), Some(item)) = (&axis.kind, item) {
                        bound(&mut mins, *item, *n);
                    }
                }
            }
        }
    }
    for (v, m) in data.vars.iter_mut().zip(mins) {
        v.min = v.min.max(m);
    }
}

/// Raises a variable's least size so that index `n` lies inside `item`.
fn bound(mins: &mut [u64], item: Item, n: u64) {
    let least = match item {
        Item::Size(_) => return,
        Item::Var(_) => n.saturating_add(1),
        // scale·x + offset > n  ⇔  x > (n − offset) / scale.
        Item::Affine { scale, offset, .. } => {
            let need = i128::from(n) + 1 - i128::from(offset);
            let x = (need + i128::from(scale) - 1).div_euclid(i128::from(scale.max(1)));
            u64::try_from(x.max(0)).unwrap_or(u64::MAX)
        }
    };
    if let Some(k) = item.var() {
        if let Some(m) = mins.get_mut(k as usize) {
            *m = (*m).max(least);
        }
    }
}
