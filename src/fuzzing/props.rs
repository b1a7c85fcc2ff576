//! The properties einrow must have, as functions that return a [`Failure`] instead of
//! asserting, so that proptest tests, the `einrow fuzz` command and cargo-fuzz targets share
//! them:
//! - solving never panics, and a solution satisfies every constraint ([`check_program`]);
//! - a satisfiable program whose leaves are fully declared is solved, to the forward model's
//!   shapes where those are determined ([`check_generated`]);
//! - solving is deterministic ([`check_deterministic`]) and, for fully declared programs,
//!   independent of the order of declarations and independent steps
//!   ([`check_order_independent`]);
//! - printing a parsed spec and parsing it again gives the same tree (see [`super::specs`]);
//! - inference takes work about linear in the program (see [`super::work`]).

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::checker::check_solution;
use super::gen::{Choices, Generated};
use super::solution::Solution;
use crate::code::{Coded, ErrorCode};
use crate::infer::program::Program;

/// The class of a property failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FailureKind {
    /// einrow panicked.
    Panic,
    /// A solution breaks a constraint.
    Violation,
    /// Solving succeeded but left a shape with variables.
    Unsolved,
    /// A satisfiable program whose leaves are fully declared was rejected.
    Rejected,
    /// A determined tensor was solved to another shape than the forward model's.
    WitnessMismatch,
    /// Two runs of the same program disagree.
    Nondeterministic,
    /// Reordering declarations or independent steps changed the outcome.
    OrderDependent,
    /// Printing and parsing a spec again changed it.
    RoundTrip,
    /// einrow disagrees with an oracle (numpy).
    Differential,
    /// Inference did more work than a budget linear in the program allows.
    Slow,
}

impl FailureKind {
    /// A short name, used in file names and reports.
    pub fn name(self) -> &'static str {
        match self {
            FailureKind::Panic => "panic",
            FailureKind::Violation => "violation",
            FailureKind::Unsolved => "unsolved",
            FailureKind::Rejected => "rejected",
            FailureKind::WitnessMismatch => "witness-mismatch",
            FailureKind::Nondeterministic => "nondeterministic",
            FailureKind::OrderDependent => "order-dependent",
            FailureKind::RoundTrip => "round-trip",
            FailureKind::Differential => "differential",
            FailureKind::Slow => "slow",
        }
    }
}

/// A failed property.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// Its class.
    pub kind: FailureKind,
    /// What happened.
    pub message: String,
}

impl Failure {
    /// A failure of `kind`.
    pub fn new(kind: FailureKind, message: impl Into<String>) -> Failure {
        Failure { kind, message: message.into() }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.kind.name(), self.message)
    }
}

/// What solving a program gave.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    /// Every defined name's concrete shape.
    Solved(Solution),
    /// An error, with its code and message.
    Rejected {
        /// The error's code.
        code: ErrorCode,
        /// The error's message.
        message: String,
    },
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "(a panic without a message)".into()
    }
}

/// Builds and solves a program, turning a panic into a [`FailureKind::Panic`] failure and a
/// success that leaves variables into [`FailureKind::Unsolved`].
pub fn run_program(p: &Program) -> Result<Outcome, Failure> {
    let run = catch_unwind(AssertUnwindSafe(|| {
        let built = p.build();
        let (g, names) = (built.graph, built.names);
        match built.result {
            Err((e, _)) => Ok(Outcome::Rejected { code: e.code(), message: e.to_string() }),
            Ok(()) => {
                let used: Vec<crate::ids::TensorId> =
                    g.steps().iter().flat_map(|s| s.args.iter().copied().chain([s.out])).collect();
                Solution::from_graph(&g, &names, |t| !used.contains(&t)).map(Outcome::Solved)
            }
        }
    }));
    match run {
        Ok(Ok(o)) => Ok(o),
        Ok(Err(e)) => Err(Failure::new(FailureKind::Unsolved, e)),
        Err(payload) => Err(Failure::new(FailureKind::Panic, panic_message(&*payload))),
    }
}

/// [`run_program`], then the independent checker on a solution.
pub fn check_program(p: &Program) -> Result<Outcome, Failure> {
    let outcome = run_program(p)?;
    if let Outcome::Solved(sol) = &outcome {
        check_solution(p, sol).map_err(|v| Failure::new(FailureKind::Violation, v.to_string()))?;
    }
    Ok(outcome)
}

/// [`check_program`] on a generated program, plus: a program without opened leaves (and
/// without capped rows, see [`Generated::capped`]) must be solved, and determined tensors must
/// get their witness shape (compared as the [case format](crate::check::format) compares: a
/// plain `1` matches either size-1 basis).
pub fn check_generated(g: &Generated) -> Result<(), Failure> {
    check_generated_with(g, false)
}

/// [`check_generated`], where `strict` also requires programs with capped rows to be solved.
pub fn check_generated_with(g: &Generated, strict: bool) -> Result<(), Failure> {
    let outcome = check_program(&g.program)?;
    let sol = match outcome {
        Outcome::Solved(sol) => sol,
        Outcome::Rejected { .. } if g.opened || (g.capped && !strict) => return Ok(()),
        Outcome::Rejected { code, message } => {
            let msg = format!("error[{code}] on a satisfiable program: {message}");
            return Err(Failure::new(FailureKind::Rejected, msg));
        }
    };
    for w in g.witness.iter().filter(|w| w.determined) {
        let Some(found) = sol.get(&w.name) else { continue };
        if !w.shape.matches_expected(found) {
            let msg = format!("`{}`: expected {}, solved {}", w.name, w.shape, found);
            return Err(Failure::new(FailureKind::WitnessMismatch, msg));
        }
    }
    Ok(())
}

/// Solving the same program twice gives the same outcome (shapes with their flank splits, or
/// the same error).
pub fn check_deterministic(p: &Program) -> Result<(), Failure> {
    let first = run_program(p)?;
    let second = run_program(p)?;
    if first != second {
        let msg = format!("first {}, then {}", outcome_summary(&first), outcome_summary(&second));
        return Err(Failure::new(FailureKind::Nondeterministic, msg));
    }
    Ok(())
}

/// A short description of an outcome.
pub fn outcome_summary(o: &Outcome) -> String {
    match o {
        Outcome::Solved(s) => {
            let show = |sh: &Option<_>| {
                sh.as_ref().map_or("open".to_string(), |s: &super::ConcreteShape| s.to_string())
            };
            let shapes: Vec<String> =
                s.tensors.iter().map(|(n, sh)| format!("{n}: {}", show(sh))).collect();
            format!("solved [{}]", shapes.join("; "))
        }
        Outcome::Rejected { code, message } => format!("error[{code}] {message}"),
    }
}

/// The program with declarations shuffled and statements in another order that still defines
/// every operand before its use (a random topological order).
pub fn reorder(p: &Program, ch: &mut Choices) -> Program {
    let mut out = Program::default();
    for i in ch.permutation(p.decls.len()) {
        out.decls.push(p.decls[i].clone());
    }
    let mut defined: Vec<&str> = p.decls.iter().map(|d| d.name.as_str()).collect();
    let mut left: Vec<usize> = (0..p.stmts.len()).collect();
    while !left.is_empty() {
        let ready: Vec<usize> = left
            .iter()
            .copied()
            .filter(|i| p.stmts[*i].args.iter().all(|a| defined.contains(&a.as_str())))
            .collect();
        let Some(&next) = ch.pick(&ready) else {
            // An operand is never defined: keep the rest in order (the program is rejected
            // either way).
            out.stmts.extend(left.iter().map(|i| p.stmts[*i].clone()));
            break;
        };
        left.retain(|i| *i != next);
        defined.push(&p.stmts[next].out);
        out.stmts.push(p.stmts[next].clone());
    }
    out
}

/// A fully declared program gives the same shapes (flat rows, by name) whatever the order of
/// its declarations and independent steps: both orders succeed or both fail. Names must be
/// defined once.
pub fn check_order_independent(p: &Program, ch: &mut Choices) -> Result<(), Failure> {
    let q = reorder(p, ch);
    let (a, b) = (run_program(p)?, run_program(&q)?);
    let differ = |why: String| {
        let order: Vec<&str> = q.stmts.iter().map(|s| s.out.as_str()).collect();
        Err(Failure::new(
            FailureKind::OrderDependent,
            format!("order [{}]: {why}", order.join(" ")),
        ))
    };
    match (&a, &b) {
        (Outcome::Solved(x), Outcome::Solved(y)) => {
            for (name, shape) in x.tensors.iter().filter_map(|(n, s)| Some((n, s.as_ref()?))) {
                match y.get(name) {
                    Some(other) if other.same_flat(shape) => {}
                    Some(other) => return differ(format!("`{name}` is {shape}, then {other}")),
                    None => return differ(format!("`{name}` is missing")),
                }
            }
            Ok(())
        }
        (Outcome::Rejected { .. }, Outcome::Rejected { .. }) => Ok(()),
        _ => differ(format!("{}, then {}", outcome_summary(&a), outcome_summary(&b))),
    }
}

/// Whether every leaf of the program is declared with a complete shape (no row variable, not
/// `null`): the programs for which order independence is promised.
pub fn fully_declared(p: &Program) -> bool {
    p.decls.iter().all(|d| d.shape.as_deref().is_some_and(|s| !s.contains("..")))
}

/// Whether `p` fails the same way as a failure of `kind` found on a generated program:
/// the property that found it, re-run on `p` (for [`FailureKind::Rejected`], `p` must be a
/// structural shrink of the generated program, which keeps it satisfiable).
pub fn fails_like(kind: FailureKind, g: &Generated, p: &Program) -> bool {
    let restricted = Generated { program: p.clone(), ..g.clone() };
    let got = match kind {
        FailureKind::Nondeterministic => check_deterministic(p),
        _ => check_generated_with(&restricted, true),
    };
    got.is_err_and(|f| f.kind == kind)
}
