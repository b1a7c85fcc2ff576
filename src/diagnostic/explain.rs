//! A page for each code a diagnostic can have (`einrow explain CODE`): what it means, how it
//! is usually fixed, and a minimal `einrow` command that reports it. A test runs every
//! example and checks that it reports its page's code.

use super::lint::Lint;
use crate::code::ErrorCode;

/// A command line that reports a page's code: `einrow ARGS...`, with `stdin` on standard
/// input (a program read from `-`).
#[derive(Clone, Copy, Debug)]
pub struct Example {
    /// The arguments after `einrow`.
    pub args: &'static [&'static str],
    /// What the command reads on standard input, if anything.
    pub stdin: Option<&'static str>,
}

/// The page of one code.
#[derive(Clone, Copy, Debug)]
pub struct Page {
    /// The code: an [`ErrorCode`]'s name or a [`Lint`]'s.
    pub code: &'static str,
    /// What it means and how it is usually fixed.
    pub text: &'static str,
    /// A minimal command that reports it; `None` only where no small input can (a guard on
    /// the work of very large inputs).
    pub example: Option<Example>,
}

const fn program(text: &'static str) -> Option<Example> {
    Some(Example { args: &["infer", "-"], stdin: Some(text) })
}

const fn command(args: &'static [&'static str]) -> Option<Example> {
    Some(Example { args, stdin: None })
}

/// Every page: each [`ErrorCode`], then each [`Lint`].
pub const PAGES: [Page; 20] = [
    Page {
        code: "syntax",
        text: "Malformed input: a spec, a shape string, a literal or a JSON file that does not \
               parse. The caret points at the first character that cannot be read; the hint, \
               when there is one, is the text as it was probably meant.",
        example: program("tensor x: 3 4\n"),
    },
    Page {
        code: "arity",
        text: "An operation got a different number of operands than it takes (or than its \
               spec has slots for). A spec written with `,` where `;` separates operand slots \
               is the usual cause: the hint rewrites it.",
        example: program("tensor a: 2\nc = compose a\n"),
    },
    Page {
        code: "label",
        text: "A label used in a way a spec does not allow: a result label written twice, or \
               a name used both as an axis and as a row variable.",
        example: command(&["parse", "--numpy", "ij->ii"]),
    },
    Page {
        code: "name",
        text: "A name that refers to nothing: an unknown tensor, operation or lint. The hint \
               names the closest known name (by edit distance relative to the names' \
               lengths).",
        example: program("tensor weight: 3\ny = pointwise weigth\n"),
    },
    Page {
        code: "mismatch",
        text: "Two sizes (or bases) that must be equal, or broadcast, are not. The carets show \
               both at the step where they meet; the notes say where each size came from: the \
               declaration that writes it and every step that carried it, and for a computed \
               size (a convolution's output, a stride, a concatenation) the formula and its \
               inputs. `--explain` lists that chain in full.",
        example: program("tensor a: 3\ntensor b: 4\nc = pointwise a b\n"),
    },
    Page {
        code: "rank",
        text: "A row has a different number of axes than a step needs: both rows are shown, \
               each traced to the declaration that gives it its length.",
        example: program("tensor a: 2,3\ntensor b: 2,3,4\nc = einsum \"ij;ij=>ij\" a b\n"),
    },
    Page {
        code: "cycle",
        text: "A row would have to contain itself plus more axes: infinitely many axes. Two \
               steps relate a row with a longer version of itself.",
        example: program(
            "tensor x: ...\ntensor d: 2\ny = einsum \"..r..; i => ..r.., i\" x d\n\
             z = einsum \"..r..; ..r.. => ..r..\" y x\n",
        ),
    },
    Page {
        code: "unresolved",
        text: "Nothing determines a size or a row of a parameter (parameters are never \
               guessed). The hints say which declaration or capture would determine it.",
        example: program("param w\ntensor x: 4\ny = compose w x\n"),
    },
    Page {
        code: "elems",
        text: "An element count that does not fit: a literal with more or fewer values than \
               its type has cells, or a path whose intermediates exceed a memory limit.",
        example: command(&["run", "x", "--named", "tensor(x[2]):[1,2,3]"]),
    },
    Page {
        code: "bounds",
        text: "An index or bound out of range: a contraction path naming an operand that is \
               not there, an index past a dimension's end.",
        example: command(&[
            "path",
            "ij,jk,kl->il",
            "2,2",
            "2,5",
            "5,2",
            "--optimize",
            "[[0,1],[1,2]]",
        ]),
    },
    Page {
        code: "value",
        text: "A number that is not allowed where it is given: a count of 0 where at least 1 \
               is needed, a size too large to allocate.",
        example: command(&["run", "ij->ij", "--random", "2,2", "--bench", "0"]),
    },
    Page {
        code: "type",
        text: "A value that does not fit its declared type: a Vespa tensor whose `type` is not \
               a string, a mapped label in an indexed dimension.",
        example: command(&["run", "x", "--named", "{\"type\":3,\"values\":[1]}"]),
    },
    Page {
        code: "unsupported",
        text: "A request einrow cannot serve: an element type it does not store, a mapped \
               (sparse) dimension, a kind of case it does not run.",
        example: command(&["run", "i->", "--random", "3", "--dtype", "uint16"]),
    },
    Page {
        code: "io",
        text: "A file that cannot be read (missing, unreadable, a folder), or an output that \
               cannot be written.",
        example: command(&["infer", "no-such-program.ein"]),
    },
    Page {
        code: "resource",
        text: "A limit einrow keeps on its own work was reached: a case of more than 2^24 \
               JSON values, a program of more than 2^21 statements, shapes holding more axes \
               than the solver's guard allows. The input is not known to be wrong, only too \
               costly to finish: split it. No small input reaches these limits, so this page \
               has no example.",
        example: None,
    },
    Page {
        code: "redefined-tensor",
        text: "A lint: a tensor name is defined again, and from there on names the new \
               definition. Give the new tensor its own name unless replacing the old one is \
               meant; `# einrow: allow(redefined-tensor)` after the statement says it is.",
        example: program("tensor x: 2\nh = pointwise x\nh = pointwise h x\n"),
    },
    Page {
        code: "unsized-label",
        text: "A lint: a spec's result has a label that no operand slot has, so nothing sizes \
               it and it is 1 (a broadcast axis) unless another step fixes it; usually a typo \
               in the result.",
        example: program("tensor a: 2,3\ntensor b: 3,4\nc = einsum \"ij;jk=>iz\" a b\n"),
    },
    Page {
        code: "parameter-batch",
        text: "A lint: a parameter declared without its batch row took batch axes from its \
               uses, so it became one per example (a bias of `32|10` for a batch of 32). \
               Declare its shape if it is shared across the batch.",
        example: program("tensor x: 32|10\nparam b: ...|10\ny = pointwise x b\n"),
    },
    Page {
        code: "guessed-rank",
        text: "A lint: an open row (`...`) that no operation sizes was closed to no axes. \
               Declare its axes if it should have some.",
        example: program("tensor x: ...|8\nparam w: 8->4\ny = compose w x\n"),
    },
    Page {
        code: "guessed-size",
        text: "A lint: a dimension that nothing determines was closed to 1, though other sizes \
               fit too (one head of a split, a `1!`). Declare it, or fix it with a capture.",
        example: program("tensor x: 8\ny = permute \"4*h<+k => h,k\" x\n"),
    },
];

/// The page of a code (an error code's name or a lint's).
pub fn page(code: &str) -> Option<&'static Page> {
    PAGES.iter().find(|p| p.code == code)
}

/// Every code that has a page: each error code's name, then each lint's.
pub fn codes() -> impl Iterator<Item = &'static str> {
    PAGES.iter().map(|p| p.code)
}

impl Page {
    /// The page as text: the code and what it is, the explanation, and the example.
    ///
    /// ```
    /// let page = einrow::diagnostic::explain::page("mismatch").expect("a page");
    /// let text = page.render();
    /// assert!(text.starts_with("mismatch: Sizes or bases that cannot be equal"), "{text}");
    /// assert!(text.contains("$ einrow infer - <<'EOF'\n  tensor a: 3\n"), "{text}");
    /// ```
    pub fn render(&self) -> String {
        let mut out = format!("{}: {}\n\n", self.code, self.summary());
        out.push_str(&wrap(self.text, 92));
        if let Some(e) = &self.example {
            out.push_str("\nExample:\n\n");
            let args: Vec<String> = e.args.iter().map(|a| quoted(a)).collect();
            match e.stdin {
                Some(text) => {
                    out.push_str(&format!("  $ einrow {} <<'EOF'\n", args.join(" ")));
                    for line in text.lines() {
                        out.push_str(&format!("  {line}\n"));
                    }
                    out.push_str("  EOF\n");
                }
                None => out.push_str(&format!("  $ einrow {}\n", args.join(" "))),
            }
        }
        out
    }

    /// The one-line summary: the error code's meaning, or the lint's.
    pub fn summary(&self) -> String {
        let lint = Lint::ALL.into_iter().find(|l| l.name() == self.code);
        match (ErrorCode::from_name(self.code), lint) {
            (Some(c), _) => capitalized(c.meaning()),
            (None, Some(l)) => format!("(lint) {}", l.summary()),
            (None, None) => String::new(),
        }
    }
}

fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// An argument as a shell would need it written: quoted when it holds anything but plain
/// characters.
fn quoted(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_.,/=:".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        arg.to_string()
    } else {
        format!("'{}'", arg.replace('\'', r"'\''"))
    }
}

/// Text broken into lines of at most `width` characters (at spaces).
fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_and_lint_has_one_page() {
        let mut want: Vec<&str> = crate::code::ALL.iter().map(|c| c.as_str()).collect();
        want.extend(Lint::ALL.iter().map(|l| l.name()));
        let have: Vec<&str> = codes().collect();
        assert_eq!(have, want);
        assert!(PAGES.iter().all(|p| !p.summary().is_empty()));
    }

    #[test]
    fn arguments_are_quoted_for_a_shell() {
        assert_eq!(quoted("ij,jk->ik"), "'ij,jk->ik'");
        assert_eq!(quoted("2,3"), "2,3");
        assert_eq!(quoted("it's"), r"'it'\''s'");
    }
}
