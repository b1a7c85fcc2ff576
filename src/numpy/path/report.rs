//! [`einsum_path`]: the chosen path with its costs, like numpy's `einsum_path`.

use super::live::LiveList;
use super::options::PathOptions;
use super::plan::{plan, Planner};
use super::problem::{bits, Problem};
use super::ssa::linear_to_ssa;
use super::walk::{walk, PathStep};
use crate::numpy::error::EinsumError;
use crate::numpy::shapes::{analyze, Analysis, Label};
use crate::spec::parse_numpy;

/// One contraction of a path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Contraction {
    /// Positions of the operands it takes, in the operand list current at this step.
    pub positions: Vec<usize>,
    /// The step as einsum subscripts (operands in numpy's order: highest position first).
    pub einsum: String,
    /// Labels summed away in this step.
    pub removed: String,
    /// The number of distinct labels involved (the step's loop depth).
    pub scaling: usize,
    /// FLOPs, as opt_einsum counts them.
    pub flops: u128,
    /// Elements of the result.
    pub size: u128,
    /// The remaining einsum after this step. Past [`MAX_REMAINING_TERMS`] operands, the
    /// first and last terms around a count of those left out (`ab,bc,[960 more],cd->ad`).
    pub remaining: String,
}

/// The most terms a [`Contraction::remaining`] lists in full. Past it, half of them are
/// shown first and half last, the rest counted: each line of the report of an einsum of n
/// operands is bounded, and the report is linear in n rather than quadratic.
///
/// ```
/// use einrow::numpy::{einsum_path, Optimize, PathOptions, MAX_REMAINING_TERMS};
/// let n = MAX_REMAINING_TERMS + 10;
/// let spec = format!("{}->", vec!["i"; n].join(","));
/// let shapes = vec![&[3usize][..]; n];
/// let report = einsum_path(&spec, &shapes, &PathOptions::new(Optimize::Greedy))?;
/// // The first step contracts two operands: n - 1 are left.
/// let first = &report.contractions()[0].remaining;
/// assert!(first.contains(&format!(",[{} more],", n - 1 - MAX_REMAINING_TERMS)), "{first}");
/// assert_eq!(report.contractions().last().unwrap().remaining, "->");
/// # Ok::<(), einrow::numpy::EinsumError>(())
/// ```
pub const MAX_REMAINING_TERMS: usize = 64;

/// The remaining einsum of a step: the terms of `list`, at most [`MAX_REMAINING_TERMS`] of
/// them spelled out, then `->output`.
fn remaining_text(
    list: &LiveList<Vec<usize>>,
    term: &dyn Fn(&[usize]) -> String,
    output: &str,
) -> String {
    let n = list.len();
    let half = MAX_REMAINING_TERMS / 2;
    let terms_at = |r: std::ops::Range<usize>| r.filter_map(|p| list.get(p)).map(|ls| term(ls));
    let mut terms: Vec<String> = Vec::with_capacity(n.min(MAX_REMAINING_TERMS + 1));
    if n <= MAX_REMAINING_TERMS {
        terms.extend(terms_at(0..n));
    } else {
        terms.extend(terms_at(0..half));
        terms.push(format!("[{} more]", n - 2 * half));
        terms.extend(terms_at(n - half..n));
    }
    format!("{}->{output}", terms.join(","))
}

/// A planned path with its costs (numpy's `einsum_path` report; FLOPs as opt_einsum counts
/// them). [`std::fmt::Display`] prints numpy's table; [`PathReport::to_json`] gives the same
/// as JSON.
#[derive(Clone, Debug, PartialEq)]
pub struct PathReport {
    pub(super) equation: String,
    pub(super) requested: &'static str,
    pub(super) strategy: Planner,
    pub(super) path: Vec<Vec<usize>>,
    pub(super) steps: Vec<PathStep>,
    pub(super) contractions: Vec<Contraction>,
    pub(super) naive_flops: u128,
    pub(super) naive_scaling: usize,
}

/// Plans the contraction of numpy subscripts on operands of the given shapes and reports its
/// costs, like numpy's `einsum_path` (FLOPs counted as opt_einsum counts them).
///
/// ```
/// use einrow::numpy::{einsum_path, Optimize, PathOptions};
/// let shapes: [&[usize]; 3] = [&[2, 2], &[2, 5], &[5, 2]];
/// let report = einsum_path("ij,jk,kl->il", &shapes, &PathOptions::new(Optimize::Optimal))?;
/// assert_eq!(report.path(), &[vec![1, 2], vec![0, 1]]);
/// assert_eq!((report.naive_flops(), report.opt_flops()), (120, 56));
/// assert_eq!(report.largest_intermediate(), 4);
/// # Ok::<(), einrow::numpy::EinsumError>(())
/// ```
pub fn einsum_path(
    spec: &str,
    shapes: &[&[usize]],
    opts: &PathOptions,
) -> Result<PathReport, EinsumError> {
    let parsed = parse_numpy(spec)?;
    for s in shapes {
        crate::tensor::numel(s)?;
    }
    let an = analyze(&parsed, shapes)?;
    let p = problem(&an)?;
    let (path, strategy) = plan(&p, opts)?;
    Ok(report(&an, &p, path, strategy, opts.optimize.name()))
}

/// The planning problem of an analysed einsum.
pub(crate) fn problem(an: &Analysis) -> Result<Problem, EinsumError> {
    Problem::new(&an.operands, &an.output, &an.sizes).ok_or_else(|| {
        let summed = an.labels.len().saturating_sub(an.output.len());
        EinsumError::TooManyDims { dims: an.labels.len(), output: an.output.len(), summed, max: 64 }
    })
}

/// The steps to run for an analysed einsum under `opts`.
#[cfg(feature = "kernel")]
pub(crate) fn planned_steps(
    an: &Analysis,
    opts: &PathOptions,
) -> Result<Vec<PathStep>, EinsumError> {
    let p = problem(an)?;
    let (path, _) = plan(&p, opts)?;
    Ok(walk(&an.operands, &an.output, &path))
}

fn report(
    an: &Analysis,
    p: &Problem,
    path: Vec<Vec<usize>>,
    strategy: Planner,
    requested: &'static str,
) -> PathReport {
    let names = label_names(&an.labels);
    let term = |ls: &[usize]| ls.iter().map(|&l| names[l]).collect::<String>();
    let output = term(&an.output);
    let steps = walk(&an.operands, &an.output, &path);
    let mut list = LiveList::new(an.operands.clone(), steps.len());
    let mut contractions = Vec::with_capacity(steps.len());
    for (i, step) in steps.iter().enumerate() {
        // numpy shows an intermediate's labels by increasing size, then name (the order its
        // report prints, not the order the step computes in); the last result is the output.
        let mut shown = step.keep.clone();
        if i + 1 < steps.len() {
            shown.sort_by_key(|&l| (an.sizes.get(l).copied().unwrap_or(0), names[l]));
        }
        let mut order = step.positions.clone();
        order.sort_unstable_by(|a, b| b.cmp(a));
        let taken: Vec<Vec<usize>> = list.take(&order).into_iter().flatten().collect();
        let involved = taken.iter().flatten().fold(0u64, |m, &l| m | 1 << l);
        let kept = step.keep.iter().fold(0u64, |m, &l| m | 1 << l);
        let removed = involved & !kept;
        let inputs: Vec<String> = taken.iter().map(|ls| term(ls)).collect();
        let einsum = format!("{}->{}", inputs.join(","), term(&shown));
        list.push(shown);
        contractions.push(Contraction {
            positions: step.positions.clone(),
            einsum,
            removed: bits(removed).map(|l| names[l]).collect(),
            scaling: involved.count_ones() as usize,
            flops: p.flops(involved, removed != 0, step.positions.len()),
            size: p.size(kept),
            remaining: remaining_text(&list, &term, &output),
        });
    }
    let all = p.all_labels();
    let shared = p.inputs.iter().map(|m| m.count_ones()).sum::<u32>() > all.count_ones();
    let inputs: Vec<String> = an.operands.iter().map(|o| term(o)).collect();
    PathReport {
        equation: format!("{}->{output}", inputs.join(",")),
        requested,
        strategy,
        path,
        steps,
        contractions,
        naive_flops: p.flops(all, shared, p.len()),
        naive_scaling: all.count_ones() as usize,
    }
}

/// A character per label: letters stand for themselves; ellipsis dimensions take unused
/// letters (uppercase first, as numpy), then characters from U+00C0 on.
fn label_names(labels: &[Label]) -> Vec<char> {
    let used: Vec<char> = labels
        .iter()
        .filter_map(|l| if let Label::Letter(c) = l { Some(*c) } else { None })
        .collect();
    let mut spare = ('A'..='Z')
        .chain('a'..='z')
        .chain((0xC0u32..0x2000).filter_map(char::from_u32))
        .filter(|c| !used.contains(c));
    labels
        .iter()
        .map(|l| match l {
            Label::Letter(c) => *c,
            Label::Ellipsis(_) => spare.next().unwrap_or('?'),
        })
        .collect()
}

impl PathReport {
    /// The path in numpy's convention: per step, positions into the current operand list,
    /// each result appended at the end.
    pub fn path(&self) -> &[Vec<usize>] {
        &self.path
    }

    /// The path with every tensor named once (opt_einsum's SSA form): operands `0..n`, the
    /// result of step `k` is `n + k`; each step lists the tensors it takes in the order of
    /// [`PathReport::path`].
    ///
    /// ```
    /// use einrow::numpy::{einsum_path, Optimize, PathOptions};
    /// let shapes: [&[usize]; 3] = [&[2, 2], &[2, 5], &[5, 2]];
    /// let report = einsum_path("ij,jk,kl->il", &shapes, &PathOptions::new(Optimize::Optimal))?;
    /// assert_eq!(report.ssa_path(), vec![vec![1, 2], vec![0, 3]]);
    /// # Ok::<(), einrow::numpy::EinsumError>(())
    /// ```
    pub fn ssa_path(&self) -> Vec<Vec<usize>> {
        linear_to_ssa(&self.path, self.operand_count())
    }

    /// The number of operands of the einsum.
    fn operand_count(&self) -> usize {
        // Each step takes its positions and adds one result; one tensor is left.
        1 + self.path.iter().map(|s| s.len()).sum::<usize>() - self.path.len()
    }

    /// The steps with their result labels (label numbers of the einsum's analysis).
    pub fn steps(&self) -> &[PathStep] {
        &self.steps
    }

    /// Each contraction with its subscripts, FLOPs and result size.
    pub fn contractions(&self) -> &[Contraction] {
        &self.contractions
    }

    /// The whole einsum with explicit output (ellipsis dimensions as letters).
    pub fn equation(&self) -> &str {
        &self.equation
    }

    /// The planner that produced the path.
    pub fn strategy(&self) -> Planner {
        self.strategy
    }

    /// The strategy asked for (`auto` picks one of several).
    pub fn requested(&self) -> &'static str {
        self.requested
    }

    /// FLOPs of evaluating the einsum in one step over every label (opt_einsum's and numpy's
    /// naive count).
    pub fn naive_flops(&self) -> u128 {
        self.naive_flops
    }

    /// FLOPs of the path: the sum over its contractions (opt_einsum's count; numpy's report
    /// adds 1).
    pub fn opt_flops(&self) -> u128 {
        self.contractions.iter().fold(0u128, |s, c| s.saturating_add(c.flops))
    }

    /// `naive_flops / max(opt_flops, 1)`.
    pub fn speedup(&self) -> f64 {
        self.naive_flops as f64 / self.opt_flops().max(1) as f64
    }

    /// The distinct labels of the whole einsum.
    pub fn naive_scaling(&self) -> usize {
        self.naive_scaling
    }

    /// The most labels one contraction involves.
    pub fn opt_scaling(&self) -> usize {
        self.contractions.iter().map(|c| c.scaling).max().unwrap_or(0)
    }

    /// The most elements of any contraction's result, the output included (as numpy and
    /// opt_einsum report it).
    pub fn largest_intermediate(&self) -> u128 {
        self.contractions.iter().map(|c| c.size).max().unwrap_or(1)
    }
}
