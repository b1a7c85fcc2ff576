//! `einrow infer FILE`: check and solve a program, print every tensor's shape or explain why
//! it cannot be solved.

use std::process::ExitCode;

use einrow::diagnostic::{write_json_str, Diagnostic, Location, Source};
use einrow::infer::explain::{diagnose, solution_warnings, to_dot, to_dot_error, Context};
use einrow::infer::program::{Built, Program};
use einrow::lint::{check_program, LintLevels};
use einrow::ErrorCode;

use crate::out::Out;
use crate::report::{begin_document, end_document, has_errors, written, ReportArgs};

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

Lints (warnings with names: `einrow explain` lists them) are steered by --allow, --warn and
--deny, or by a comment `# einrow: allow(NAME)`: alone on its line for the whole program,
after a statement for that line.

Every operation is documented in one place: the module einrow::infer::program of the crate
documentation (`cargo doc --open`). Errors and warnings, and the JSON of --json, are
described in the module einrow::diagnostic.";

/// Arguments of `einrow infer`.
#[derive(clap::Args)]
#[command(after_help = PROGRAM_FORMAT)]
pub struct Args {
    /// A program in einrow's text format, or an `infer` case as JSON (`-` for stdin; at most
    /// 1 GiB).
    file: String,
    /// Explain an error: every declaration and step that carried each conflicting size, in
    /// order, with carets.
    #[arg(long)]
    explain: bool,
    /// Print the operation graph with its shapes as Graphviz DOT instead (on an error too: the
    /// steps and declarations of the error drawn in red).
    #[arg(long, conflicts_with = "json")]
    dot: bool,
    #[command(flatten)]
    report: ReportArgs,
}

/// Runs `einrow infer`: exit 0 when the program solves, 1 when it does not (or a warning is
/// denied), 2 when the file cannot be read.
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    let file = args.file.as_str();
    let text = match crate::input::read_text(file) {
        Ok(t) => t,
        Err(e) => {
            let d = Diagnostic::error(ErrorCode::Io, format!("{file}: {e}")).at(in_file(file));
            finish(args, out, &[d], None);
            return ExitCode::from(2);
        }
    };
    let is_case = text.trim_start().starts_with('{');
    let source = Source::new(&text);
    let source = (!is_case).then_some(&source);
    let program = match read_program(file, &text, source) {
        Ok(p) => p,
        Err(d) => {
            finish(args, out, &[d.in_file(file)], None);
            return ExitCode::from(1);
        }
    };
    let mut levels = match args.report.levels() {
        Ok(l) => l,
        Err(errors) => {
            finish(args, out, &errors, None);
            return ExitCode::from(1);
        }
    };
    let mut diags: Vec<Diagnostic> =
        if is_case { Vec::new() } else { levels.read_directives(&text) };
    // A case's places are pointers into it, found by what they are about.
    let case = Context { program: Some(&program), case: is_case, ..Context::default() };
    diags.extend(check_program(&program, source).into_iter().map(|d| case.positioned(d)));
    let diags: Vec<Diagnostic> = levels.apply(diags).into_iter().map(|d| d.in_file(file)).collect();
    if has_errors(&diags) {
        finish(args, out, &diags, None);
        return ExitCode::from(1);
    }
    let input = Input { file, program: &program, source, case: is_case };
    let code = solve(args, out, &input, &levels, diags);
    // The process ends next and the system takes its memory back at once: the program (and
    // the graph, forgotten in `solve`) are not freed one allocation at a time.
    std::mem::forget(program);
    code
}

/// A program read, with what is known of where it came from.
struct Input<'a> {
    file: &'a str,
    program: &'a Program,
    /// Its text (a text program); `None` for an `infer` case.
    source: Option<&'a Source<'a>>,
    case: bool,
}

impl<'a> Input<'a> {
    /// The context of explanations, about the failing place `line` (none after solving).
    fn context(&self, line: Option<usize>, declaration: bool) -> Context<'a> {
        Context {
            program: Some(self.program),
            source: self.source,
            file: Some(self.file),
            line,
            case: self.case,
            declaration,
            spec_alone: false,
        }
    }
}

/// Builds and solves the program; writes the shapes (or the graph) and every diagnostic:
/// the lints' so far in `diags`, the error, or the warnings of the solution at their levels.
fn solve(
    args: &Args,
    out: &mut Out,
    input: &Input,
    levels: &LintLevels,
    mut diags: Vec<Diagnostic>,
) -> ExitCode {
    let mut built = input.program.build();
    if let Err((e, line)) = &built.result {
        let declaration = built.names.len() < input.program.decls.len();
        let ctx = input.context(*line, declaration);
        let d = diagnose(&built.graph, e, &ctx).in_file(input.file);
        if args.dot {
            write!(out, "{}", to_dot_error(&built.graph, e));
        }
        diags.push(d);
        finish(args, out, &diags, None);
        return ExitCode::from(1);
    }
    let warned = levels.apply(solution_warnings(&built.graph, &input.context(None, false)));
    let denied = has_errors(&warned);
    diags.extend(warned);
    if denied {
        finish(args, out, &diags, None);
        return ExitCode::from(1);
    }
    if args.dot {
        write!(out, "{}", to_dot(&built.graph));
        finish(args, out, &diags, None);
    } else {
        finish(args, out, &diags, Some(&mut built));
    }
    // The graph holds millions of small allocations for a large program; the process ends
    // next and the system takes the memory back at once.
    std::mem::forget(built);
    ExitCode::SUCCESS
}

/// The program in `text`: an `infer` case (JSON) when `source` is `None`, else a text program.
fn read_program(
    file: &str,
    text: &str,
    source: Option<&Source>,
) -> Result<Program, Box<Diagnostic>> {
    match source {
        None => match einrow::check::read_case(text) {
            Err(e) => {
                let d = Diagnostic::error(ErrorCode::Syntax, format!("{file}: {e}"));
                Err(Box::new(d.at(in_file(file))))
            }
            Ok(None) => Err(Box::new(Diagnostic::error(
                ErrorCode::Resource,
                format!(
                    "{file}: the case holds more than {} JSON values (a guard on memory; split \
                     the program)",
                    einrow::check::MAX_CASE_VALUES
                ),
            ))),
            Ok(Some(v)) => Program::from_case(&v).map_err(|e| Box::new(e.to_diagnostic(None))),
        },
        Some(src) => Program::parse_text(text)
            .map_err(|e| Box::new(e.to_diagnostic(src.line(e.line).filter(|_| e.line > 0)))),
    }
}

/// The place of an error about the whole file.
fn in_file(file: &str) -> Location {
    Location { file: Some(file.to_string()), ..Location::default() }
}

/// Writes what is left to write: the shapes (with `built`), the diagnostics (text on
/// standard error, or the JSON document with the shapes as `tensors`).
fn finish(args: &Args, out: &mut Out, diags: &[Diagnostic], built: Option<&mut Built>) {
    if !args.report.json || args.dot {
        // With `--dot` the picture is on standard output: the diagnostics go to standard error.
        args.report.print(diags, args.explain);
        if let (Some(b), false) = (built, args.dot) {
            let g = &mut b.graph;
            for (name, id) in &b.names {
                match g.shape_string(*id) {
                    Ok(s) => writeln!(out, "{name}: {s}"),
                    Err(e) => writeln!(out, "{name}: {e}"),
                }
            }
        }
        return;
    }
    begin_document(out, "infer");
    write!(out, ",\"tensors\":[");
    let ok = built.is_some();
    if let Some(b) = built {
        write_tensors(out, b);
    }
    write!(out, "]");
    end_document(out, ok, diags);
}

/// Writes each tensor as `{"name": ..., "shape": ...}` (a shape that cannot be written is
/// `null`, with its `error`), separated by commas.
fn write_tensors(out: &mut Out, b: &mut Built) {
    let g = &mut b.graph;
    for (i, (name, id)) in b.names.iter().enumerate() {
        if i > 0 {
            write!(out, ",");
        }
        write!(out, "{{\"name\":");
        let r = write_json_str(out, name);
        written(out, r);
        match g.shape_string(*id) {
            Ok(s) => write!(out, ",\"shape\":\"{s}\"}}"),
            Err(e) => {
                write!(out, ",\"shape\":null,\"error\":");
                let r = write_json_str(out, &e.to_string());
                written(out, r);
                write!(out, "}}");
            }
        }
    }
}
