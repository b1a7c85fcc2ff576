//! Lint levels: each lint [allowed, warned of or denied](Level), set on the command line
//! (`--allow NAME`, `--warn NAME`, `--deny NAME`, `warnings` for every lint) and in a program
//! by a comment directive:
//!
//! ```text
//! # einrow: allow(guessed-rank)             alone on its line: the whole program
//! h = pointwise h x   # einrow: allow(redefined-tensor)   after a statement: that line
//! ```
//!
//! A directive names one or more levels, each with a list of lints (`# einrow: allow(a, b)
//! deny(c)`). The nearest setting wins: a line's directive, then the program's, then the
//! command line's for that lint, then the command line's for `warnings`, then `warn`.

use std::collections::HashMap;

use crate::code::ErrorCode;
use crate::diagnostic::{closest, Diagnostic, Level, Lint, Location, Severity, Source};
use crate::span::Span;

/// What a setting applies to: one lint, or every lint (`warnings`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Target {
    One(Lint),
    All,
}

/// The levels in force: the command line's, the program's and each line's.
#[derive(Clone, Debug, Default)]
pub struct LintLevels {
    cli: HashMap<Target, Level>,
    program: HashMap<Target, Level>,
    lines: HashMap<usize, HashMap<Target, Level>>,
}

/// The group name that stands for every lint.
pub const ALL_LINTS: &str = "warnings";

fn target(name: &str) -> Option<Target> {
    match name {
        ALL_LINTS => Some(Target::All),
        n => Lint::from_name(n).map(Target::One),
    }
}

/// "did you mean" among the lint names.
fn unknown_lint(name: &str) -> Diagnostic {
    let names = Lint::ALL.iter().map(|l| l.name()).chain([ALL_LINTS]);
    let mut d = Diagnostic::error(ErrorCode::Name, format!("unknown lint `{name}`"));
    if let Some(near) = closest(name, names.clone()) {
        d = d.help(format!("did you mean `{near}`?"));
    }
    let all: Vec<&str> = names.collect();
    d.note(format!("the lints are {}", all.join(", ")))
}

impl LintLevels {
    /// No setting: every lint warns.
    pub fn new() -> LintLevels {
        LintLevels::default()
    }

    /// Sets a lint (or `warnings`, every lint) to `level` from the command line; an unknown
    /// name is a `name` error with the closest lint name.
    ///
    /// ```
    /// use einrow::diagnostic::{Level, Lint};
    /// use einrow::lint::LintLevels;
    /// let mut levels = LintLevels::new();
    /// levels.set("warnings", Level::Deny)?;
    /// levels.set("guessed-rank", Level::Allow)?;
    /// assert_eq!(levels.level(Lint::GuessedRank, None), Level::Allow);
    /// assert_eq!(levels.level(Lint::UnsizedLabel, None), Level::Deny);
    /// let e = levels.set("unsized-labels", Level::Allow).unwrap_err();
    /// assert_eq!(e.help, ["did you mean `unsized-label`?"]);
    /// # Ok::<(), Box<einrow::diagnostic::Diagnostic>>(())
    /// ```
    pub fn set(&mut self, name: &str, level: Level) -> Result<(), Box<Diagnostic>> {
        let t = target(name).ok_or_else(|| Box::new(unknown_lint(name)))?;
        self.cli.insert(t, level);
        Ok(())
    }

    /// The level of `lint` for a diagnostic on line `line` (none: not on a program's line).
    pub fn level(&self, lint: Lint, line: Option<usize>) -> Level {
        let scopes = [line.and_then(|n| self.lines.get(&n)), Some(&self.program), Some(&self.cli)];
        for scope in scopes.into_iter().flatten() {
            if let Some(l) = scope.get(&Target::One(lint)).or_else(|| scope.get(&Target::All)) {
                return *l;
            }
        }
        Level::Warn
    }

    /// Reads the directives of a program's text (`# einrow: LEVEL(LINT, ...)`), and returns
    /// the errors of those that name no level or lint. The text is scanned once, and only
    /// when it holds `einrow:` at all.
    ///
    /// ```
    /// use einrow::diagnostic::{Level, Lint};
    /// use einrow::lint::LintLevels;
    /// let text = "# einrow: deny(guessed-rank)\ntensor x: 3\nh = pointwise x  # einrow: allow(warnings)\n";
    /// let mut levels = LintLevels::new();
    /// assert!(levels.read_directives(text).is_empty());
    /// assert_eq!(levels.level(Lint::GuessedRank, Some(2)), Level::Deny);
    /// assert_eq!(levels.level(Lint::GuessedRank, Some(3)), Level::Allow);
    /// ```
    pub fn read_directives(&mut self, text: &str) -> Vec<Diagnostic> {
        let mut errors = Vec::new();
        if !text.contains("einrow:") {
            return errors;
        }
        let source = Source::new(text);
        for (i, line) in text.lines().enumerate() {
            let Some(hash) = comment_start(line) else { continue };
            let body = line[hash + 1..].trim_start();
            let Some(rest) = body.strip_prefix("einrow:") else { continue };
            let at = line.len() - rest.len();
            let whole_program = line[..hash].trim().is_empty();
            let n = i + 1;
            let place = |span: Span| {
                let text = source.line(n).unwrap_or(line);
                Location::on_line(n, text, Some(span))
            };
            for (level, name, span) in settings(rest, at) {
                let t = match (Level::from_name(level.0), target(name)) {
                    (None, _) => {
                        let msg =
                            format!("unknown lint level `{}`: write allow, warn or deny", level.0);
                        errors.push(Diagnostic::error(ErrorCode::Syntax, msg).at(place(level.1)));
                        continue;
                    }
                    (Some(_), None) => {
                        errors.push(unknown_lint(name).at(place(span)));
                        continue;
                    }
                    (Some(l), Some(t)) => (l, t),
                };
                let scope = if whole_program {
                    &mut self.program
                } else {
                    self.lines.entry(n).or_default()
                };
                scope.insert(t.1, t.0);
            }
        }
        errors
    }

    /// Applies the levels to diagnostics: a lint's warning that is allowed is dropped, one
    /// that is denied becomes an error; other diagnostics are kept as they are.
    pub fn apply(&self, diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
        let mut out = Vec::with_capacity(diags.len());
        for mut d in diags {
            if let Some(lint) = d.lint {
                let line = d.primary.as_ref().and_then(|p| p.line);
                match self.level(lint, line) {
                    Level::Allow => continue,
                    Level::Warn => d.severity = Severity::Warning,
                    Level::Deny => d.severity = Severity::Error,
                }
            }
            out.push(d);
        }
        out
    }
}

/// Where a line's comment starts (a `#` outside a quoted spec).
fn comment_start(line: &str) -> Option<usize> {
    let mut quoted = false;
    for (i, c) in line.char_indices() {
        match c {
            '"' => quoted = !quoted,
            '#' if !quoted => return Some(i),
            _ => {}
        }
    }
    None
}

/// The settings of a directive's text `rest` (which starts at byte `at` of its line): each
/// level word with its span, and each name in its parentheses with its span.
fn settings(rest: &str, at: usize) -> Vec<((&str, Span), &str, Span)> {
    let mut out = Vec::new();
    let mut i = 0;
    let bytes = rest.as_bytes();
    while i < rest.len() {
        while i < rest.len() && (bytes[i] as char).is_whitespace() {
            i += 1;
        }
        let start = i;
        while i < rest.len() && bytes[i] != b'(' && !(bytes[i] as char).is_whitespace() {
            i += 1;
        }
        if start == i {
            break;
        }
        let level = (&rest[start..i], Span::new(at + start, at + i));
        let Some(close) = rest[i..].find(')').filter(|_| bytes.get(i) == Some(&b'(')) else {
            out.push((level, "", Span::new(at + start, at + i)));
            break;
        };
        let inner_at = i + 1;
        for (k, part) in split_commas(&rest[inner_at..i + close]) {
            let name = part.trim();
            let lead = part.len() - part.trim_start().len();
            let s = at + inner_at + k + lead;
            out.push((level, name, Span::new(s, s + name.len())));
        }
        i += close + 1;
    }
    out
}

/// The comma-separated parts of `s`, each with its offset.
fn split_commas(s: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut at = 0;
    s.split(',').map(move |p| {
        let here = at;
        at += p.len() + 1;
        (here, p)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directives_and_their_errors() {
        let text =
            "tensor x: 3   # einrow: allow(unsized-label, guessed-size) deny(guessed-rank)\n\
                    # einrow: warn(warnings)\n# einrow: forbid(x) allow(guesed-rank)\n";
        let mut levels = LintLevels::new();
        let errors = levels.read_directives(text);
        assert_eq!(levels.level(Lint::UnsizedLabel, Some(1)), Level::Allow);
        assert_eq!(levels.level(Lint::GuessedSize, Some(1)), Level::Allow);
        assert_eq!(levels.level(Lint::GuessedRank, Some(1)), Level::Deny);
        assert_eq!(levels.level(Lint::UnsizedLabel, Some(2)), Level::Warn);
        assert_eq!(errors.len(), 2, "{errors:?}");
        assert_eq!(errors[0].code, ErrorCode::Syntax);
        let span = errors[0].primary.as_ref().and_then(|p| p.span).unwrap();
        assert_eq!(&text.lines().nth(2).unwrap()[span.range()], "forbid");
        assert_eq!(errors[1].help, ["did you mean `guessed-rank`?"]);
        // A `#` inside a quoted spec starts no comment.
        assert_eq!(comment_start("c = einsum \"a#b\" x # c"), Some(19));
    }

    #[test]
    fn nearest_setting_wins() {
        let mut levels = LintLevels::new();
        levels.set(ALL_LINTS, Level::Deny).unwrap();
        levels.set("parameter-batch", Level::Warn).unwrap();
        assert_eq!(levels.level(Lint::ParameterBatch, None), Level::Warn);
        assert_eq!(levels.level(Lint::GuessedSize, None), Level::Deny);
        levels.read_directives("# einrow: allow(guessed-size)\n");
        assert_eq!(levels.level(Lint::GuessedSize, Some(4)), Level::Allow);
        let d = Diagnostic::lint(Lint::GuessedSize, ErrorCode::Unresolved, "m");
        let kept = levels.apply(vec![d, Diagnostic::error(ErrorCode::Rank, "r")]);
        assert_eq!(kept.len(), 1);
        assert_eq!(kept[0].code, ErrorCode::Rank);
    }
}
