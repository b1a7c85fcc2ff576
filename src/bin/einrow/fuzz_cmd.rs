//! `einrow fuzz [infer|specs|numpy]`: runs the fuzzing campaigns of `einrow::fuzzing` for a
//! count or a time, and writes every (shrunk) failure as a FORMAT.md case file (plus, for
//! programs, einrow's program text) into a directory.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::Duration;

use einrow::fuzzing::campaign::{
    check_oracle_case, fuzz_programs, fuzz_specs, numpy_problems, Budget, Found, ProgramOptions,
    Stats,
};
use einrow::fuzzing::case_file::{program_text, suite};
use einrow::fuzzing::gen::MAX_STEPS;
use einrow::fuzzing::work::WorkBudget;
use einrow::fuzzing::GenConfig;
use serde_json::Value;

use crate::out::{error, Out};

/// What to fuzz.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Target {
    /// Shape inference on random well-formed programs (checker, determinism, order).
    Infer,
    /// The spec parsers on random and near-valid text (round trips, no panics).
    Specs,
    /// Differential: numpy-mode einsum cases through the numpy oracle, compared with einrow.
    Numpy,
}

/// Arguments of `einrow fuzz`.
#[derive(clap::Args)]
pub struct Args {
    /// What to fuzz.
    #[arg(value_enum, default_value = "infer")]
    target: Target,
    /// Most inputs to try.
    #[arg(long, default_value_t = 1000)]
    count: u64,
    /// Most seconds to run (stops at whichever of --count and --time comes first).
    #[arg(long)]
    time: Option<u64>,
    /// Seed of the random inputs (default: from the clock); the same seed repeats a run.
    #[arg(long)]
    seed: Option<u64>,
    /// Where failing cases are written.
    #[arg(long, default_value = "fuzz-failures")]
    out: PathBuf,
    /// infer: declare some leaves with row variables or no shape (the solver must infer them).
    #[arg(long)]
    open: bool,
    /// infer: also require programs whose open rows get capped to solve, order-independently.
    #[arg(long)]
    strict: bool,
    /// infer: also generate the patterns of the open solver issues (see tests/regressions.rs).
    #[arg(long)]
    known_issues: bool,
    /// infer: do not run solved programs through the kernel against the naive evaluator.
    #[arg(long)]
    no_exec: bool,
    /// infer: the solver work a program may take per byte of its text (plus 1000 for any
    /// program); a program over it is a `slow` failure (inference must be about linear).
    #[arg(long, default_value_t = WorkBudget::default().per_byte)]
    work_per_byte: u64,
    /// infer: most operations per program (1 to 1000).
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u64).range(1..=MAX_STEPS as u64))]
    max_steps: u64,
    /// numpy: an oracle script to use instead of the one built in (tools/numpy_oracle.py of
    /// the repository: a JSON list of requests on standard input, a list of cases out).
    #[arg(long)]
    oracle: Option<PathBuf>,
    /// numpy: the Python 3 interpreter, with numpy installed.
    #[arg(long, default_value = "python3")]
    python: String,
}

/// Runs `einrow fuzz`: exit 0 when nothing failed, 1 when something did, 2 on a setup error.
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    let seed = args.seed.unwrap_or_else(clock_seed);
    if let Err(e) = std::fs::create_dir_all(&args.out) {
        error(&format!("einrow fuzz: {}: {e}", args.out.display()));
        return ExitCode::from(2);
    }
    let budget = Budget { count: args.count, time: args.time.map(Duration::from_secs) };
    writeln!(out, "einrow fuzz {:?}: seed {seed}", args.target);
    // Panics are caught and reported as failures; keep the default hook's noise out.
    std::panic::set_hook(Box::new(|_| {}));
    let mut writer = Writer { dir: &args.out, target: args.target, seed, written: 0, out };
    let stats = match args.target {
        Target::Infer => {
            fuzz_programs(&program_options(args), seed, budget, &mut |f| writer.found(f))
        }
        Target::Specs => fuzz_specs(seed, budget, &mut |f| writer.found(f)),
        Target::Numpy => match fuzz_numpy(args, seed, budget, &mut writer) {
            Ok(s) => s,
            Err(e) => {
                let _ = std::panic::take_hook();
                error(&format!("einrow fuzz: {e}"));
                return ExitCode::from(2);
            }
        },
    };
    let _ = std::panic::take_hook();
    let out = writer.out;
    print_stats(out, args.target, &stats);
    if stats.failures == 0 {
        ExitCode::SUCCESS
    } else {
        writeln!(out, "failing cases written to {}", args.out.display());
        ExitCode::from(1)
    }
}

fn program_options(args: &Args) -> ProgramOptions {
    let gen = GenConfig {
        max_steps: usize::try_from(args.max_steps).unwrap_or(MAX_STEPS),
        open_leaves: args.open,
        avoid_known_issues: !args.known_issues,
        ..GenConfig::default()
    };
    let work = WorkBudget { per_byte: args.work_per_byte, ..WorkBudget::default() };
    ProgramOptions {
        gen,
        strict: args.strict,
        execute: !args.no_exec,
        work,
        ..ProgramOptions::default()
    }
}

fn clock_seed() -> u64 {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    now.map_or(0, |d| d.as_secs() ^ u64::from(d.subsec_nanos()))
}

fn print_stats(out: &mut Out, target: Target, s: &Stats) {
    match target {
        Target::Infer => writeln!(
            out,
            "{} programs ({} operations): {} solved, {} rejected; {} with opened leaves, {} with \
             capped rows, {} reordered, {} executed; {} failures",
            s.inputs,
            s.steps,
            s.solved,
            s.rejected,
            s.opened,
            s.capped,
            s.reordered,
            s.executed,
            s.failures
        ),
        Target::Specs => writeln!(out, "{} spec texts: {} failures", s.inputs, s.failures),
        Target::Numpy => writeln!(out, "{} numpy cases: {} failures", s.inputs, s.failures),
    }
}

/// Writes failures as case files (into `dir`) and reports them (on `out`).
struct Writer<'a> {
    dir: &'a Path,
    target: Target,
    seed: u64,
    written: usize,
    out: &'a mut Out,
}

impl Writer<'_> {
    fn found(&mut self, mut f: Found) {
        self.written += 1;
        let target = format!("{:?}", self.target).to_lowercase();
        let id = format!("{target}-{}-{}-{}", f.failure.kind.name(), self.seed, self.written);
        if let Value::Object(m) = &mut f.case {
            m.insert("id".into(), Value::String(id.clone()));
        }
        // From the first failure on, a closed output ends the run with the failing status.
        self.out.set_status(1);
        writeln!(self.out, "FAIL {id}: {}", f.failure);
        let about = format!("einrow fuzz {target} --seed {}", self.seed);
        let doc = suite("fuzz", &about, vec![f.case]);
        let path = self.dir.join(format!("{id}.json"));
        let text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        if let Err(e) = std::fs::write(&path, text + "\n") {
            error(&format!("einrow fuzz: {}: {e}", path.display()));
        }
        if !f.program.stmts.is_empty() || !f.program.decls.is_empty() {
            let note = format!("# {}\n", f.failure.to_string().replace('\n', " "));
            let _ = std::fs::write(
                self.dir.join(format!("{id}.ein")),
                note + &program_text(&f.program),
            );
            write!(self.out, "{}", program_text(&f.program));
        }
    }
}

/// Sends numpy problems to the oracle in batches and checks einrow on the cases it writes.
fn fuzz_numpy(args: &Args, seed: u64, budget: Budget, w: &mut Writer) -> Result<Stats, String> {
    let start = std::time::Instant::now();
    let mut stats = Stats::default();
    let mut batch_seed = seed;
    while stats.inputs < budget.count && budget.time.is_none_or(|t| start.elapsed() < t) {
        let n = (budget.count - stats.inputs).min(200);
        let problems = numpy_problems(batch_seed, n);
        batch_seed = batch_seed.wrapping_add(1);
        let requests: Vec<Value> = problems
            .iter()
            .enumerate()
            .map(|(i, p)| p.request(&format!("np-{seed}-{}", stats.inputs + i as u64)))
            .collect();
        for case in oracle(args, &Value::Array(requests))? {
            stats.inputs += 1;
            if let Err(failure) = check_oracle_case(&case) {
                stats.failures += 1;
                let program = Default::default();
                w.found(Found { failure, program, case });
            }
        }
    }
    Ok(stats)
}

/// The oracle built into the binary (tools/numpy_oracle.py).
const ORACLE: &str = include_str!("../../../tools/numpy_oracle.py");

/// The oracle's exit status when numpy cannot be imported.
const NO_NUMPY: i32 = 3;

/// Runs the oracle script on a list of requests; returns its list of cases. What is missing
/// (Python, numpy, the script given) is said, with what to do.
fn oracle(args: &Args, requests: &Value) -> Result<Vec<Value>, String> {
    let python = &args.python;
    let mut cmd = Command::new(python);
    let script = match &args.oracle {
        Some(path) if !path.is_file() => {
            return Err(format!("the oracle script {} does not exist", path.display()));
        }
        Some(path) => {
            cmd.arg(path);
            path.display().to_string()
        }
        None => {
            cmd.arg("-c").arg(ORACLE);
            "the built-in numpy oracle".to_string()
        }
    };
    let mut child =
        cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().map_err(
            |e| match e.kind() {
                std::io::ErrorKind::NotFound => format!(
                    "numpy fuzzing needs Python 3 with numpy: `{python}` was not found (install \
                 Python 3, or name an interpreter with --python)"
                ),
                _ => format!("cannot run {python}: {e}"),
            },
        )?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(requests.to_string().as_bytes()).map_err(|e| e.to_string())?;
    }
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.code() == Some(NO_NUMPY) && args.oracle.is_none() {
        return Err(format!(
            "numpy is not installed for `{python}`: install it (`{python} -m pip install numpy`), \
             or name an interpreter that has it with --python"
        ));
    }
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr);
        let why = why.trim().lines().last().unwrap_or("").to_string();
        return Err(format!("{script} failed ({}): {why}", out.status));
    }
    let v: Value = serde_json::from_slice(&out.stdout).map_err(|e| format!("{script}: {e}"))?;
    match v {
        Value::Array(cases) => Ok(cases),
        one @ Value::Object(_) => Ok(vec![one]),
        _ => Err(format!("{script} did not print a list of cases")),
    }
}
