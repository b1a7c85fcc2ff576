//! Printing diagnostics: as text on standard error (in full, or one line each with
//! `--message-format short`), or as JSON in the command's one document on standard output
//! (the envelope and schema of `einrow::diagnostic`); and the lint levels of the command line.

use std::io;

use einrow::diagnostic::{write_json_list, Diagnostic, Level, JSON_VERSION};
use einrow::lint::LintLevels;

use crate::out::{error, Out};

/// How diagnostics are printed as text.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum MessageFormat {
    /// The message, the source with carets, notes and hints.
    #[default]
    Human,
    /// One line per diagnostic: `file:line:col: severity[code]: message`.
    Short,
}

/// Options every command that reports diagnostics shares.
#[derive(clap::Args, Clone, Debug, Default)]
pub struct ReportArgs {
    /// Print the result and every diagnostic as one JSON document on standard output (the
    /// envelope and schema are in docs/diagnostics.schema.json and the crate documentation,
    /// module einrow::diagnostic).
    #[arg(long)]
    pub json: bool,
    /// How diagnostics are printed as text: `human` (source and carets) or `short` (one line
    /// each, `file:line:col: severity[code]: message`).
    #[arg(long, value_enum, default_value_t = MessageFormat::Human)]
    pub message_format: MessageFormat,
    /// Treat warnings (lints) as errors: they fail the command (the same as `--deny warnings`).
    #[arg(long)]
    pub deny_warnings: bool,
    /// Do not report this lint (`warnings`: every lint); repeatable. `einrow explain` lists
    /// the lints.
    #[arg(long = "allow", value_name = "LINT")]
    pub allow: Vec<String>,
    /// Report this lint as a warning (`warnings`: every lint); repeatable.
    #[arg(long = "warn", value_name = "LINT")]
    pub warn: Vec<String>,
    /// Report this lint as an error, failing the command (`warnings`: every lint); repeatable.
    #[arg(long = "deny", value_name = "LINT")]
    pub deny: Vec<String>,
}

impl ReportArgs {
    /// The lint levels the command line sets (`--allow`, `--warn`, `--deny`, then
    /// `--deny-warnings`), or the errors of names that are no lint.
    pub fn levels(&self) -> Result<LintLevels, Vec<Diagnostic>> {
        let mut levels = LintLevels::new();
        let mut errors = Vec::new();
        if self.deny_warnings {
            let _ = levels.set(einrow::lint::ALL_LINTS, Level::Deny);
        }
        let given =
            [(&self.allow, Level::Allow), (&self.warn, Level::Warn), (&self.deny, Level::Deny)];
        for (names, level) in given {
            for name in names {
                if let Err(d) = levels.set(name, level) {
                    errors.push(*d);
                }
            }
        }
        if errors.is_empty() {
            Ok(levels)
        } else {
            Err(errors)
        }
    }

    /// Applies the command line's lint levels: allowed lints are dropped, denied ones become
    /// errors. Names that are no lint are errors, added to `diags`.
    pub fn apply(&self, diags: &mut Vec<Diagnostic>) {
        match self.levels() {
            Ok(levels) => *diags = levels.apply(std::mem::take(diags)),
            Err(errors) => diags.extend(errors),
        }
    }

    /// Prints diagnostics as text on standard error, in the chosen format.
    pub fn print(&self, diags: &[Diagnostic], explain: bool) {
        for d in diags {
            match self.message_format {
                MessageFormat::Human => error(&d.render_text(explain)),
                MessageFormat::Short => error(&d.render_short()),
            }
        }
    }
}

/// Whether any diagnostic is an error.
pub fn has_errors(diags: &[Diagnostic]) -> bool {
    diags.iter().any(Diagnostic::is_error)
}

/// Ends the process as `Out` does when writing JSON failed.
pub fn written(out: &mut Out, r: io::Result<()>) {
    if let Err(e) = r {
        out.fail(&e);
    }
}

/// Starts a command's JSON document: `{"version":1,"command":"NAME"`. The command's own keys
/// follow, each written as `,"key":value`, then [`end_document`].
pub fn begin_document(out: &mut Out, command: &str) {
    write!(out, "{{\"version\":{JSON_VERSION},\"command\":\"{command}\"");
}

/// Ends a command's JSON document: `,"ok":OK,"diagnostics":[...]}` and a line break.
pub fn end_document(out: &mut Out, ok: bool, diags: &[Diagnostic]) {
    write!(out, ",\"ok\":{ok},\"diagnostics\":");
    let r = write_json_list(out, diags);
    written(out, r);
    writeln!(out, "}}");
}

/// A whole document with no keys of the command's own: a command that failed before it had
/// anything to show.
pub fn failed_document(out: &mut Out, command: &str, diags: &[Diagnostic]) {
    begin_document(out, command);
    end_document(out, false, diags);
}
