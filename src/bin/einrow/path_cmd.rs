//! `einrow path SUBSCRIPTS SHAPE...`: plan an einsum's contraction path and print its costs
//! (numpy's `einsum_path` table; with `--json` only the document, the report as `report`).

use std::process::ExitCode;

use crate::out::Out;
use crate::report::{begin_document, end_document, ReportArgs};
use crate::run_errors::numpy_error;

use einrow::diagnostic::{Diagnostic, Location};
use einrow::numpy::{einsum_path, MemoryLimit, Optimize, PathOptions};
use einrow::{Coded, ErrorCode, Span};

/// Arguments of `einrow path`.
#[derive(clap::Args)]
pub struct Args {
    /// numpy subscripts (`ij,jk,kl->il`).
    subscripts: String,
    /// Each operand's shape: comma-separated sizes (`512,512`; an empty string for a scalar).
    shapes: Vec<String>,
    /// greedy, optimal, dp, auto, or an explicit path such as `[[1,2],[0,1]]`.
    #[arg(long, default_value = "auto")]
    optimize: String,
    /// The most elements an intermediate may hold (a number, or `max_input`).
    #[arg(long)]
    memory_limit: Option<String>,
    #[command(flatten)]
    report: ReportArgs,
}

/// Runs `einrow path`.
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    match execute(args, out) {
        Ok(()) => ExitCode::SUCCESS,
        Err(d) => {
            out.set_status(1);
            if args.report.json {
                begin_document(out, "path");
                write!(out, ",\"report\":null");
                end_document(out, false, &[*d]);
            } else {
                args.report.print(&[*d], false);
            }
            ExitCode::from(1)
        }
    }
}

fn execute(args: &Args, out: &mut Out) -> Result<(), Box<Diagnostic>> {
    let mut shapes = Vec::with_capacity(args.shapes.len());
    for text in &args.shapes {
        shapes.push(shape(text)?);
    }
    let (optimize, spans) = Optimize::parse_with_spans(&args.optimize)
        .map_err(|e| located(&args.optimize, e.code(), &e.to_string(), e.span()))?;
    let mut opts = PathOptions::new(optimize);
    if let Some(text) = &args.memory_limit {
        let limit = MemoryLimit::parse(text)
            .map_err(|e| located(text, e.code(), &e.to_string(), e.span()))?;
        opts = opts.memory_limit(limit);
    }
    let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let report = einsum_path(&args.subscripts, &refs, &opts)
        .map_err(|e| numpy_error(&args.subscripts, &refs, e, (&args.optimize, &spans)))?;
    if args.report.json {
        begin_document(out, "path");
        write!(out, ",\"report\":{}", report.to_json());
        end_document(out, true, &[]);
    } else {
        writeln!(out, "{report}");
    }
    Ok(())
}

/// Comma-separated sizes; empty text is a scalar's shape.
fn shape(text: &str) -> Result<Vec<usize>, Box<Diagnostic>> {
    let mut dims = Vec::new();
    let mut start = 0;
    for part in text.split(',') {
        let span = Span::new(start, start + part.len());
        start += part.len() + 1;
        if part.trim().is_empty() && text.trim().is_empty() {
            continue;
        }
        let dim = part.trim().parse().map_err(|_| {
            located(text, ErrorCode::Syntax, "a shape is comma-separated sizes", Some(span))
        })?;
        dims.push(dim);
    }
    Ok(dims)
}

fn located(source: &str, code: ErrorCode, message: &str, span: Option<Span>) -> Box<Diagnostic> {
    let d = Diagnostic::error(code, message);
    Box::new(match span {
        Some(s) => d.at(Location::in_text(source, s)),
        None => d,
    })
}
