//! `einrow infer FILE`: solve a program and print every tensor's shape.

use std::process::ExitCode;

use einrow::infer::explain::{render_error, to_dot};
use einrow::infer::program::Program;
use einrow::Coded;

use crate::out::{error, Out};

/// The program format in brief, printed after the options by `einrow infer --help`.
const PROGRAM_FORMAT: &str = "\
Program format (one statement per line, `#` starts a comment):
  tensor NAME[: SHAPE]      a leaf, e.g. `tensor x: ...|784` (batch unknown, 784 outputs)
  param NAME[: SHAPE]       a parameter: its unknowns are never guessed
  OUT = OP ARG...           an operation
  OUT = OP \"SPEC\" ARG...    an operation that takes a spec
SHAPE is `batch|input->output`, each axis a size (3), a size with a basis (rgb=3) or the
broadcast top (1!); `...` or `..name..` leaves a row open.

Operations (operand count, spec):
  pointwise (1-3), pointwise_un (1), pointwise3 (3)
                       elementwise, every operand broadcasting into the result
  compose (2)          the first's input row contracts with the second's output row
  transpose (1)        swaps the input and output rows
  batch_slice (1)      drops the leftmost batch axis
  permute (1, spec)    one operand: \"ij => ji\", \"ii => i\"
  einsum (2, spec)     \"ij;jk=>ik\", \"...|i->o; ...|o->h => ...|i->h\"
  einsum3 (3, spec)    \"ij;jk;kl=>il\"
  concat (n, spec)     along a `^` axis of the result: \"i;j=>i^j\"
  numpy (n, spec)      numpy einsum subscripts: \"...ij,...jk->...ik\"

Every operation is documented in one place: the module einrow::infer::program of the crate
documentation (`cargo doc --open`).";

/// Arguments of `einrow infer`.
#[derive(clap::Args)]
#[command(after_help = PROGRAM_FORMAT)]
pub struct Args {
    /// A program in einrow's text format, or an `infer` case as JSON (`-` for stdin; at most
    /// 1 GiB).
    file: String,
    /// Print the chain of constraints behind an error.
    #[arg(long)]
    explain: bool,
    /// Print the operation graph with solved shapes as Graphviz DOT instead.
    #[arg(long)]
    dot: bool,
}

/// Runs `einrow infer`.
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    let text = match crate::input::read_text(&args.file) {
        Ok(t) => t,
        Err(e) => {
            error(&format!("einrow infer: {}: {e}", args.file));
            return ExitCode::from(2);
        }
    };
    let is_case = text.trim_start().starts_with('{');
    let program = if is_case {
        serde_json::from_str(&text)
            .map_err(|e| format!("error[syntax]: {e}"))
            .and_then(|v| Program::from_case(&v).map_err(|e| format!("error[{}]: {e}", e.code())))
    } else {
        Program::parse_text(&text).map_err(|e| format!("error[{}]: {e}", e.code()))
    };
    let program = match program {
        Ok(p) => p,
        Err(e) => {
            error(&e);
            return ExitCode::from(1);
        }
    };
    let built = program.build();
    let (mut g, names) = (built.graph, built.names);
    if let Err((e, line)) = built.result {
        let mut message = render_error(Some(&g), &e, args.explain);
        if let Some(l) = line {
            // A declaration failed when not every declared name was recorded.
            let at = match (is_case, names.len() < program.decls.len()) {
                (false, _) => format!("line {l}"),
                (true, true) => format!("tensors[{l}]"),
                (true, false) => format!("steps[{l}]"),
            };
            message.push_str(&format!("  = at {at} of {}\n", args.file));
        }
        error(&message);
        return ExitCode::from(1);
    }
    if args.dot {
        write!(out, "{}", to_dot(&mut g));
        return ExitCode::SUCCESS;
    }
    for (name, id) in names {
        match g.shape_string(id) {
            Ok(s) => writeln!(out, "{name}: {s}"),
            Err(e) => writeln!(out, "{name}: {e}"),
        }
    }
    ExitCode::SUCCESS
}
