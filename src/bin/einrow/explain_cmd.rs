//! `einrow explain [CODE]`: the page of a diagnostic's code (an error code or a lint), or the
//! list of codes.

use std::process::ExitCode;

use einrow::diagnostic::explain::{codes, page, PAGES};
use einrow::diagnostic::{closest, Diagnostic};
use einrow::ErrorCode;

use crate::out::{error, Out};

/// Arguments of `einrow explain`.
#[derive(clap::Args)]
pub struct Args {
    /// The code, as a diagnostic prints it in brackets (`mismatch` of `error[mismatch]`) or a
    /// lint's name; without it, every code is listed.
    code: Option<String>,
}

/// Runs `einrow explain`: the page (exit 0), or an unknown code's error with the closest
/// code (exit 1).
pub fn run(args: &Args, out: &mut Out) -> ExitCode {
    let Some(code) = args.code.as_deref() else {
        for p in &PAGES {
            writeln!(out, "{:<17} {}", p.code, p.summary());
        }
        return ExitCode::SUCCESS;
    };
    let code = code.trim_start_matches("error[").trim_start_matches("warning[");
    let code = code.trim_end_matches(']');
    match page(code) {
        Some(p) => {
            write!(out, "{}", p.render());
            ExitCode::SUCCESS
        }
        None => {
            let mut d = Diagnostic::error(ErrorCode::Name, format!("no code `{code}`"));
            if let Some(near) = closest(code, codes()) {
                d = d.help(format!("did you mean `{near}`?"));
            }
            error(&d.note("`einrow explain` lists every code").render_text(false));
            ExitCode::from(1)
        }
    }
}
