//! The sizes a declaration writes: which axes of a declared shape string are literal sizes,
//! and where each is in the text.

use crate::shape::parse_shape_string;
use crate::span::Span;
use crate::spec::ast::RowKind;

use super::rows::RowView;

/// The literal axes of one row of a shape string: their sizes and spans, leading flank (before
/// a row variable) first; and whether the row has a row variable.
#[derive(Clone, Debug, Default)]
struct DeclRow {
    axes: Vec<(u64, Span)>,
    lead: usize,
    open: bool,
}

/// A declared shape string's literal axes.
#[derive(Clone, Debug, Default)]
pub struct Declared {
    rows: [DeclRow; 3],
    /// Each row's span in the text (from its first axis to its last), when it has axes.
    spans: [Option<Span>; 3],
}

impl Declared {
    /// Reads a shape string (`None` when it does not parse: it was not declared then).
    pub fn parse(text: &str) -> Option<Declared> {
        let parsed = parse_shape_string(text).ok()?;
        let spans = axis_spans(text);
        let mut out = Declared::default();
        for (i, row) in spans.iter().enumerate() {
            out.spans[i] = row.first().zip(row.last()).map(|(a, b)| a.join(*b));
        }
        for kind in RowKind::ALL {
            let row = parsed.row(kind);
            let sizes = row.beg.iter().chain(row.dims.iter()).map(|a| a.size);
            let spans = spans[kind.index()].iter().copied();
            out.rows[kind.index()] = DeclRow {
                axes: sizes.zip(spans).collect(),
                lead: if row.var.is_some() { row.beg.len() } else { 0 },
                open: row.var.is_some(),
            };
        }
        Some(out)
    }

    /// The size written at a position of the row `kind` (positioned as in `now`, the row as
    /// solved so far) and its span in the text, when the declaration writes one there.
    pub fn literal(&self, kind: RowKind, pos: i16, now: &RowView) -> Option<(u64, Span)> {
        let row = &self.rows[kind.index()];
        let n = row.axes.len();
        let from_left = |i: usize| (i < row.lead || !row.open).then(|| row.axes.get(i)).flatten();
        let from_right = |j: usize| (j >= 1 && j <= n - row.lead).then(|| row.axes[n - j]);
        if pos >= 0 {
            return from_left(usize::try_from(pos).ok()?).copied();
        }
        let j = usize::from(pos.unsigned_abs());
        // An axis counted from the right in a row now closed may be a leading axis of the
        // declaration: count it from the left in the solved row.
        from_right(j).or_else(|| {
            let from = now.len().checked_sub(j).filter(|_| !now.is_open())?;
            from_left(from).copied()
        })
    }

    /// The span of row `kind` in the declared text (its axes), when it has axes.
    pub fn row_span(&self, kind: RowKind) -> Option<Span> {
        self.spans[kind.index()]
    }

    /// The number of axes of row `kind` when the declaration closes it (writes no row
    /// variable there); `None` for an open row.
    pub fn closed_len(&self, kind: RowKind) -> Option<usize> {
        let row = &self.rows[kind.index()];
        (!row.open).then_some(row.axes.len())
    }

    /// The positions (in `now`, the row as solved so far) of the axes the row variable of row
    /// `kind` stands for: none when the declaration has no row variable there or the row is
    /// still open.
    pub fn covered(&self, kind: RowKind, now: &RowView) -> Vec<i16> {
        let row = &self.rows[kind.index()];
        let trail = row.axes.len() - row.lead;
        if !row.open || now.is_open() || now.len() < row.axes.len() {
            return Vec::new();
        }
        (row.lead..now.len() - trail).filter_map(|i| now.left(i)).collect()
    }
}

/// The spans of the axes of each row of a shape string (row variables left out), in order.
fn axis_spans(text: &str) -> [Vec<Span>; 3] {
    let (batch, rest_at) = match text.find('|') {
        Some(i) => (Some((0, i)), i + 1),
        None => (None, 0),
    };
    let (input, output) = match text[rest_at..].find("->") {
        Some(i) => (Some((rest_at, rest_at + i)), (rest_at + i + 2, text.len())),
        None => (None, (rest_at, text.len())),
    };
    let row = |range: Option<(usize, usize)>| -> Vec<Span> {
        let Some((from, to)) = range else { return Vec::new() };
        let mut out = Vec::new();
        let mut at = from;
        for item in text[from..to].split(',') {
            let lead = item.len() - item.trim_start().len();
            let t = item.trim();
            if !t.is_empty() && !t.starts_with("..") {
                out.push(Span::new(at + lead, at + lead + t.len()));
            }
            at += item.len() + 1;
        }
        out
    };
    [row(batch), row(input), row(Some(output))]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literal_axes_and_spans() {
        let text = "2| 2048->768";
        let d = Declared::parse(text).unwrap();
        let closed = RowView::default();
        let (size, span) = d.literal(RowKind::Output, -1, &closed).unwrap();
        assert_eq!((size, &text[span.range()]), (768, "768"));
        let (size, span) = d.literal(RowKind::Input, -1, &closed).unwrap();
        assert_eq!((size, &text[span.range()]), (2048, "2048"));
        assert_eq!(d.literal(RowKind::Output, -2, &closed), None);
        let d = Declared::parse("...,3").unwrap();
        assert_eq!(d.literal(RowKind::Output, -1, &closed).map(|x| x.0), Some(3));
        assert_eq!(d.literal(RowKind::Output, 0, &closed), None);
        let d = Declared::parse("5,...").unwrap();
        assert_eq!(d.literal(RowKind::Output, 0, &closed).map(|x| x.0), Some(5));
    }
}
