//! `einrow check PATH...`: the conformance runner contract of FORMAT.md.

use std::path::PathBuf;
use std::process::ExitCode;

use einrow::check::{collect_files, run_file_with};

use crate::out::{error, Out};

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
    /// Print one JSON object per case before the closing line.
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
            error(&format!("einrow check: {e}"));
            return ExitCode::from(2);
        }
    };
    let keep = |k: &str| args.kinds.is_empty() || args.kinds.iter().any(|x| x == k);
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut unreadable = false;
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
                if !unreadable {
                    out.set_status(1);
                }
            }
        };
        if let Err(e) = run_file_with(&file, &keep, &mut report) {
            out.flush();
            error(&format!("einrow check: {e}"));
            unreadable = true;
            out.set_status(2);
        }
    }
    writeln!(out, "{passed} passed, {failed} failed");
    if unreadable {
        ExitCode::from(2)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
