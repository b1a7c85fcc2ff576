//! `einrow parse SPEC`.

use std::process::ExitCode;

use einrow::diagnostic::{render, Label};
use einrow::spec::{parse_einsum, parse_labels, parse_numpy, SpecError};
use einrow::Coded;

use crate::out::{error, Out};

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
    /// Print the ROWS structure of the case format (einrow::check::format) as JSON instead of
    /// the canonical text.
    #[arg(long)]
    json: bool,
}

/// Runs `einrow parse`.
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    let result = if args.numpy {
        parse_numpy(&args.spec).map(|s| (s.to_string(), numpy_json(&s)))
    } else if args.einsum {
        parse_einsum(&args.spec).map(|s| (s.to_string(), s.to_json()))
    } else {
        parse_labels(&args.spec).map(|s| (s.to_string(), s.to_json()))
    };
    match result {
        Ok((text, json)) => {
            if args.json {
                writeln!(out, "{json}");
            } else {
                writeln!(out, "{text}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            error(&render_spec_error(&args.spec, &e));
            ExitCode::from(1)
        }
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

/// Renders a spec error with carets under the spec text.
pub fn render_spec_error(spec: &str, e: &SpecError) -> String {
    let mut labels = vec![Label { span: e.span(), note: String::new() }];
    labels.extend(e.related().into_iter().map(|(span, note)| Label { span, note: note.into() }));
    render(spec, e.code(), &e.to_string(), &labels)
}
