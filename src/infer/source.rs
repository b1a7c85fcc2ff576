//! Where the parts of a program's statements and declarations are on their lines, for
//! diagnostics that put carets under them.

use crate::span::Span;

/// Where the parts of `out = op "spec" args...` are on its line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct StmtSpans {
    /// The defined name.
    pub out: Span,
    /// The op name.
    pub op: Span,
    /// The spec's text, inside its quotes.
    pub spec: Option<Span>,
    /// Each operand name.
    pub args: Vec<Span>,
}

/// Where the name and the shape of `tensor NAME: SHAPE` are on its line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DeclSpans {
    /// The name.
    pub name: Span,
    /// The shape string, when written.
    pub shape: Option<Span>,
}

/// The spans of the words of `text[from..to]` (split at whitespace), shifted to the line.
fn words(line: &str, from: usize, to: usize) -> Vec<Span> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, c) in line.get(from..to).unwrap_or_default().char_indices() {
        match (c.is_whitespace(), start) {
            (true, Some(s)) => {
                out.push(Span::new(from + s, from + i));
                start = None;
            }
            (false, None) => start = Some(i),
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push(Span::new(from + s, to));
    }
    out
}

/// The end of a line's code (before a `#` comment, trailing spaces dropped).
fn code_end(line: &str) -> usize {
    let code = line.split('#').next().unwrap_or_default();
    code.trim_end().len()
}

/// The spans of a statement's parts on its line, as the program reader reads them; `None` for
/// a line that is not a statement.
pub fn stmt_spans(line: &str) -> Option<StmtSpans> {
    let end = code_end(line);
    let code = &line[..end];
    let eq = code.find('=')?;
    let out = words(line, 0, eq).into_iter().next().unwrap_or(Span::point(eq));
    let mut parts = words(line, eq + 1, end).into_iter();
    let op = parts.next()?;
    let mut spans = StmtSpans { out, op, spec: None, args: Vec::new() };
    let after_op = op.end as usize;
    let rest = &code[after_op..];
    let quote = rest.find('"').filter(|q| rest[..*q].trim().is_empty());
    let args_from = match quote {
        Some(q) => {
            let open = after_op + q + 1;
            let close = code[open..].find('"').map_or(end, |c| open + c);
            spans.spec = Some(Span::new(open, close));
            (close + 1).min(end)
        }
        None => after_op,
    };
    spans.args = words(line, args_from, end);
    Some(spans)
}

/// The spans of a declaration's name and shape on its line; `None` for a line that is not a
/// declaration.
pub fn decl_spans(line: &str) -> Option<DeclSpans> {
    let end = code_end(line);
    let mut ws = words(line, 0, end).into_iter();
    let kw = ws.next()?;
    if !matches!(&line[kw.range()], "tensor" | "param") {
        return None;
    }
    let body = kw.end as usize;
    let (name_end, shape) = match line[body..end].find(':') {
        Some(c) => {
            let from = body + c + 1;
            let lead = line[from..end].len() - line[from..end].trim_start().len();
            (body + c, Some(Span::new(from + lead, end)))
        }
        None => (end, None),
    };
    let name = words(line, body, name_end).into_iter().next().unwrap_or(Span::point(body));
    Some(DeclSpans { name, shape })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_parts() {
        let line = "  c = einsum \"ij;jk=>ik\"  a b   # comment";
        let s = stmt_spans(line).unwrap();
        assert_eq!(&line[s.out.range()], "c");
        assert_eq!(&line[s.op.range()], "einsum");
        assert_eq!(&line[s.spec.unwrap().range()], "ij;jk=>ik");
        let args: Vec<&str> = s.args.iter().map(|a| &line[a.range()]).collect();
        assert_eq!(args, ["a", "b"]);
        let s = stmt_spans("y=pointwise x w").unwrap();
        assert_eq!((s.op, s.args.len(), s.spec), (Span::new(2, 11), 2, None));
        assert_eq!(stmt_spans("tensor x: 3"), None);
    }

    #[test]
    fn declaration_parts() {
        let line = "param w2 :  2048->768  # wrong";
        let d = decl_spans(line).unwrap();
        assert_eq!(&line[d.name.range()], "w2");
        assert_eq!(&line[d.shape.unwrap().range()], "2048->768");
        assert_eq!(decl_spans("tensor x").unwrap().shape, None);
        assert_eq!(decl_spans("x = pointwise y"), None);
    }
}
