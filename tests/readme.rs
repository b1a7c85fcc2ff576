//! The README's shell transcripts are what the binary prints: every `$ einrow ...` line of a
//! `text` block is run, and its output (standard output, then standard error) must be the
//! lines that follow it, up to the next `$` line. `$ cat FILE` lines print the file.
#![cfg(feature = "cli")]

use std::process::Command;

/// One command of a transcript and the output shown under it.
struct Transcript {
    line: String,
    expected: String,
}

/// Splits a command line as a POSIX shell would for these transcripts: words separated by
/// blanks, `'…'` and `"…"` quoting, `#` to the end of the line a comment.
fn shell_words(line: &str) -> Vec<String> {
    let (mut words, mut word, mut quote, mut in_word) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => (quote, in_word) = (Some(c), true),
            (None, '#') if !in_word => break,
            (None, c) if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                }
                in_word = false;
            }
            (None, c) => (word, in_word) = (word + &c.to_string(), true),
        }
    }
    if in_word {
        words.push(word);
    }
    words
}

/// The transcripts of every `text` block of the README.
fn transcripts(readme: &str) -> Vec<Transcript> {
    let mut out: Vec<Transcript> = Vec::new();
    // Whether the lines belong to a `text` block, and to a transcript of this block.
    let (mut in_block, mut in_transcript) = (false, false);
    for line in readme.lines() {
        if line.starts_with("```") {
            (in_block, in_transcript) = (line == "```text", false);
            continue;
        }
        if !in_block {
            continue;
        }
        if let Some(cmd) = line.strip_prefix("$ ") {
            out.push(Transcript { line: cmd.to_string(), expected: String::new() });
            in_transcript = true;
        } else if let Some(t) = out.last_mut().filter(|_| in_transcript) {
            t.expected.push_str(line);
            t.expected.push('\n');
        }
    }
    out
}

/// What the command prints: standard output, then standard error.
fn run(words: &[String]) -> String {
    if words[0] == "cat" {
        return std::fs::read_to_string(&words[1]).expect("the transcript's file reads");
    }
    assert_eq!(words[0], "einrow", "a transcript runs einrow or cat: {words:?}");
    let out = Command::new(env!("CARGO_BIN_EXE_einrow")).args(&words[1..]).output().expect("runs");
    String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr)
}

#[test]
fn readme_transcripts_are_what_the_binary_prints() {
    let readme = std::fs::read_to_string("README.md").expect("README.md reads");
    let all = transcripts(&readme);
    assert!(all.len() >= 6, "the README's transcripts went missing: {}", all.len());
    for t in &all {
        let got = run(&shell_words(&t.line));
        assert_eq!(got, t.expected, "README transcript `$ {}`", t.line);
    }
}

#[test]
fn shell_words_quote_and_comment_as_a_shell() {
    let w = shell_words("einrow parse --numpy 'ij,jk->iki'   # a comment");
    assert_eq!(w, ["einrow", "parse", "--numpy", "ij,jk->iki"]);
    assert_eq!(shell_words(r#"a "b c" d'#e'"#), ["a", "b c", "d#e"]);
}
