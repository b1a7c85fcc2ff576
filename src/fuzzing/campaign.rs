//! Fuzzing campaigns: draw random inputs from the strategies with a seeded runner, run the
//! properties, shrink what fails (first the random choices, then the program itself) and hand
//! every failure to the caller as a case it can keep. `einrow fuzz` is a thin shell over these.

use std::time::{Duration, Instant};

use proptest::prelude::Rng;
use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use serde_json::{json, Value};

use super::case_file::{infer_case, witness_expect, Expect};
use super::execution::check_execution;
use super::gen::{programs, Choices, GenConfig, Generated};
use super::props::{
    check_deterministic, check_generated_with, check_order_independent, fully_declared,
    run_program, Failure, FailureKind, Outcome,
};
use super::shrink::{shrink_program, Edits};
use super::specs::{check_spec_text, einsum_text, labels_text, numpy_text, Front};
use super::work::{check_work, WorkBudget};
use crate::infer::program::Program;

/// When a campaign stops: after `count` inputs or `time`, whichever comes first.
#[derive(Clone, Copy, Debug)]
pub struct Budget {
    /// Most inputs to try.
    pub count: u64,
    /// Most time to spend (`None`: no limit).
    pub time: Option<Duration>,
}

impl Budget {
    fn exhausted(&self, done: u64, start: Instant) -> bool {
        done >= self.count || self.time.is_some_and(|t| start.elapsed() >= t)
    }
}

/// A seeded proptest runner (the same seed draws the same inputs).
pub fn runner(seed: u64) -> TestRunner {
    let mut bytes = [0u8; 32];
    bytes[..8].copy_from_slice(&seed.to_le_bytes());
    TestRunner::new_with_rng(Config::default(), TestRng::from_seed(RngAlgorithm::ChaCha, &bytes))
}

/// Shrinks a failing value tree: simplify while the value still fails, at most `budget`
/// evaluations. Returns the smallest failing value seen.
pub fn shrink_tree<T: ValueTree>(
    tree: &mut T,
    budget: usize,
    fails: &mut dyn FnMut(&T::Value) -> bool,
) -> T::Value {
    let mut best = tree.current();
    let mut tries = 0;
    'outer: while tries < budget && tree.simplify() {
        loop {
            tries += 1;
            let v = tree.current();
            if fails(&v) {
                best = v;
                continue 'outer;
            }
            if tries >= budget || !tree.complicate() {
                break 'outer;
            }
        }
    }
    best
}

/// How program campaigns check.
#[derive(Clone, Debug)]
pub struct ProgramOptions {
    /// What to generate.
    pub gen: GenConfig,
    /// Also require programs with capped rows to be solved and order independent.
    pub strict: bool,
    /// Most candidate programs to try per failure while shrinking.
    pub shrink_budget: usize,
    /// Also run solved programs through einrow's projections and kernel and compare with the
    /// naive evaluator.
    pub execute: bool,
    /// The work inference may take on a program, in proportion to its size: past it, a
    /// [`FailureKind::Slow`] finding.
    pub work: WorkBudget,
}

impl Default for ProgramOptions {
    fn default() -> ProgramOptions {
        ProgramOptions {
            gen: GenConfig::default(),
            strict: false,
            shrink_budget: 2000,
            execute: true,
            work: WorkBudget::default(),
        }
    }
}

/// A failure found by a campaign, shrunk, with a case that reproduces it.
#[derive(Clone, Debug)]
pub struct Found {
    /// What failed (on the shrunk input).
    pub failure: Failure,
    /// The shrunk program (empty for spec and numpy campaigns).
    pub program: Program,
    /// An `infer` case reproducing it (`id` to be set by the caller).
    pub case: Value,
}

/// Counts of a campaign.
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Inputs tried.
    pub inputs: u64,
    /// Operations in the programs tried.
    pub steps: u64,
    /// Programs solved.
    pub solved: u64,
    /// Programs rejected with an error.
    pub rejected: u64,
    /// Programs with opened leaves.
    pub opened: u64,
    /// Programs with capped rows.
    pub capped: u64,
    /// Programs whose order independence was checked.
    pub reordered: u64,
    /// Programs whose values were compared with the naive evaluator.
    pub executed: u64,
    /// Failures found.
    pub failures: u64,
}

/// Every program property on one generated program.
pub fn check_all(g: &Generated, strict: bool, order: &[u32]) -> Result<(), Failure> {
    check_generated_with(g, strict)?;
    check_deterministic(&g.program)?;
    if fully_declared(&g.program) && (strict || !g.capped) {
        check_order_independent(&g.program, &mut Choices::new(order))?;
    }
    Ok(())
}

/// Runs the program properties on random programs until the budget is spent: the checker,
/// determinism, order independence, the linear work budget and (with `execute`) the kernel.
pub fn fuzz_programs(
    opts: &ProgramOptions,
    seed: u64,
    budget: Budget,
    on_found: &mut dyn FnMut(Found),
) -> Stats {
    let mut runner = runner(seed);
    let strategy = programs(opts.gen.clone());
    let (start, mut stats) = (Instant::now(), Stats::default());
    while !budget.exhausted(stats.inputs, start) {
        let Ok(mut tree) = strategy.new_tree(&mut runner) else { break };
        let order: Vec<u32> = (0..32).map(|_| runner.rng().next_u32()).collect();
        let g = tree.current();
        tally(&mut stats, &g);
        stats.reordered += u64::from(fully_declared(&g.program) && (opts.strict || !g.capped));
        let check = |x: &Generated| -> Result<bool, Failure> {
            check_all(x, opts.strict, &order)?;
            check_work(&x.program, opts.work)?;
            if opts.execute {
                return check_execution(&x.program, &mut Choices::new(&order));
            }
            Ok(false)
        };
        let f = match check(&g) {
            Ok(executed) => {
                stats.executed += u64::from(executed);
                continue;
            }
            Err(f) => f,
        };
        stats.failures += 1;
        let kind = f.kind;
        let mut same = |x: &Generated| check(x).is_err_and(|e| e.kind == kind);
        let small = shrink_tree(&mut tree, opts.shrink_budget, &mut same);
        let mut same_program =
            |p: &Program| same(&Generated { program: p.clone(), ..small.clone() });
        on_found(shrink_found(&small, f, &mut same_program, opts.shrink_budget));
    }
    stats
}

fn tally(stats: &mut Stats, g: &Generated) {
    stats.inputs += 1;
    stats.steps += g.program.stmts.len() as u64;
    stats.opened += u64::from(g.opened);
    stats.capped += u64::from(g.capped);
    match run_program(&g.program) {
        Ok(Outcome::Solved(_)) => stats.solved += 1,
        Ok(Outcome::Rejected { .. }) => stats.rejected += 1,
        Err(_) => {}
    }
}

/// Shrinks the program of a failing generated program and makes its case.
fn shrink_found(
    g: &Generated,
    first: Failure,
    same: &mut dyn FnMut(&Program) -> bool,
    budget: usize,
) -> Found {
    let kind = first.kind;
    // Failures that are bugs only on satisfiable programs keep to structural edits.
    let edits = match kind {
        FailureKind::Rejected
        | FailureKind::WitnessMismatch
        | FailureKind::OrderDependent
        | FailureKind::Differential => Edits::Structural,
        _ => Edits::All,
    };
    let program = shrink_program(&g.program, edits, budget, same);
    let expect = match kind {
        FailureKind::Panic => Expect::Shapes(Vec::new()),
        _ => witness_expect(g, &program),
    };
    let note = format!("einrow fuzz: {first} (found on a larger program)");
    let case = infer_case("fuzz", &program, &expect, &note);
    Found { failure: first, program, case }
}

/// Runs the spec round-trip property on random spec text (labels, einsum and numpy fronts in
/// turn) until the budget is spent.
pub fn fuzz_specs(seed: u64, budget: Budget, on_found: &mut dyn FnMut(Found)) -> Stats {
    let mut runner = runner(seed);
    let fronts = [
        (Front::Labels, labels_text()),
        (Front::Einsum, einsum_text()),
        (Front::Numpy, numpy_text()),
    ];
    let (start, mut stats) = (Instant::now(), Stats::default());
    while !budget.exhausted(stats.inputs, start) {
        let (front, strategy) = &fronts[(stats.inputs % 3) as usize];
        let Ok(mut tree) = strategy.new_tree(&mut runner) else { break };
        stats.inputs += 1;
        let text = tree.current();
        let Err(f) = check_spec_text(*front, &text) else { continue };
        stats.failures += 1;
        let kind = f.kind;
        let small = shrink_tree(&mut tree, 2000, &mut |t| {
            check_spec_text(*front, t).is_err_and(|e| e.kind == kind)
        });
        let failure = check_spec_text(*front, &small).err().unwrap_or(f);
        on_found(Found {
            case: spec_case(*front, &small, &failure),
            failure,
            program: Program::default(),
        });
    }
    stats
}

/// A case for a spec text that failed: for an OCANNL round trip, a `parse` case (the printed
/// text must parse to the original tree); otherwise a `parse` case stating only the lexer's
/// mode, or for numpy subscripts an `einsum` case without operands (an error either way): the
/// runner still parses the text, so a panic reproduces.
fn spec_case(front: Front, text: &str, failure: &Failure) -> Value {
    let note = format!("einrow fuzz: {failure}");
    let as_ = match front {
        Front::Labels => "labels",
        Front::Einsum | Front::Numpy => "einsum",
    };
    let round_trip = match front {
        Front::Labels => crate::spec::parse_labels(text).ok().map(|t| (t.to_string(), t.to_json())),
        Front::Einsum => crate::spec::parse_einsum(text).ok().map(|t| (t.to_string(), t.to_json())),
        Front::Numpy => None,
    };
    if front == Front::Numpy {
        // No case kind parses numpy subscripts alone: an `einsum` case without operands is an
        // error whatever the subscripts, and running it parses them.
        return json!({
            "id": "fuzz", "kind": "einsum", "spec": text, "shapes": [],
            "expect": { "error": "arity" }, "note": note,
        });
    }
    match round_trip.filter(|_| failure.kind == FailureKind::RoundTrip) {
        Some((printed, rows)) => json!({
            "id": "fuzz", "kind": "parse", "spec": printed, "as": as_, "expect": rows, "note": note,
        }),
        None => json!({
            "id": "fuzz", "kind": "parse", "spec": text, "as": as_,
            "expect": { "multichar": crate::spec::lexer::is_multichar(text) }, "note": note,
        }),
    }
}

/// Numpy einsum problems for the oracle: `n` cases, about a third of them near-valid.
pub fn numpy_problems(seed: u64, n: u64) -> Vec<super::numpy::NumpyCase> {
    let mut runner = runner(seed);
    let strategy = super::numpy::numpy_cases(true);
    (0..n).filter_map(|_| strategy.new_tree(&mut runner).ok().map(|t| t.current())).collect()
}

/// Checks one `einsum` case written by the numpy oracle: einrow's conformance runner must pass
/// it (without panicking), and where the case has inputs and values, the naive reference must
/// agree with numpy (a disagreement there is reported as a `Differential` failure of the
/// reference, never blamed on einrow).
pub fn check_oracle_case(case: &Value) -> Result<(), Failure> {
    reference_agrees(case)?;
    match std::panic::catch_unwind(|| crate::check::run_case(case)) {
        Err(p) => Err(Failure::new(FailureKind::Panic, super::props::panic_message(&*p))),
        Ok(Err(detail)) => Err(Failure::new(FailureKind::Differential, detail)),
        Ok(Ok(())) => Ok(()),
    }
}

fn reference_agrees(case: &Value) -> Result<(), Failure> {
    let (Some(spec), Some(shapes)) = (case["spec"].as_str(), case["shapes"].as_array()) else {
        return Ok(());
    };
    let shapes: Vec<Vec<usize>> = shapes
        .iter()
        .map(|s| {
            s.as_array()
                .into_iter()
                .flatten()
                .filter_map(|d| d.as_u64())
                .map(|d| d as usize)
                .collect()
        })
        .collect();
    let inputs: Option<Vec<Vec<f64>>> = case["inputs"].as_array().map(|ops| {
        ops.iter()
            .map(|o| o.as_array().into_iter().flatten().filter_map(Value::as_f64).collect())
            .collect()
    });
    let expect = &case["expect"];
    let Some(inputs) = inputs else { return Ok(()) };
    let Some(values) = expect["values"].as_array() else { return Ok(()) };
    let want: Vec<f64> = values.iter().filter_map(Value::as_f64).collect();
    match super::numpy::naive_einsum(spec, &shapes, &inputs) {
        Ok((_, got)) if got == want => Ok(()),
        Ok((_, got)) => Err(Failure::new(
            FailureKind::Differential,
            format!("the naive reference (not einrow) disagrees with numpy on {spec}: {got:?} vs {want:?}"),
        )),
        Err(e) => Err(Failure::new(
            FailureKind::Differential,
            format!("the naive reference (not einrow) rejects {spec} which numpy accepts: {e}"),
        )),
    }
}
