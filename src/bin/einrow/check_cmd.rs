//! `einrow check PATH...`: the conformance runner contract of FORMAT.md.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use einrow::check::{collect_files, run_file_with};

use einrow::diagnostic::{write_json_str, Diagnostic};
use einrow::ErrorCode;

use crate::out::{error, Out};
use crate::report::{write_diagnostics, written};

/// Arguments of `einrow check`.
#[derive(clap::Args)]
pub struct Args {
    /// Case files, or folders holding `*.json` case files (subfolders included; symbolic links
    /// are followed, each folder and file visited once).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Run only the cases of this kind (repeatable).
    #[arg(long = "kind")]
    kinds: Vec<String>,
    /// Print one JSON object per case, one per unreadable file, and a summary object last
    /// (the schema in the crate documentation, module einrow::diagnostic).
    #[arg(long)]
    json: bool,
}

/// Runs `einrow check`: exit 0 when every case passed, 1 when some failed, 2 when a file
/// cannot be read. Each case's line is printed as soon as the case has run; a case that fails
/// (an error, a result too large to allocate) does not stop the others.
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    let files = match collect_files(&args.paths) {
        Ok(f) => f,
        Err(e) => {
            unreadable_file(args, out, None, &e.to_string());
            summary(args, out, (0, 0, 1));
            return ExitCode::from(2);
        }
    };
    let keep = |k: &str| args.kinds.is_empty() || args.kinds.iter().any(|x| x == k);
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut unreadable = 0usize;
    for file in files {
        let mut report = |r: einrow::check::CaseResult| {
            if args.json {
                writeln!(out, "{}", r.to_json());
            } else if !r.pass {
                writeln!(out, "FAIL {}:{}: {}", r.file, r.id, r.detail);
            }
            if r.pass {
                passed += 1;
            } else {
                failed += 1;
                if unreadable == 0 {
                    out.set_status(1);
                }
            }
        };
        if let Err(e) = run_file_with(&file, &keep, &mut report) {
            unreadable_file(args, out, Some(&file), &e.to_string());
            unreadable += 1;
            out.set_status(2);
        }
    }
    summary(args, out, (passed, failed, unreadable));
    if unreadable > 0 {
        ExitCode::from(2)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// Reports a file (or the list of paths) that cannot be read: on standard error, or with
/// `--json` as `{"file": ..., "diagnostics": [...]}`.
fn unreadable_file(args: &Args, out: &mut Out, file: Option<&Path>, message: &str) {
    if !args.json {
        out.flush();
        error(&format!("einrow check: {message}"));
        return;
    }
    let d = Diagnostic::error(ErrorCode::Io, message.to_string());
    write!(out, "{{\"file\":");
    match file {
        Some(f) => {
            let r = write_json_str(out, &f.display().to_string());
            written(out, r);
        }
        None => write!(out, "null"),
    }
    write!(out, ",");
    write_diagnostics(out, &[d]);
    writeln!(out, "}}");
}

/// The closing line: `N passed, M failed`, or with `--json` a summary object.
fn summary(args: &Args, out: &mut Out, (passed, failed, unreadable): (usize, usize, usize)) {
    if args.json {
        let s = serde_json::json!({"passed": passed, "failed": failed, "unreadable": unreadable});
        writeln!(out, "{}", serde_json::json!({ "summary": s }));
    } else {
        writeln!(out, "{passed} passed, {failed} failed");
    }
}
