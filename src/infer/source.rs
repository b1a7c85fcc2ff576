//! Where the parts of a program's statements and declarations are on their lines, for
//! diagnostics that put carets under them.

use super::op::OpKind;
use super::program::op_from_name;
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

/// The span of `line[from..to]` without its leading and trailing whitespace (a point at `to`
/// when that is all).
fn trimmed(line: &str, from: usize, to: usize) -> Span {
    let text = line.get(from..to).unwrap_or_default();
    let start = from + text.len() - text.trim_start().len();
    Span::new(start, start + text.trim().len())
}

/// A program line's code as the reader reads it: the text before a `#` comment, without a
/// leading byte-order mark, trimmed; and the byte offset in the line where it starts.
pub(crate) fn code_of(line: &str) -> (usize, &str) {
    let code = line.split('#').next().unwrap_or_default();
    let body = code.trim_start_matches('\u{feff}');
    (code.len() - body.trim_start().len(), body.trim())
}

/// What follows the keyword of a declaration (`tensor NAME…`, `param NAME…`), given a line's
/// code as [`code_of`] reads it; `None` when the code is not a declaration. The reader asks
/// this first: a declaration is never read as a statement, whatever `=` or `"` it holds.
pub(crate) fn declaration_rest(code: &str) -> Option<&str> {
    code.strip_prefix("tensor ").or_else(|| code.strip_prefix("param "))
}

/// The spans of a statement's parts on its line, as the program reader reads them; `None` for
/// a line that is not a statement (a declaration among them).
pub fn stmt_spans(line: &str) -> Option<StmtSpans> {
    let (at, code) = code_of(line);
    if code.is_empty() || declaration_rest(code).is_some() {
        return None;
    }
    let end = at + code.len();
    let code = &line[..end];
    let eq = at + code[at..].find('=')?;
    let out = trimmed(line, at, eq);
    let mut parts = words(line, eq + 1, end).into_iter();
    let op = parts.next()?;
    let mut spans = StmtSpans { out, op, spec: None, args: Vec::new() };
    let after_op = op.end as usize;
    let rest = &code[after_op..];
    // Only an op that takes a spec reads a quoted one (others take a quote as a name).
    let has_spec = op_from_name(&line[op.range()]).is_some_and(OpKind::has_spec);
    let quote = rest.find('"').filter(|q| has_spec && rest[..*q].trim().is_empty());
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

/// The spans of a declaration's name and shape on its line, as the program reader reads them
/// (the name before the first `:`, the shape after it, both trimmed); `None` for a line that
/// is not a declaration.
pub fn decl_spans(line: &str) -> Option<DeclSpans> {
    let (at, code) = code_of(line);
    let rest = declaration_rest(code)?;
    let body = at + code.len() - rest.len();
    let end = at + code.len();
    let (name_end, shape) = match rest.find(':') {
        Some(c) => {
            let from = body + c + 1;
            let lead = line[from..end].len() - line[from..end].trim_start().len();
            (body + c, Some(Span::new(from + lead, end)))
        }
        None => (end, None),
    };
    Some(DeclSpans { name: trimmed(line, body, name_end), shape })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::program::Program;
    use proptest::prelude::*;

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

    /// A declaration is read as one whatever `=` or `"` follows: the reader never reads it
    /// as a statement, and neither do the spans (the shape's span was the text after the
    /// quote, past the end of the line when the quote was not closed).
    #[test]
    fn a_declaration_holding_an_equals_sign_and_a_quote_is_a_declaration() {
        for line in [
            "tensor x: 2,3 = einsum \"ab",
            "param w: 4 = numpy \"ij,jk\"  x  # y = numpy \"q\"",
            "tensor x: 2; y = permute \"i=>i\" x",
            "tensor a\"b = c \"d: 2,q",
        ] {
            assert_eq!(stmt_spans(line), None, "{line}");
            let d = decl_spans(line).expect("a declaration");
            let shape = d.shape.expect("a shape");
            assert!(shape.end as usize <= line.len(), "{line}");
            let (name, written) = line.split_once(':').expect("a colon");
            let written = written.split('#').next().unwrap().trim();
            assert_eq!(&line[shape.range()], written, "{line}");
            assert_eq!(&line[d.name.range()], name.split_once(' ').unwrap().1.trim(), "{line}");
        }
    }

    /// Lines over an alphabet of the format's punctuation: keywords, names, `=`, `:`, `"`,
    /// `;`, `,`, `#` comments and spaces.
    fn lines() -> impl Strategy<Value = String> {
        let word = "[a-z\"=:;,#]{1,4}";
        let kw = prop_oneof![
            Just("tensor ".to_string()),
            Just("param ".to_string()),
            Just(String::new()),
            Just("einsum ".to_string()),
        ];
        let op = prop_oneof![
            Just("einsum".to_string()),
            Just("numpy".to_string()),
            Just("pointwise".to_string()),
            Just("q".to_string()),
        ];
        let rest = prop::collection::vec(
            prop_oneof![word.prop_map(String::from), Just(" ".to_string()), Just("\"".to_string())],
            0..8,
        );
        (" {0,2}", kw, "[a-z\" ]{0,3}", prop_oneof![Just(" = "), Just(": "), Just("=")], op, rest)
            .prop_map(|(lead, kw, name, sep, op, rest)| {
                format!("{lead}{kw}{name}{sep}{op} {}", rest.concat())
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The rule: the spans of a line name exactly the parts the program reader read from
        /// it (a declaration's name and shape; a statement's result, op, spec and operands).
        #[test]
        fn spans_name_what_the_reader_read(line in lines()) {
            let Ok(p) = Program::parse_text(&line) else { return Ok(()) };
            let at = |s: Span| &line[s.range()];
            if let Some(d) = p.decls.first() {
                prop_assert_eq!(stmt_spans(&line), None);
                let spans = decl_spans(&line).expect("a declaration's spans");
                prop_assert_eq!(at(spans.name), d.name.as_str());
                prop_assert_eq!(spans.shape.map(at), d.shape.as_deref());
            }
            if let Some(st) = p.stmts.first() {
                prop_assert_eq!(decl_spans(&line), None);
                let spans = stmt_spans(&line).expect("a statement's spans");
                prop_assert_eq!(at(spans.out), st.out.as_str());
                prop_assert_eq!(spans.spec.map(at), st.spec.as_deref());
                let args: Vec<&str> = spans.args.iter().map(|&a| at(a)).collect();
                prop_assert_eq!(args, st.args.iter().map(String::as_str).collect::<Vec<_>>());
                prop_assert!(op_from_name(at(spans.op)) == Some(st.op));
            }
        }
    }
}
