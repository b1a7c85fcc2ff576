//! The diagnostic model: what went wrong (or looks wrong), where, and what each place says.

use super::lint::Lint;
use crate::code::ErrorCode;
use crate::span::Span;

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Severity {
    /// The input cannot be used as it is.
    Error,
    /// The input works but probably does not say what was meant (a lint); `--deny-warnings`
    /// turns warnings into errors.
    Warning,
}

impl Severity {
    /// `error` or `warning`, as printed and as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

impl std::fmt::Display for Severity {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a related place is to its diagnostic.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Role {
    /// Where the conflicting things meet: the carets of a mismatch at its step.
    Conflict,
    /// Where something came from: a declaration that writes a size, a setting, the first
    /// definition of a name.
    Origin,
    /// A step between an origin and the conflict: it carried or computed a size.
    Via,
    /// Another place of the same problem (a second `,` of the same slip).
    #[default]
    Also,
    /// The place a diagnostic is about, when it is no side of a conflict (the role
    /// [`Diagnostic::at`] gives a place that has none).
    Primary,
}

impl Role {
    /// `conflict`, `origin`, `via`, `also` or `primary`, as written in JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Conflict => "conflict",
            Role::Origin => "origin",
            Role::Via => "via",
            Role::Also => "also",
            Role::Primary => "primary",
        }
    }
}

/// One place a diagnostic points at: a source text (a spec, or one line of a program) with a
/// byte span into it, and what is known there (the tensor, its size, a note). Every field is
/// optional: a location may be only a tensor and its line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location {
    /// The file, when the source was read from one.
    pub file: Option<String>,
    /// The 1-based line of the file (program statements and declarations).
    pub line: Option<usize>,
    /// The text the span points into: the whole source line, or a spec given alone.
    pub text: Option<String>,
    /// A byte range of `text`.
    pub span: Option<Span>,
    /// Where the place is in a JSON input (an `infer` case), as a JSON pointer
    /// (`/steps/2`), when it has no text of its own.
    pub pointer: Option<String>,
    /// The tensor the place is about.
    pub tensor: Option<String>,
    /// The size (or shape) the place gives, as a shape string writes it.
    pub size: Option<String>,
    /// What to say there.
    pub note: String,
    /// What the place is to the diagnostic (for a related place).
    pub role: Role,
}

impl Location {
    /// A place in a text given alone (a spec): the text and a span into it.
    pub fn in_text(text: &str, span: Span) -> Location {
        Location { text: Some(text.to_string()), span: Some(span), ..Location::default() }
    }

    /// A place on a line of a file: the line's number and text, and a span into the line.
    pub fn on_line(line: usize, text: &str, span: Option<Span>) -> Location {
        Location { line: Some(line), text: Some(text.to_string()), span, ..Location::default() }
    }

    /// The same place with a note.
    pub fn with_note(mut self, note: impl Into<String>) -> Location {
        self.note = note.into();
        self
    }

    /// The same place about a tensor.
    pub fn with_tensor(mut self, tensor: impl Into<String>) -> Location {
        self.tensor = Some(tensor.into());
        self
    }

    /// The same place in a role.
    pub fn with_role(mut self, role: Role) -> Location {
        self.role = role;
        self
    }

    /// The same place with a size.
    pub fn with_size(mut self, size: impl Into<String>) -> Location {
        self.size = Some(size.into());
        self
    }
}

/// A diagnostic: a code and severity, a message, the primary place, related places (for a
/// size conflict: where each size came from and each step that carried it, in order) and
/// hints.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The class (an error's [`ErrorCode`]; for a warning, the class the error would have).
    pub code: ErrorCode,
    /// Error or warning.
    pub severity: Severity,
    /// What is wrong, in one sentence.
    pub message: String,
    /// Where it shows.
    pub primary: Option<Location>,
    /// Places that explain it, in order.
    pub related: Vec<Location>,
    /// Short lines that sum up the related places (where each size came from); printed
    /// instead of them, which `--explain` lists in full.
    pub notes: Vec<String>,
    /// Suggestions (`did you mean `;`?`).
    pub help: Vec<String>,
    /// The lint a warning belongs to (its level decides whether it is reported, and as what).
    pub lint: Option<Lint>,
}

impl Diagnostic {
    /// An error with a message and no place yet.
    pub fn error(code: ErrorCode, message: impl Into<String>) -> Diagnostic {
        Diagnostic {
            code,
            severity: Severity::Error,
            message: message.into(),
            primary: None,
            related: Vec::new(),
            notes: Vec::new(),
            help: Vec::new(),
            lint: None,
        }
    }

    /// A warning with a message and no place yet.
    pub fn warning(code: ErrorCode, message: impl Into<String>) -> Diagnostic {
        Diagnostic { severity: Severity::Warning, ..Diagnostic::error(code, message) }
    }

    /// A warning of a lint, with the code its error would have.
    pub fn lint(lint: Lint, code: ErrorCode, message: impl Into<String>) -> Diagnostic {
        Diagnostic { lint: Some(lint), ..Diagnostic::warning(code, message) }
    }

    /// The stable code users and tools match on: the lint's name for a lint's diagnostic
    /// (`unsized-label`), else the [`ErrorCode`]'s (`mismatch`).
    pub fn code_name(&self) -> &'static str {
        match self.lint {
            Some(l) => l.name(),
            None => self.code.as_str(),
        }
    }

    /// The same diagnostic at a place (in the role [`Role::Primary`] unless it has one).
    pub fn at(mut self, mut primary: Location) -> Diagnostic {
        if primary.role == Role::Also {
            primary.role = Role::Primary;
        }
        self.primary = Some(primary);
        self
    }

    /// The same diagnostic with one more related place.
    pub fn related(mut self, place: Location) -> Diagnostic {
        self.related.push(place);
        self
    }

    /// The same diagnostic with a note.
    pub fn note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// The same diagnostic with a hint.
    pub fn help(mut self, hint: impl Into<String>) -> Diagnostic {
        self.help.push(hint.into());
        self
    }

    /// Whether it is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// Sets the file of every place that has a line (or a JSON pointer) but no file.
    pub fn in_file(mut self, file: &str) -> Diagnostic {
        let places = self.primary.iter_mut().chain(self.related.iter_mut());
        let in_a_file = |p: &&mut Location| p.line.is_some() || p.pointer.is_some();
        for p in places.filter(in_a_file).filter(|p| p.file.is_none()) {
            p.file = Some(file.to_string());
        }
        self
    }
}
