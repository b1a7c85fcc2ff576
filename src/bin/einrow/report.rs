//! Printing diagnostics: as text on standard error, or as JSON into a command's document on
//! standard output (the schema of `einrow::diagnostic`).

use std::io;

use einrow::diagnostic::{write_json_list, Diagnostic, Severity};

use crate::out::{error, Out};

/// Options every command that reports diagnostics shares.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct ReportArgs {
    /// Print the result and every diagnostic as JSON on standard output (the schema is in the
    /// crate documentation, module einrow::diagnostic).
    #[arg(long)]
    pub json: bool,
    /// Treat warnings (lints) as errors: they fail the command.
    #[arg(long)]
    pub deny_warnings: bool,
}

impl ReportArgs {
    /// Makes the warnings errors when `--deny-warnings` is given.
    pub fn apply(&self, diags: &mut [Diagnostic]) {
        if self.deny_warnings {
            for d in diags.iter_mut() {
                d.severity = Severity::Error;
            }
        }
    }
}

/// Whether any diagnostic is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// Writes diagnostics as text on standard error.
pub fn print_text(diags: &[Diagnostic], explain: bool) {
    for d in diags {
        error(&d.render_text(explain));
    }
}

/// Ends the process as `Out` does when writing JSON failed.
pub fn written(out: &mut Out, r: io::Result<()>) {
    if let Err(e) = r {
        out.fail(&e);
    }
}

/// Writes `"diagnostics":[...]` (the key and the list).
pub fn write_diagnostics(out: &mut Out, diags: &[Diagnostic]) {
    write!(out, "\"diagnostics\":");
    let r = write_json_list(out, diags);
    written(out, r);
}
