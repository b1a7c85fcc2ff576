//! What `einrow run` prints: the plan, timings or the result (its values, or its shape only
//! with `--no-values`), and its diagnostics; as text, or as one JSON document (`--json`, the
//! schema in the crate documentation, module einrow::diagnostic).

use std::process::ExitCode;

use einrow::diagnostic::Diagnostic;
use einrow::formats::convert::{to_vespa, write_nested_json, ConvertError};
use einrow::formats::vespa::{write_json, EncodeOptions, Tensor as VespaTensor};
use einrow::numpy::Timing;
use einrow::project::IndexPlan;
use einrow::tensor::Tensor;

use crate::out::Out;
use crate::report::{begin_document, end_document, failed_document, written};
use crate::run_cmd::Args;
use crate::run_errors::coded;
use crate::run_named::dimension_names;
use crate::run_plan::NumpyPlan;

/// A plan to print.
pub enum Plan {
    /// An OCANNL spec's loops.
    Index(IndexPlan),
    /// numpy subscripts' path and loops.
    Numpy(NumpyPlan),
}

/// A result.
pub enum Done {
    /// A dense tensor.
    Dense(Tensor),
    /// A Vespa tensor (`--named`).
    Named(VespaTensor),
}

/// What a run produced.
pub struct Outcome {
    pub plan: Option<Plan>,
    pub timing: Option<Timing>,
    pub result: Option<Done>,
}

type Failure = Box<Diagnostic>;

/// Prints the outcome (or the error) with the diagnostics; the exit status.
pub fn finish(
    args: &Args,
    out: &mut Out,
    outcome: Result<Outcome, Failure>,
    mut diags: Vec<Diagnostic>,
) -> ExitCode {
    let outcome = match outcome {
        Ok(o) => o,
        Err(d) => {
            diags.push(*d);
            out.set_status(1);
            if args.report.json {
                failed_document(out, "run", &diags);
            } else {
                args.report.print(&diags, true);
            }
            return ExitCode::from(1);
        }
    };
    let printed = if args.report.json {
        json(args, out, &outcome, &diags)
    } else {
        text(args, out, &outcome, &diags)
    };
    match printed {
        Ok(()) => ExitCode::SUCCESS,
        Err(d) => finish(args, out, Err(d), Vec::new()),
    }
}

fn text(args: &Args, out: &mut Out, o: &Outcome, diags: &[Diagnostic]) -> Result<(), Failure> {
    args.report.print(diags, true);
    match &o.plan {
        Some(Plan::Index(p)) => write!(out, "{p}"),
        Some(Plan::Numpy(p)) => write!(out, "{p}"),
        None => {}
    }
    if let Some(t) = &o.timing {
        writeln!(out, "runs: {}, best: {:.3} ms", t.runs, t.best.as_secs_f64() * 1e3);
        writeln!(out, "median: {:.3} ms", t.median.as_secs_f64() * 1e3);
    }
    match &o.result {
        Some(Done::Dense(t)) if args.no_values => writeln!(out, "shape: {:?}", t.shape()),
        Some(Done::Dense(t)) => print_dense(out, t, args.vespa_names.as_deref(), args.vespa_json)?,
        Some(Done::Named(v)) if args.no_values => writeln!(out, "type: {}", v.tensor_type()),
        Some(Done::Named(v)) => {
            // `Out` ends the process itself when a write fails.
            let _ = v.write_text(out);
            writeln!(out);
        }
        None => {}
    }
    Ok(())
}

/// The document: `"shape"` (or `"type"`), `"values"`, `"plan"` and `"timing"`, as there are,
/// in the envelope.
fn json(args: &Args, out: &mut Out, o: &Outcome, diags: &[Diagnostic]) -> Result<(), Failure> {
    begin_document(out, "run");
    match &o.result {
        Some(Done::Dense(t)) => {
            write!(out, ",\"shape\":{}", serde_json::json!(t.shape()));
            if !args.no_values {
                write!(out, ",\"values\":");
                let r = write_nested_json(t, out);
                printed(out, r)?;
            }
        }
        Some(Done::Named(v)) => {
            write!(out, ",\"type\":");
            let r = einrow::diagnostic::write_json_str(out, &v.tensor_type().to_string());
            written(out, r);
            if !args.no_values {
                write!(out, ",\"values\":");
                let opts = EncodeOptions { short_form: true, ..Default::default() };
                let r = write_json(v, opts, out).map_err(ConvertError::from);
                printed(out, r)?;
            }
        }
        None => {}
    }
    match &o.plan {
        Some(Plan::Index(p)) => write!(out, ",\"plan\":{}", p.to_json()),
        Some(Plan::Numpy(p)) => write!(out, ",\"plan\":{}", p.to_json()),
        None => {}
    }
    if let Some(t) = &o.timing {
        let (best, median) = (t.best.as_secs_f64() * 1e3, t.median.as_secs_f64() * 1e3);
        let timing = serde_json::json!({"runs": t.runs, "best_ms": best, "median_ms": median});
        write!(out, ",\"timing\":{timing}");
    }
    end_document(out, true, diags);
    Ok(())
}

/// A printing failure: a closed or failed standard output ends the process (see `out`).
fn printed(out: &mut Out, r: Result<(), ConvertError>) -> Result<(), Failure> {
    match r {
        Err(ConvertError::Io(e)) => out.fail(&e),
        other => other.map_err(coded),
    }
}

/// Prints a dense result, streamed: nested JSON, or with `names` a Vespa literal (or Vespa
/// JSON).
fn print_dense(
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
    let names: Vec<String> =
        dimension_names(n, "--vespa-names")?.into_iter().map(|(name, _)| name).collect();
    let v = to_vespa(result, &names).map_err(coded)?;
    if json {
        let opts = EncodeOptions { short_form: true, ..Default::default() };
        let written = write_json(&v, opts, out).map_err(ConvertError::from);
        printed(out, written)?;
    } else {
        let _ = v.write_text(out);
    }
    writeln!(out);
    Ok(())
}
