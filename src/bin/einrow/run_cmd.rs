//! `einrow run SPEC OPERAND...`: execute a numpy einsum (`ij,jk->ik`) or an OCANNL spec
//! (`ij;jk=>ik`) on given or random tensors; print the result, the plan, or timings, as text
//! or (`--json`) as one JSON document.

use std::borrow::Cow;
use std::process::ExitCode;
use std::time::Duration;

use einrow::diagnostic::{Diagnostic, Location};
use einrow::formats::convert::{read_tensor, NamedTensor};
use einrow::kernel::RunOptions;
use einrow::lint::{einsum_lints, numpy_lints};
use einrow::numpy::{einsum_optimized_with, einsum_with, time_runs, Optimize, PathOptions};
use einrow::project::{plan_einsum, run_plan, Concrete, IndexPlan};
use einrow::spec::{parse_einsum, parse_numpy};
use einrow::tensor::{DType, Tensor};
use einrow::{ErrorCode, Span};

use crate::out::Out;
use crate::report::{has_errors, ReportArgs};
use crate::run_errors::{coded, numpy_error, ocannl_error};
use crate::run_output::{finish, Done, Outcome, Plan};
use crate::run_plan::NumpyPlan;

/// `--threads` may ask for at most this many worker threads per available CPU.
pub const THREADS_PER_CPU: usize = 4;

/// `--bench` may ask for at most this many timed runs: each run's time is kept for the median
/// (16 bytes a run), so the count bounds the memory as well as the time asked for.
pub const MAX_BENCH_RUNS: usize = 1_000_000;

/// Arguments of `einrow run`.
#[derive(clap::Args)]
pub struct Args {
    /// numpy subscripts (`ij,jk->ik`), an OCANNL spec (`ij;jk=>ik`), or with `--named` the
    /// output dimension names (`x,y`).
    pub spec: String,
    /// Operands: nested JSON arrays or Vespa literals; `@path` reads a file (at most 1 GiB).
    pub operands: Vec<String>,
    /// A random operand of these sizes (`512,512`), after the given operands (repeatable).
    #[arg(long = "random")]
    pub random: Vec<String>,
    /// Storage type of random operands: f64, f32, f16, bf16, or numpy's name of any of them
    /// (integer and bool types hold the random values truncated toward zero; the complex
    /// types are refused: the command line reads and prints real numbers).
    #[arg(long, default_value = "f64")]
    pub dtype: String,
    /// Time N runs after a warm-up and print `median: <ms> ms` (from 1 to 1000000 runs).
    #[arg(long)]
    pub bench: Option<usize>,
    /// Worker threads (default: one per CPU). At most 4 per available CPU: a larger count is
    /// an error (each thread is an OS thread with its own stack).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Print the plan: an OCANNL spec's loops; for numpy subscripts the contraction path
    /// (numpy's einsum_path report: FLOP counts, the largest intermediate) and each
    /// contraction's loops, FLOPs and result size. The einsum then runs along that path.
    #[arg(long)]
    pub plan: bool,
    /// numpy subscripts: contract along this path: greedy (the default with --plan), optimal,
    /// dp, auto, or an explicit path such as `[[1,2],[0,1]]`.
    #[arg(long)]
    pub optimize: Option<String>,
    /// Do not print the result's values: its shape only (with --json, no `values`).
    #[arg(long)]
    pub no_values: bool,
    /// Print the result as a Vespa literal with these dimension names (comma-separated; each
    /// letters, digits and `_`, as Vespa's type specs require).
    #[arg(long, conflicts_with = "json")]
    pub vespa_names: Option<String>,
    /// With `--vespa-names`: print Vespa's constant-tensor JSON instead of the literal.
    #[arg(long, requires = "vespa_names")]
    pub vespa_json: bool,
    /// Operands are Vespa tensors joined on equal dimension names; SPEC names the output's.
    #[arg(long, conflicts_with_all = ["random", "bench", "plan", "optimize"])]
    pub named: bool,
    #[command(flatten)]
    pub report: ReportArgs,
}

/// Runs `einrow run`: exit 0 when the result is printed, 1 on an error (or a denied warning).
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    let mut diags = Vec::new();
    let outcome = match bench_runs(args.bench).and_then(|()| thread_count(args.threads)) {
        Ok(threads) => match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
            Ok(pool) => pool.install(|| execute(args, &mut diags)),
            Err(e) => Err(Box::new(Diagnostic::error(ErrorCode::Io, e.to_string()))),
        },
        Err(d) => Err(d),
    };
    finish(args, out, outcome, diags)
}

/// The pool size for `--threads`: 0 (rayon's default, one per CPU) when not given; above
/// [`THREADS_PER_CPU`] per available CPU a `value` error that states the cap.
fn thread_count(asked: Option<usize>) -> Result<usize, Box<Diagnostic>> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cap = cpus.saturating_mul(THREADS_PER_CPU);
    match asked {
        Some(n) if n > cap => Err(Box::new(Diagnostic::error(
            ErrorCode::Value,
            format!(
                "--threads {n} is above the cap of {cap} ({THREADS_PER_CPU} per available CPU, \
                 {cpus} here)"
            ),
        ))),
        Some(n) => Ok(n),
        None => Ok(0),
    }
}

/// Checks the run count of `--bench`: 0 (no run to time), or a count above [`MAX_BENCH_RUNS`]
/// (the error states the cap), is a `value` error.
fn bench_runs(asked: Option<usize>) -> Result<(), Box<Diagnostic>> {
    match asked {
        Some(n) if n > MAX_BENCH_RUNS => Err(Box::new(Diagnostic::error(
            ErrorCode::Value,
            format!(
                "--bench {n} is above the cap of {MAX_BENCH_RUNS} runs (the time of every run \
                 is kept for the median)"
            ),
        ))),
        Some(0) => Err(Box::new(Diagnostic::error(
            ErrorCode::Value,
            "--bench 0 times no run: give the number of timed runs, 1 or more".to_string(),
        ))),
        _ => Ok(()),
    }
}

type Failure = Box<Diagnostic>;

/// Reads the operands, checks the spec (its warnings go to `diags`), plans and runs it.
fn execute(args: &Args, diags: &mut Vec<Diagnostic>) -> Result<Outcome, Failure> {
    if args.named {
        return crate::run_named::run_named(args);
    }
    let operands = operands(args)?;
    let tensors: Vec<&Tensor> = operands.iter().map(|n| &n.tensor).collect();
    let shapes: Vec<&[usize]> = tensors.iter().map(|t| t.shape()).collect();
    // `;` or `=>` mark an OCANNL spec (numpy subscripts have neither).
    let ocannl = args.spec.contains("=>") || args.spec.contains(';');
    diags.extend(lints(&args.spec, ocannl, shapes.len())?);
    args.report.apply(diags);
    if has_errors(diags) {
        return Err(Box::new(
            diags.remove(diags.iter().position(Diagnostic::is_error).unwrap_or(0)),
        ));
    }
    let path = path_options(args)?;
    let plan = if ocannl {
        Some(Plan::Index(ocannl_plan(&args.spec, &shapes)?))
    } else if args.plan {
        let p = NumpyPlan::new(&args.spec, &shapes, path.as_ref().map_or(&greedy(), |p| &p.0));
        Some(Plan::Numpy(p.map_err(|e| numpy_fail(args, &shapes, e, path.as_ref()))?))
    } else {
        None
    };
    let result = || compute(args, (&tensors, &shapes), plan.as_ref(), path.as_ref());
    if let Some(n) = args.bench {
        let timing = time_runs(n, n, Duration::ZERO, || result().map(|_| ()))?;
        let plan = plan.filter(|_| args.plan);
        return Ok(Outcome { plan, timing: Some(timing), result: None });
    }
    let done = result()?;
    Ok(Outcome { plan: plan.filter(|_| args.plan), timing: None, result: Some(Done::Dense(done)) })
}

/// Runs the spec once: an OCANNL plan, numpy einsum along the path of `--optimize` (or the
/// greedy path `--plan` printed), else numpy einsum's own order.
fn compute(
    args: &Args,
    (tensors, shapes): (&[&Tensor], &[&[usize]]),
    plan: Option<&Plan>,
    path: Option<&(PathOptions, Vec<Span>)>,
) -> Result<Tensor, Failure> {
    let opts = RunOptions::default();
    let fail = |e| numpy_fail(args, shapes, e, path);
    match (plan, path) {
        (Some(Plan::Index(p)), _) => index_run(p, tensors),
        (_, Some((p, _))) => einsum_optimized_with(&args.spec, tensors, p, &opts).map_err(fail),
        (Some(Plan::Numpy(_)), None) => {
            einsum_optimized_with(&args.spec, tensors, &greedy(), &opts).map_err(fail)
        }
        (None, None) => einsum_with(&args.spec, tensors, &opts).map_err(fail),
    }
}

fn greedy() -> PathOptions {
    PathOptions::new(Optimize::Greedy)
}

/// `--optimize` read, with the spans of an explicit path's steps (for errors).
fn path_options(args: &Args) -> Result<Option<(PathOptions, Vec<Span>)>, Failure> {
    let Some(text) = &args.optimize else { return Ok(None) };
    match Optimize::parse_with_spans(text) {
        Ok((o, spans)) => Ok(Some((PathOptions::new(o), spans))),
        Err(e) => {
            let d = Diagnostic::error(einrow::Coded::code(&e), e.to_string());
            Err(Box::new(match e.span() {
                Some(s) => d.at(Location::in_text(text, s)),
                None => d,
            }))
        }
    }
}

fn numpy_fail(
    args: &Args,
    shapes: &[&[usize]],
    e: einrow::numpy::EinsumError,
    path: Option<&(PathOptions, Vec<Span>)>,
) -> Failure {
    let text = args.optimize.as_deref().unwrap_or("");
    let spans = path.map_or(&[][..], |p| &p.1[..]);
    numpy_error(&args.spec, shapes, e, (text, spans))
}

/// The spec's parse errors and lints against `n` operands.
fn lints(spec: &str, ocannl: bool, n: usize) -> Result<Vec<Diagnostic>, Failure> {
    if ocannl {
        let parsed = parse_einsum(spec).map_err(|e| Box::new(e.to_diagnostic(spec)))?;
        Ok(einsum_lints(spec, &parsed, Some(n)))
    } else {
        let parsed = parse_numpy(spec).map_err(|e| Box::new(e.to_diagnostic(spec)))?;
        Ok(numpy_lints(spec, &parsed, n))
    }
}

/// Runs an OCANNL plan on the operands' values (as f64).
fn index_run(p: &IndexPlan, tensors: &[&Tensor]) -> Result<Tensor, Failure> {
    let data: Vec<Cow<[f64]>> = tensors.iter().map(|t| f64_data(t)).collect::<Result<_, _>>()?;
    let refs: Vec<&[f64]> = data.iter().map(|d| &d[..]).collect();
    let out = run_plan(p, &refs).map_err(coded)?;
    let dims: Vec<usize> = p.result_dims.iter().map(|d| *d as usize).collect();
    Tensor::from_vec(&dims, out).map_err(coded)
}

/// A tensor's values as one contiguous f64 slice: borrowed when it already is one, else a
/// copy allocated fallibly.
fn f64_data(t: &Tensor) -> Result<Cow<'_, [f64]>, Failure> {
    if let Some((data, layout)) = t.typed::<f64>() {
        let (start, n) = (layout.offset(), layout.numel());
        if layout.is_c_contiguous() && data.len() >= start.saturating_add(n) {
            return Ok(Cow::Borrowed(&data[start..start + n]));
        }
    }
    t.try_to_f64_vec().map(Cow::Owned).map_err(coded)
}

/// The text of operand `i` as given: `@path` reads the file (at most 1 GiB).
pub fn operand_text(i: usize, text: &str) -> Result<Cow<'_, str>, Failure> {
    match text.strip_prefix('@') {
        Some(path) => crate::input::read_text(path).map(Cow::Owned).map_err(|e| {
            Box::new(Diagnostic::error(ErrorCode::Io, format!("operand {i}: {path}: {e}")))
        }),
        None => Ok(Cow::Borrowed(text)),
    }
}

fn operands(args: &Args) -> Result<Vec<NamedTensor>, Failure> {
    let mut out = Vec::new();
    for (i, text) in args.operands.iter().enumerate() {
        let text = operand_text(i, text)?;
        out.push(read_tensor(&text).map_err(|e| {
            let code = einrow::Coded::code(&e);
            Box::new(Diagnostic::error(code, format!("operand {i}: {e}")))
        })?);
    }
    let dtype = DType::parse(&args.dtype).map_err(|e| {
        Box::new(Diagnostic::error(einrow::Coded::code(&e), format!("--dtype: {e}")))
    })?;
    if dtype.is_complex() {
        let msg = format!(
            "--dtype: {} is not a type of the command line, which reads and prints real \
             numbers (complex einsums run in the library and the Python package)",
            dtype.name()
        );
        return Err(Box::new(Diagnostic::error(ErrorCode::Unsupported, msg)));
    }
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for dims in &args.random {
        let shape: Vec<usize> = dims
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|s| {
                s.trim().parse().map_err(|_| {
                    Box::new(Diagnostic::error(ErrorCode::Syntax, format!("bad sizes {dims:?}")))
                })
            })
            .collect::<Result<_, _>>()?;
        let values = std::iter::repeat_with(|| random_unit(&mut seed));
        let tensor = Tensor::from_f64_iter(dtype, &shape, values).map_err(coded)?;
        out.push(NamedTensor { tensor, names: None });
    }
    Ok(out)
}

/// A deterministic pseudo-random value in [-1, 1) (xorshift64*).
fn random_unit(state: &mut u64) -> f64 {
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    let x = state.wrapping_mul(0x2545_F491_4F6C_DD1D);
    (x >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

/// The plan of an OCANNL spec over the operands' sizes (each an output row).
fn ocannl_plan(spec: &str, shapes: &[&[usize]]) -> Result<IndexPlan, Failure> {
    let concrete: Vec<Concrete> = shapes
        .iter()
        .map(|s| Concrete::output(&s.iter().map(|&d| d as u64).collect::<Vec<_>>()))
        .collect();
    let refs: Vec<&Concrete> = concrete.iter().collect();
    plan_einsum(spec, &refs).map_err(|e| ocannl_error(spec, shapes, e))
}
