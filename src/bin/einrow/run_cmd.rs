//! `einrow run SPEC OPERAND...`: execute a numpy einsum (`ij,jk->ik`) or an OCANNL spec
//! (`ij;jk=>ik`) on given or random tensors; print the result, the plan, or timings.

use std::borrow::Cow;
use std::process::ExitCode;
use std::time::Duration;

use einrow::diagnostic::{render, Label};
use einrow::formats::convert::{
    named_einsum, read_tensor, to_vespa, write_nested_json, ConvertError, NamedTensor,
};
use einrow::formats::vespa::{is_dimension_name, write_json, EncodeOptions, Tensor as VespaTensor};
use einrow::kernel::RunOptions;
use einrow::numpy::{einsum_with, time_runs};
use einrow::project::{plan_einsum, run_plan, Concrete, IndexPlan};
use einrow::tensor::{DType, Tensor};
use einrow::{Coded, ErrorCode, Span};

use crate::out::{error, Out};

/// `--threads` may ask for at most this many worker threads per available CPU.
pub const THREADS_PER_CPU: usize = 4;

/// Arguments of `einrow run`.
#[derive(clap::Args)]
pub struct Args {
    /// numpy subscripts (`ij,jk->ik`), an OCANNL spec (`ij;jk=>ik`), or with `--named` the
    /// output dimension names (`x,y`).
    spec: String,
    /// Operands: nested JSON arrays or Vespa literals; `@path` reads a file (at most 1 GiB).
    operands: Vec<String>,
    /// A random operand of these sizes (`512,512`), after the given operands (repeatable).
    #[arg(long = "random")]
    random: Vec<String>,
    /// Storage type of random operands: f64, f32, f16, bf16, or numpy's name of any of them
    /// (integer and bool types hold the random values truncated toward zero).
    #[arg(long, default_value = "f64")]
    dtype: String,
    /// Time N runs after a warm-up and print `median: <ms> ms`.
    #[arg(long)]
    bench: Option<usize>,
    /// Worker threads (default: one per CPU). At most 4 per available CPU: a larger count is
    /// an error (each thread is an OS thread with its own stack).
    #[arg(long)]
    threads: Option<usize>,
    /// Print the indexing plan.
    #[arg(long)]
    plan: bool,
    /// Print the result as a Vespa literal with these dimension names (comma-separated; each
    /// letters, digits and `_`, as Vespa's type specs require).
    #[arg(long)]
    vespa_names: Option<String>,
    /// With `--vespa-names`: print Vespa's constant-tensor JSON instead of the literal.
    #[arg(long, requires = "vespa_names")]
    vespa_json: bool,
    /// Operands are Vespa tensors joined on equal dimension names; SPEC names the output's.
    #[arg(long)]
    named: bool,
}

/// Runs `einrow run`.
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    let threads = match thread_count(args.threads) {
        Ok(n) => n,
        Err((code, msg)) => return fail(code, &msg),
    };
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(threads).build() {
        Ok(p) => p,
        Err(e) => return fail("io", &e.to_string()),
    };
    pool.install(|| match execute(args, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, msg)) => fail(code, &msg),
    })
}

/// The pool size for `--threads`: 0 (rayon's default, one per CPU) when not given; above
/// [`THREADS_PER_CPU`] per available CPU a `value` error that states the cap.
fn thread_count(asked: Option<usize>) -> Result<usize, Failure> {
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let cap = cpus.saturating_mul(THREADS_PER_CPU);
    match asked {
        Some(n) if n > cap => Err((
            "value",
            format!(
                "--threads {n} is above the cap of {cap} ({THREADS_PER_CPU} per available CPU, \
                 {cpus} here)"
            ),
        )),
        Some(n) => Ok(n),
        None => Ok(0),
    }
}

fn fail(code: &str, msg: &str) -> ExitCode {
    error(&format!("error[{code}]: {msg}"));
    ExitCode::from(1)
}

type Failure = (&'static str, String);

fn coded<E: Coded + std::fmt::Display>(e: E) -> Failure {
    (e.code().as_str(), e.to_string())
}

/// A printing failure: a closed or failed standard output ends the process (see `out`).
fn printed(out: &mut Out, r: Result<(), ConvertError>) -> Result<(), Failure> {
    match r {
        Err(ConvertError::Io(e)) => out.fail(&e),
        other => other.map_err(coded),
    }
}

fn execute(args: &Args, out: &mut Out) -> Result<(), Failure> {
    if args.named {
        return run_named(args, out);
    }
    let operands = operands(args)?;
    let tensors: Vec<&Tensor> = operands.iter().map(|n| &n.tensor).collect();
    let opts = RunOptions::default();
    let ocannl = args.spec.contains("=>");
    let plan = if ocannl { Some(ocannl_plan(&args.spec, &tensors)?) } else { None };
    if args.plan {
        match &plan {
            Some(p) => write!(out, "{p}"),
            None => print_numpy_plan(out, &args.spec, &tensors)?,
        }
    }
    let compute = || -> Result<Tensor, Failure> {
        match &plan {
            Some(p) => {
                let data: Vec<Cow<[f64]>> =
                    tensors.iter().map(|t| f64_data(t)).collect::<Result<_, _>>()?;
                let refs: Vec<&[f64]> = data.iter().map(|d| &d[..]).collect();
                let out = run_plan(p, &refs).map_err(coded)?;
                let dims: Vec<usize> = p.result_dims.iter().map(|d| *d as usize).collect();
                Tensor::from_vec(&dims, out).map_err(coded)
            }
            None => einsum_with(&args.spec, &tensors, &opts).map_err(coded),
        }
    };
    if let Some(n) = args.bench {
        let timing = time_runs(n, n, Duration::ZERO, || compute().map(|_| ()))?;
        writeln!(out, "runs: {}, best: {:.3} ms", timing.runs, timing.best.as_secs_f64() * 1e3);
        writeln!(out, "median: {:.3} ms", timing.median.as_secs_f64() * 1e3);
        return Ok(());
    }
    let result = compute()?;
    print_result(out, &result, args.vespa_names.as_deref(), args.vespa_json)
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

/// The names of `--vespa-names`, each a Vespa dimension name (letters, digits and `_`): else a
/// `syntax` error with carets under the first bad one, so that every printed literal reads back.
fn vespa_names(text: &str) -> Result<Vec<String>, Failure> {
    let mut names = Vec::new();
    let mut at = 0;
    for part in text.split(',') {
        let name = part.trim();
        if !is_dimension_name(name) {
            let start = at + (part.len() - part.trim_start().len());
            let span = Span::new(start, start + name.len());
            let message = format!(
                "--vespa-names: '{name}' is not a dimension name (one or more letters, digits \
                 and '_')"
            );
            let shown =
                render(text, ErrorCode::Syntax, &message, &[Label { span, note: "".into() }]);
            let body = shown.split_once("]: ").map_or(shown.as_str(), |(_, b)| b);
            return Err(("syntax", body.trim_end().to_string()));
        }
        names.push(name.to_string());
        at += part.len() + 1;
    }
    Ok(names)
}

/// Prints the result, streamed: nested JSON, or with `names` a Vespa literal (or Vespa JSON).
fn print_result(
    out: &mut Out,
    result: &Tensor,
    names: Option<&str>,
    json: bool,
) -> Result<(), Failure> {
    let Some(n) = names else {
        let written = write_nested_json(result, out);
        printed(out, written)?;
        writeln!(out);
        return Ok(());
    };
    let names = vespa_names(n)?;
    let v = to_vespa(result, &names).map_err(coded)?;
    if json {
        let opts = EncodeOptions { short_form: true, ..Default::default() };
        let written = write_json(&v, opts, out).map_err(ConvertError::from);
        printed(out, written)?;
    } else {
        // `Out` ends the process itself when a write fails.
        let _ = v.write_text(out);
    }
    writeln!(out);
    Ok(())
}

fn operands(args: &Args) -> Result<Vec<NamedTensor>, Failure> {
    let mut out = Vec::new();
    for text in &args.operands {
        let text = match text.strip_prefix('@') {
            Some(path) => {
                crate::input::read_text(path).map_err(|e| ("io", format!("{path}: {e}")))?
            }
            None => text.clone(),
        };
        out.push(read_tensor(&text).map_err(coded)?);
    }
    let dtype = DType::parse(&args.dtype).map_err(coded)?;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for dims in &args.random {
        let shape: Vec<usize> = dims
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.trim().parse().map_err(|_| ("syntax", format!("bad sizes {dims:?}"))))
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
fn ocannl_plan(spec: &str, tensors: &[&Tensor]) -> Result<IndexPlan, Failure> {
    let shapes: Vec<Concrete> = tensors
        .iter()
        .map(|t| Concrete::output(&t.shape().iter().map(|&d| d as u64).collect::<Vec<_>>()))
        .collect();
    let refs: Vec<&Concrete> = shapes.iter().collect();
    plan_einsum(spec, &refs).map_err(coded)
}

fn print_numpy_plan(out: &mut Out, spec: &str, tensors: &[&Tensor]) -> Result<(), Failure> {
    let parsed = einrow::spec::parse_numpy(spec).map_err(coded)?;
    let shapes: Vec<&[usize]> = tensors.iter().map(|t| t.shape()).collect();
    let an = einrow::numpy::analyze(&parsed, &shapes).map_err(coded)?;
    writeln!(out, "{an:#?}");
    Ok(())
}

fn run_named(args: &Args, out: &mut Out) -> Result<(), Failure> {
    let mut vs = Vec::new();
    for text in &args.operands {
        vs.push(VespaTensor::from_literal(text, None).map_err(coded)?);
    }
    let names: Vec<&str> = args.spec.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    let refs: Vec<&VespaTensor> = vs.iter().collect();
    let r = named_einsum(&names, &refs).map_err(coded)?;
    let _ = r.write_text(out);
    writeln!(out);
    Ok(())
}
