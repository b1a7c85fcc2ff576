//! Diagnostics as JSON, written straight to a stream (no JSON tree is built): the schema of
//! the [module documentation](super#json).

use std::io::{self, Write};

use super::model::{Diagnostic, Location};

/// Writes `s` as a JSON string (quoted and escaped).
pub fn write_json_str<W: Write + ?Sized>(w: &mut W, s: &str) -> io::Result<()> {
    serde_json::to_writer(&mut *w, s).map_err(io::Error::from)
}

impl Location {
    /// Writes the location as one JSON object; fields without a value are left out.
    pub fn write_json<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        let mut sep = "";
        w.write_all(b"{")?;
        let mut key = |w: &mut W, k: &str| -> io::Result<()> {
            write!(w, "{sep}\"{k}\":")?;
            sep = ",";
            Ok(())
        };
        if let Some(f) = &self.file {
            key(w, "file")?;
            write_json_str(w, f)?;
        }
        if let Some(n) = self.line {
            key(w, "line")?;
            write!(w, "{n}")?;
        }
        if let Some(t) = &self.text {
            key(w, "text")?;
            write_json_str(w, t)?;
        }
        if let Some(s) = self.span {
            key(w, "span")?;
            write!(w, "[{},{}]", s.start, s.end)?;
        }
        if let Some(t) = &self.tensor {
            key(w, "tensor")?;
            write_json_str(w, t)?;
        }
        if let Some(s) = &self.size {
            key(w, "size")?;
            write_json_str(w, s)?;
        }
        if !self.note.is_empty() {
            key(w, "note")?;
            write_json_str(w, &self.note)?;
        }
        w.write_all(b"}")
    }
}

impl Diagnostic {
    /// Writes the diagnostic as one JSON object (the schema of the module documentation).
    ///
    /// ```
    /// use einrow::diagnostic::{Diagnostic, Location};
    /// use einrow::{ErrorCode, Span};
    ///
    /// let d = Diagnostic::warning(ErrorCode::Label, "`x` is defined again")
    ///     .at(Location::on_line(3, "x = pointwise x", Some(Span::new(0, 1))));
    /// let mut out = Vec::new();
    /// d.write_json(&mut out)?;
    /// assert_eq!(
    ///     String::from_utf8(out)?,
    ///     r#"{"code":"label","severity":"warning","message":"`x` is defined again","primary":{"line":3,"text":"x = pointwise x","span":[0,1]},"related":[],"notes":[],"help":[]}"#
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn write_json<W: Write + ?Sized>(&self, w: &mut W) -> io::Result<()> {
        write!(w, "{{\"code\":\"{}\",\"severity\":\"{}\",\"message\":", self.code_name(), self.severity)?;
        write_json_str(w, &self.message)?;
        w.write_all(b",\"primary\":")?;
        match &self.primary {
            Some(p) => p.write_json(w)?,
            None => w.write_all(b"null")?,
        }
        w.write_all(b",\"related\":[")?;
        for (i, r) in self.related.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            r.write_json(w)?;
        }
        w.write_all(b"],\"notes\":[")?;
        for (i, n) in self.notes.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            write_json_str(w, n)?;
        }
        w.write_all(b"],\"help\":[")?;
        for (i, h) in self.help.iter().enumerate() {
            if i > 0 {
                w.write_all(b",")?;
            }
            write_json_str(w, h)?;
        }
        w.write_all(b"]}")
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
