//! `einrow check PATH...`: the conformance runner contract of FORMAT.md.

use std::path::PathBuf;
use std::process::ExitCode;

use einrow::check::{collect_files, run_file_with, RunError};
use einrow::diagnostic::{Diagnostic, Location};

use crate::out::Out;
use crate::report::{begin_document, end_document, ReportArgs};

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
    #[command(flatten)]
    report: ReportArgs,
}

/// Runs `einrow check`: exit 0 when every case passed, 1 when some failed, 2 when a file
/// cannot be read. Each case's line is printed as soon as the case has run (with `--json`,
/// each case is streamed into the document's `cases` list); a case that fails (an error, a
/// result too large to allocate) does not stop the others.
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    let json = args.report.json;
    if json {
        begin_document(out, "check");
        write!(out, ",\"cases\":[");
    }
    let mut unreadable: Vec<Diagnostic> = Vec::new();
    let (mut passed, mut failed) = (0usize, 0usize);
    match collect_files(&args.paths) {
        Ok(files) => {
            let keep = |k: &str| args.kinds.is_empty() || args.kinds.iter().any(|x| x == k);
            for file in files {
                let mut report = |r: einrow::check::CaseResult| {
                    if json {
                        let sep = if passed + failed > 0 { "," } else { "" };
                        write!(out, "{sep}{}", r.to_json());
                    } else if !r.pass {
                        writeln!(out, "FAIL {}:{}: {}", r.file, r.id, r.detail);
                    }
                    if r.pass {
                        passed += 1;
                    } else {
                        failed += 1;
                        if unreadable.is_empty() {
                            out.set_status(1);
                        }
                    }
                };
                if let Err(e) = run_file_with(&file, &keep, &mut report) {
                    unreadable.push(unreadable_file(&e));
                    out.set_status(2);
                }
            }
        }
        Err(e) => unreadable.push(unreadable_file(&e)),
    }
    let counts = (passed, failed, unreadable.len());
    summary(args, out, counts, &unreadable);
    if !unreadable.is_empty() {
        ExitCode::from(2)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}

/// A file (or the list of paths) that cannot be read, or is no case file, as a diagnostic at
/// that file: `io` or `syntax`, as `einrow infer` says of the same file.
fn unreadable_file(e: &RunError) -> Diagnostic {
    let at = Location { file: Some(e.path.clone()), ..Location::default() };
    Diagnostic::error(e.code, e.to_string()).at(at)
}

/// The closing line `N passed, M failed` after the unreadable files' diagnostics, or with
/// `--json` the end of the document: the `summary` object, `ok` and the diagnostics.
fn summary(
    args: &Args,
    out: &mut Out,
    (passed, failed, unreadable): (usize, usize, usize),
    diags: &[Diagnostic],
) {
    if args.report.json {
        let s = serde_json::json!({"passed": passed, "failed": failed, "unreadable": unreadable});
        write!(out, "],\"summary\":{s}");
        end_document(out, failed == 0 && unreadable == 0, diags);
    } else {
        out.flush();
        args.report.print(diags, false);
        writeln!(out, "{passed} passed, {failed} failed");
    }
}
