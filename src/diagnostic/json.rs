//! Diagnostics as JSON (serialized with serde): the schema of the
//! [module documentation](super#json), checked by `docs/diagnostics.schema.json`.

use std::io::{self, Write};

use serde::Serialize;

use super::model::{Diagnostic, Location, Role};
use super::position::Position;

/// The version of the JSON documents einrow writes: the `"version"` of every `--json`
/// document. It changes when a key changes meaning or goes away.
pub const JSON_VERSION: u32 = 1;

/// Writes `s` as a JSON string (quoted and escaped).
pub fn write_json_str<W: Write + ?Sized>(w: &mut W, s: &str) -> io::Result<()> {
    serde_json::to_writer(&mut *w, s).map_err(io::Error::from)
}

/// A span as JSON: where it starts and ends, each as a line, a column and a byte offset.
#[derive(Serialize)]
struct JsonSpan {
    start: Position,
    end: Position,
}

/// A location as JSON: every key present, `null` when unknown.
#[derive(Serialize)]
struct JsonLocation<'a> {
    file: Option<&'a str>,
    line: Option<usize>,
    text: Option<&'a str>,
    span: Option<JsonSpan>,
    pointer: Option<&'a str>,
    tensor: Option<&'a str>,
    size: Option<&'a str>,
    note: &'a str,
    role: &'static str,
}

impl<'a> From<&'a Location> for JsonLocation<'a> {
    fn from(l: &'a Location) -> JsonLocation<'a> {
        let span = match (&l.text, l.span) {
            (Some(text), Some(s)) => Some(JsonSpan {
                start: Position::of(text, s.start as usize, l.line),
                end: Position::of(text, s.end as usize, l.line),
            }),
            _ => None,
        };
        JsonLocation {
            file: l.file.as_deref(),
            line: l.line,
            text: l.text.as_deref(),
            span,
            pointer: l.pointer.as_deref(),
            tensor: l.tensor.as_deref(),
            size: l.size.as_deref(),
            note: &l.note,
            role: l.role.as_str(),
        }
    }
}

/// A diagnostic as JSON.
#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    code: &'static str,
    severity: &'static str,
    message: &'a str,
    lint: Option<&'static str>,
    primary: Option<JsonLocation<'a>>,
    related: Vec<JsonLocation<'a>>,
    notes: &'a [String],
    help: &'a [String],
}

impl Location {
    /// Writes the location as one JSON object (every key present, `null` when unknown).
    pub fn write_json<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        serde_json::to_writer(w, &JsonLocation::from(self)).map_err(io::Error::from)
    }
}

impl Diagnostic {
    /// Writes the diagnostic as one JSON object (the schema of the module documentation).
    ///
    /// ```
    /// use einrow::diagnostic::{Diagnostic, Location};
    /// use einrow::{ErrorCode, Span};
    ///
    /// let d = Diagnostic::error(ErrorCode::Name, "unknown tensor `wieght`")
    ///     .at(Location::on_line(3, "y = pointwise x wieght", Some(Span::new(16, 22))));
    /// let v: serde_json::Value = serde_json::from_str(&d.to_json_string())?;
    /// assert_eq!(v["code"], "name");
    /// let start = &v["primary"]["span"]["start"];
    /// assert_eq!((start["line"].as_u64(), start["column"].as_u64(), start["byte"].as_u64()),
    ///            (Some(3), Some(17), Some(16)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_json<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        let d = JsonDiagnostic {
            code: self.code_name(),
            severity: self.severity.as_str(),
            message: &self.message,
            lint: self.lint.map(|l| l.name()),
            primary: self.primary.as_ref().map(|p| {
                // A primary place set directly (not by `at`) with no role of its own.
                let role = if p.role == Role::Also { Role::Primary } else { p.role };
                JsonLocation { role: role.as_str(), ..JsonLocation::from(p) }
            }),
            related: self.related.iter().map(JsonLocation::from).collect(),
            notes: &self.notes,
            help: &self.help,
        };
        serde_json::to_writer(w, &d).map_err(io::Error::from)
    }

    /// The diagnostic as a JSON string.
    pub fn to_json_string(&self) -> String {
        let mut out = Vec::new();
        // Writing to a vector does not fail.
        let _ = self.write_json(&mut out);
        String::from_utf8(out).unwrap_or_default()
    }
}

/// Writes a list of diagnostics as a JSON array.
pub fn write_json_list<W: Write + ?Sized>(w: &mut W, list: &[Diagnostic]) -> io::Result<()> {
    w.write_all(b"[")?;
    for (i, d) in list.iter().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        d.write_json(w)?;
    }
    w.write_all(b"]")
}
