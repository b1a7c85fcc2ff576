//! `einrow parse SPEC`.

use std::process::ExitCode;

use einrow::diagnostic::Diagnostic;
use einrow::lint::{einsum_lints, numpy_lints};
use einrow::spec::{parse_einsum, parse_labels, parse_numpy};

use crate::out::Out;
use crate::report::{begin_document, end_document, has_errors, ReportArgs};

/// Arguments of `einrow parse`.
#[derive(clap::Args)]
pub struct Args {
    /// The spec text.
    spec: String,
    /// Parse as an einsum spec (`rhs1;rhs2=>lhs`).
    #[arg(long, conflicts_with = "numpy")]
    einsum: bool,
    /// Parse as numpy einsum subscripts (`ij,jk->ik`).
    #[arg(long)]
    numpy: bool,
    /// With --einsum or --numpy: the number of operands the spec is for (a spec with another
    /// number of operand slots is an error, with a fix when `,` stands where `;` was meant).
    #[arg(long)]
    operands: Option<usize>,
    #[command(flatten)]
    report: ReportArgs,
}

/// Runs `einrow parse`: prints the canonical text (or, with `--json`, the document with the
/// spec's ROWS structure of the case format as `spec`); diagnostics go to standard error.
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    let (result, mut diags) = parse(args);
    args.report.apply(&mut diags);
    let failed = result.is_none() || has_errors(&diags);
    if args.report.json {
        begin_document(out, "parse");
        match result.filter(|_| !failed) {
            Some((_, rows)) => write!(out, ",\"spec\":{rows}"),
            None => write!(out, ",\"spec\":null"),
        }
        end_document(out, !failed, &diags);
    } else {
        args.report.print(&diags, false);
        if let (Some((canonical, _)), false) = (&result, failed) {
            writeln!(out, "{canonical}");
        }
    }
    if failed {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// The canonical text and ROWS JSON of the spec, or none; and its diagnostics.
fn parse(args: &Args) -> (Option<(String, serde_json::Value)>, Vec<Diagnostic>) {
    let text = args.spec.as_str();
    let parsed = if args.numpy {
        parse_numpy(text).map(|s| {
            let diags = args.operands.map(|n| numpy_lints(text, &s, n)).unwrap_or_default();
            ((s.to_string(), numpy_json(&s)), diags)
        })
    } else if args.einsum {
        parse_einsum(text)
            .map(|s| ((s.to_string(), s.to_json()), einsum_lints(text, &s, args.operands)))
    } else {
        parse_labels(text).map(|s| ((s.to_string(), s.to_json()), Vec::new()))
    };
    match parsed {
        Ok((result, diags)) => (Some(result), diags),
        Err(e) => (None, vec![e.to_diagnostic(text)]),
    }
}

fn numpy_json(spec: &einrow::spec::ast::NumpySpec) -> serde_json::Value {
    let term = |r: &einrow::spec::ast::Row| {
        let mut s: Vec<String> = r.leading.iter().map(|a| a.to_string()).collect();
        if r.ellipsis.is_some() {
            s.push("...".into());
        }
        s.extend(r.trailing.iter().map(|a| a.to_string()));
        s
    };
    serde_json::json!({
        "inputs": spec.inputs.iter().map(term).collect::<Vec<_>>(),
        "output": spec.output.as_ref().map(term),
    })
}
