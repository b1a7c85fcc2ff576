//! The canonical printer: writes a tree back as text that parses to the same tree (modulo
//! spans). Multichar specs separate axes with `, `; single-char specs write axes side by side.

use std::fmt::{self, Write};

use super::ast::{
    Affine, Axis, AxisKind, Coeff, ConcatPart, EinsumSpec, LabelsSpec, NumpySpec, Padding, Row,
    RowKind, ShapeSpec,
};
use super::lexer::is_multichar;

/// Printing options: the lexer mode, and whether every non-empty row ends with a comma (used
/// to force multichar mode when nothing else in the text would).
#[derive(Clone, Copy)]
struct Style {
    multichar: bool,
    trailing_comma: bool,
}

impl fmt::Display for Coeff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Coeff::Int(n) => write!(f, "{n}"),
            Coeff::Name(s) => f.write_str(s),
        }
    }
}

impl fmt::Display for Affine {
    /// `S*over+D*kernel` with the padding marker; stride and dilation 1 and offset 0 are left
    /// out, except that a strided axis without a kernel always shows its stride.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(conv) = &self.conv else {
            write!(f, "{}*{}", self.stride, self.over)?;
            return if self.offset != 0 { write!(f, "+{}", self.offset) } else { Ok(()) };
        };
        if !self.stride.is_one() {
            write!(f, "{}*", self.stride)?;
        }
        f.write_str(&self.over)?;
        match conv.padding {
            Padding::Unspecified => f.write_str("+")?,
            Padding::Same => f.write_str("=+")?,
            Padding::Valid => f.write_str("<+")?,
            Padding::Floor(0) => f.write_str("~+")?,
            Padding::Floor(p) => write!(f, "~{p}+")?,
        }
        if self.offset != 0 {
            write!(f, "{}+", self.offset)?;
        }
        if !conv.dilation.is_one() {
            write!(f, "{}*", conv.dilation)?;
        }
        f.write_str(&conv.kernel)
    }
}

impl fmt::Display for AxisKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AxisKind::Label(l) => f.write_str(l),
            AxisKind::Placeholder => f.write_str("_"),
            AxisKind::Int(n) => write!(f, "{n}"),
            AxisKind::Affine(a) => a.fmt(f),
            AxisKind::Concat(parts) => {
                for (i, p) in parts.iter().enumerate() {
                    if i > 0 {
                        f.write_char('^')?;
                    }
                    match p {
                        ConcatPart::Label(l) => f.write_str(l)?,
                        ConcatPart::Size(n) => write!(f, "{n}")?,
                    }
                }
                Ok(())
            }
            AxisKind::Flat(labels) => {
                f.write_char('(')?;
                for (i, (l, _)) in labels.iter().enumerate() {
                    if i > 0 {
                        f.write_char('*')?;
                    }
                    f.write_str(l)?;
                }
                f.write_char(')')
            }
        }
    }
}

impl fmt::Display for Axis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.kind.fmt(f)
    }
}

/// The text of a row variable: `...` or `..name..`.
fn ellipsis_text(name: Option<&str>) -> String {
    match name {
        None => "...".into(),
        Some(n) => format!("..{n}.."),
    }
}

fn write_row(out: &mut String, row: &Row, style: Style) {
    let mut items: Vec<String> = row.leading.iter().map(|a| a.to_string()).collect();
    if let Some(e) = &row.ellipsis {
        items.push(ellipsis_text(e.name.as_deref()));
    }
    items.extend(row.trailing.iter().map(|a| a.to_string()));
    if style.multichar {
        out.push_str(&items.join(", "));
        if style.trailing_comma && !items.is_empty() {
            out.push(',');
        }
        return;
    }
    for item in items {
        // Two integers side by side would lex as one: keep them apart.
        let digit_follows = item.starts_with(|c: char| c.is_ascii_digit());
        if digit_follows && out.ends_with(|c: char| c.is_ascii_digit()) {
            out.push(' ');
        }
        out.push_str(&item);
    }
}

fn write_shape(out: &mut String, shape: &ShapeSpec, style: Style) {
    for kind in RowKind::ALL {
        if let Some(row) = shape.row(kind) {
            write_row(out, row, style);
            out.push_str(match kind {
                RowKind::Batch => "|",
                RowKind::Input => "->",
                RowKind::Output => "",
            });
        }
    }
}

fn write_einsum(out: &mut String, spec: &EinsumSpec, style: Style) {
    let sep = if style.multichar { "; " } else { ";" };
    for (i, slot) in spec.rhs.iter().enumerate() {
        if i > 0 {
            out.push_str(sep);
        }
        write_shape(out, slot, style);
    }
    out.push_str(if style.multichar { " => " } else { "=>" });
    write_shape(out, &spec.lhs, style);
}

/// Prints with the given mode; when multichar mode is wanted but nothing in the text triggers
/// it, prints again with trailing commas, and as a last resort prepends a comma to the output
/// row (`,` before `...` or alone is accepted).
fn print_in_mode(multichar: bool, write: impl Fn(&mut String, Style)) -> String {
    let mut out = String::new();
    write(&mut out, Style { multichar, trailing_comma: false });
    if !multichar || is_multichar(&out) {
        return out;
    }
    out.clear();
    write(&mut out, Style { multichar, trailing_comma: true });
    if !is_multichar(&out) {
        out.insert(0, ',');
    }
    out
}

impl fmt::Display for LabelsSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_in_mode(self.multichar, |out, st| write_shape(out, &self.shape, st)))
    }
}

impl fmt::Display for EinsumSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&print_in_mode(self.multichar, |out, st| write_einsum(out, self, st)))
    }
}

impl fmt::Display for NumpySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let style = Style { multichar: false, trailing_comma: false };
        let mut out = String::new();
        for (i, term) in self.inputs.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            write_row(&mut out, term, style);
        }
        if let Some(o) = &self.output {
            out.push_str("->");
            write_row(&mut out, o, style);
        }
        f.write_str(&out)
    }
}
