//! `einrow check PATH...`: the conformance runner contract of FORMAT.md.

use std::path::PathBuf;
use std::process::ExitCode;

use einrow::check::{collect_files, run_file};

/// Arguments of `einrow check`.
#[derive(clap::Args)]
pub struct Args {
    /// Case files, or folders holding `*.json` case files (subfolders included).
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
/// cannot be read.
pub fn run(args: &Args) -> ExitCode {
    let files = match collect_files(&args.paths) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("einrow check: {e}");
            return ExitCode::from(2);
        }
    };
    let keep = |k: &str| args.kinds.is_empty() || args.kinds.iter().any(|x| x == k);
    let (mut passed, mut failed) = (0usize, 0usize);
    let mut unreadable = false;
    for file in files {
        let results = match run_file(&file, &keep) {
            Ok(r) => r,
            Err(e) => {
                eprintln!("einrow check: {e}");
                unreadable = true;
                continue;
            }
        };
        for r in results {
            if args.json {
                println!("{}", r.to_json());
            } else if !r.pass {
                println!("FAIL {}:{}: {}", r.file, r.id, r.detail);
            }
            if r.pass {
                passed += 1;
            } else {
                failed += 1;
            }
        }
    }
    println!("{passed} passed, {failed} failed");
    if unreadable {
        ExitCode::from(2)
    } else if failed > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    }
}
