//! `einrow run SPEC OPERAND...`: execute a numpy einsum (`ij,jk->ik`) or an OCANNL spec
//! (`ij;jk=>ik`) on given or random tensors; print the result, the plan, or timings.

use std::process::ExitCode;
use std::time::Duration;

use einrow::formats::convert::{named_einsum, read_tensor, to_nested_json, to_vespa, NamedTensor};
use einrow::formats::vespa::Tensor as VespaTensor;
use einrow::kernel::RunOptions;
use einrow::numpy::{einsum_with, time_runs};
use einrow::project::{plan_einsum, run_plan, Concrete, IndexPlan};
use einrow::tensor::{DType, Tensor};
use einrow::Coded;

/// Arguments of `einrow run`.
#[derive(clap::Args)]
pub struct Args {
    /// numpy subscripts (`ij,jk->ik`), an OCANNL spec (`ij;jk=>ik`), or with `--named` the
    /// output dimension names (`x,y`).
    spec: String,
    /// Operands: nested JSON arrays or Vespa literals; `@path` reads a file.
    operands: Vec<String>,
    /// A random operand of these sizes (`512,512`), after the given operands (repeatable).
    #[arg(long = "random")]
    random: Vec<String>,
    /// Storage type of random operands: f64, f32, bf16, int8.
    #[arg(long, default_value = "f64")]
    dtype: String,
    /// Time N runs after a warm-up and print `median: <ms> ms`.
    #[arg(long)]
    bench: Option<usize>,
    /// Worker threads (default: rayon's).
    #[arg(long)]
    threads: Option<usize>,
    /// Print the indexing plan.
    #[arg(long)]
    plan: bool,
    /// Print the result as a Vespa literal with these dimension names (comma-separated).
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
pub fn run(args: &Args) -> ExitCode {
    let pool = match rayon::ThreadPoolBuilder::new().num_threads(args.threads.unwrap_or(0)).build()
    {
        Ok(p) => p,
        Err(e) => return fail("io", &e.to_string()),
    };
    pool.install(|| match execute(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err((code, msg)) => fail(code, &msg),
    })
}

fn fail(code: &str, msg: &str) -> ExitCode {
    eprintln!("error[{code}]: {msg}");
    ExitCode::from(1)
}

type Failure = (&'static str, String);

fn coded<E: Coded + std::fmt::Display>(e: E) -> Failure {
    (e.code().as_str(), e.to_string())
}

fn execute(args: &Args) -> Result<(), Failure> {
    if args.named {
        return run_named(args);
    }
    let operands = operands(args)?;
    let tensors: Vec<&Tensor> = operands.iter().map(|n| &n.tensor).collect();
    let opts = RunOptions::default();
    let ocannl = args.spec.contains("=>");
    let plan = if ocannl { Some(ocannl_plan(&args.spec, &tensors)?) } else { None };
    if args.plan {
        match &plan {
            Some(p) => print!("{p}"),
            None => print_numpy_plan(&args.spec, &tensors)?,
        }
    }
    let compute = || -> Result<Tensor, Failure> {
        match &plan {
            Some(p) => {
                let data: Vec<Vec<f64>> = tensors.iter().map(|t| t.to_f64_vec()).collect();
                let refs: Vec<&[f64]> = data.iter().map(Vec::as_slice).collect();
                let out = run_plan(p, &refs).map_err(coded)?;
                let dims: Vec<usize> = p.result_dims.iter().map(|d| *d as usize).collect();
                Tensor::from_vec(&dims, out).map_err(coded)
            }
            None => einsum_with(&args.spec, &tensors, &opts).map_err(coded),
        }
    };
    if let Some(n) = args.bench {
        let timing = time_runs(n, n, Duration::ZERO, || compute().map(|_| ()))?;
        println!("runs: {}, best: {:.3} ms", timing.runs, timing.best.as_secs_f64() * 1e3);
        println!("median: {:.3} ms", timing.median.as_secs_f64() * 1e3);
        return Ok(());
    }
    let result = compute()?;
    print_result(&result, args.vespa_names.as_deref(), args.vespa_json)
}

fn print_result(result: &Tensor, names: Option<&str>, json: bool) -> Result<(), Failure> {
    match names {
        Some(n) => {
            let names: Vec<String> = n.split(',').map(|s| s.trim().to_string()).collect();
            let v = to_vespa(result, &names).map_err(coded)?;
            if json {
                let opts = einrow::formats::vespa::EncodeOptions {
                    short_form: true,
                    ..Default::default()
                };
                println!("{}", einrow::formats::vespa::encode_json(&v, opts));
            } else {
                println!("{}", v.to_text());
            }
        }
        None => println!("{}", to_nested_json(result)),
    }
    Ok(())
}

fn operands(args: &Args) -> Result<Vec<NamedTensor>, Failure> {
    let mut out = Vec::new();
    for text in &args.operands {
        let text = match text.strip_prefix('@') {
            Some(path) => {
                std::fs::read_to_string(path).map_err(|e| ("io", format!("{path}: {e}")))?
            }
            None => text.clone(),
        };
        out.push(read_tensor(&text).map_err(coded)?);
    }
    let dtype = DType::from_name(&args.dtype)
        .ok_or(("value", format!("unknown dtype {:?}", args.dtype)))?;
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for dims in &args.random {
        let shape: Vec<usize> = dims
            .split(',')
            .filter(|s| !s.trim().is_empty())
            .map(|s| s.trim().parse().map_err(|_| ("syntax", format!("bad sizes {dims:?}"))))
            .collect::<Result<_, _>>()?;
        let n = einrow::tensor::numel(&shape).map_err(coded)?;
        let data: Vec<f64> = (0..n).map(|_| random_unit(&mut seed)).collect();
        let tensor = Tensor::from_f64s(dtype, &shape, &data).map_err(coded)?;
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

fn print_numpy_plan(spec: &str, tensors: &[&Tensor]) -> Result<(), Failure> {
    let parsed = einrow::spec::parse_numpy(spec).map_err(coded)?;
    let shapes: Vec<&[usize]> = tensors.iter().map(|t| t.shape()).collect();
    let an = einrow::numpy::analyze(&parsed, &shapes).map_err(coded)?;
    println!("{an:#?}");
    Ok(())
}

fn run_named(args: &Args) -> Result<(), Failure> {
    let mut vs = Vec::new();
    for text in &args.operands {
        vs.push(VespaTensor::from_literal(text, None).map_err(coded)?);
    }
    let out: Vec<&str> = args.spec.split(',').map(str::trim).filter(|s| !s.is_empty()).collect();
    let refs: Vec<&VespaTensor> = vs.iter().collect();
    let r = named_einsum(&out, &refs).map_err(coded)?;
    println!("{}", r.to_text());
    Ok(())
}
