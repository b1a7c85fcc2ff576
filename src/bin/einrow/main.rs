//! The `einrow` command-line tool.
//!
//! Every subcommand writes its results through [`out::Out`]: buffered, streamed as they are
//! produced, and a closed standard output ends the command quietly (see the `out` module).

mod check_cmd;
mod explain_cmd;
mod fuzz_cmd;
mod infer_cmd;
mod input;
mod out;
mod parse_cmd;
mod path_cmd;
mod report;
mod run_cmd;
mod run_errors;
mod run_named;
mod run_output;
mod run_plan;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// einrow: parse, infer, plan and run tensor specs.
#[derive(Parser)]
#[command(name = "einrow", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Parse a labels spec (default), an einsum spec or numpy subscripts and print it.
    Parse(parse_cmd::Args),
    /// Run conformance case files (format: einrow::check::format) and report failures.
    Check(check_cmd::Args),
    /// Infer every tensor's shape in a program (text format or an `infer` case).
    Infer(infer_cmd::Args),
    /// Fuzz shape inference, the spec parsers, or einsum against numpy; writes failing cases.
    Fuzz(fuzz_cmd::Args),
    /// Execute a spec on given or random tensors (result, plan, or timings).
    Run(run_cmd::Args),
    /// Plan an einsum's contraction path and report its FLOPs (numpy's einsum_path).
    Path(path_cmd::Args),
    /// Explain a diagnostic's code (`einrow explain mismatch`), with an example; without a
    /// code, list every code.
    Explain(explain_cmd::Args),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let mut out = out::Out::stdout();
    let code = match cli.command {
        Command::Parse(args) => parse_cmd::run(&args, &mut out),
        Command::Check(args) => check_cmd::run(&args, &mut out),
        Command::Infer(args) => infer_cmd::run(&args, &mut out),
        Command::Fuzz(args) => fuzz_cmd::run(&args, &mut out),
        Command::Run(args) => run_cmd::run(&args, &mut out),
        Command::Path(args) => path_cmd::run(&args, &mut out),
        Command::Explain(args) => explain_cmd::run(&args, &mut out),
    };
    out.flush();
    code
}
