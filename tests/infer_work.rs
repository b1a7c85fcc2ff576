//! Inference takes work about linear in the program, counted by the solver
//! ([`Graph::work`]: constraints processed and copies made for careful trials, the same on
//! every run), never timed. A program rejected after a careful replay ran each careful trial's
//! own trials again without a budget, so that disjoint parts of a program multiplied: the
//! programs of `tests/data/scale/` (drawn by `einrow fuzz infer`) took 1 to 2 s alone and
//! minutes as two renamed copies. One budget now bounds all careful work, failed trials
//! included. `examples/generated_scale.rs` measures the time.
#![cfg(feature = "fuzzing")]

use einrow::code::{Coded, ErrorCode};
use einrow::fuzzing::work::{check_work, program_work, WorkBudget};
use einrow::fuzzing::{programs, GenConfig};
use einrow::infer::program::Program;
use proptest::prelude::*;

/// `k` copies of `text` with every name renamed per copy (declarations first, as the
/// generator writes them), so that the copies are disjoint.
fn copies(text: &str, k: usize) -> String {
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    // A name is a word `x<digits>` or `t<digits>` outside the quoted specs.
    let rename = |line: &str, c: usize| -> String {
        let (mut out, mut word, mut quoted) = (String::new(), String::new(), false);
        let flush = |word: &mut String, out: &mut String, quoted: bool| {
            let name = !quoted
                && word.len() > 1
                && word.starts_with(['x', 't'])
                && word[1..].bytes().all(|b| b.is_ascii_digit());
            out.push_str(word);
            if name {
                out.push_str(&format!("_{c}"));
            }
            word.clear();
        };
        for ch in line.chars() {
            if ch.is_ascii_alphanumeric() || ch == '_' {
                word.push(ch);
                continue;
            }
            flush(&mut word, &mut out, quoted);
            quoted ^= ch == '"';
            out.push(ch);
        }
        flush(&mut word, &mut out, quoted);
        out
    };
    let decl = |l: &&str| l.starts_with("tensor") || l.starts_with("param");
    let mut out = Vec::new();
    for c in 0..k {
        out.extend(lines.iter().filter(|l| decl(l)).map(|l| rename(l, c)));
    }
    for c in 0..k {
        out.extend(lines.iter().filter(|l| !decl(l)).map(|l| rename(l, c)));
    }
    out.join("\n") + "\n"
}

/// The work of building and solving `text`, and its error code.
fn work_of(text: &str) -> (u64, Option<ErrorCode>) {
    let program = Program::parse_text(text).expect("the program reads");
    let built = program.build();
    (built.graph.work(), built.result.err().map(|(e, _)| e.code()))
}

/// Asserts that `k` disjoint copies of the program take about `k` times its work, and are
/// rejected as it is.
fn assert_copies_add_up(path: &str, ks: &[usize]) {
    let text = std::fs::read_to_string(path).expect("the program is there");
    let (one, code) = work_of(&text);
    assert_eq!(code, Some(ErrorCode::Mismatch), "{path}");
    for &k in ks {
        let (work, code) = work_of(&copies(&text, k));
        assert_eq!(code, Some(ErrorCode::Mismatch), "{path} x{k}");
        // A copy's careful budget grows with the program, so each copy may use its own share:
        // the total stays within a constant of k copies, never a product.
        assert!(work <= 2 * k as u64 * one, "{path}: {k} copies take {work}, one {one}");
    }
}

#[test]
fn copies_of_a_rejected_generated_program_add_up() {
    assert_copies_add_up("tests/data/scale/generated_rejected.ein", &[2, 4, 16]);
}

#[test]
fn copies_of_a_program_replayed_carefully_add_up() {
    assert_copies_add_up("tests/data/scale/careful_replay.ein", &[2, 4, 16]);
}

/// The programs themselves are within the fuzz campaigns' linear budget, alone and copied.
#[test]
fn the_scale_programs_are_within_the_linear_budget() {
    for path in ["tests/data/scale/generated_rejected.ein", "tests/data/scale/careful_replay.ein"] {
        let text = std::fs::read_to_string(path).expect("the program is there");
        for k in [1, 8] {
            let program = Program::parse_text(&copies(&text, k)).expect("reads");
            assert_eq!(check_work(&program, WorkBudget::default()), Ok(()), "{path} x{k}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    /// The rule the campaigns hold programs to: the generator's programs (leaves opened, so
    /// that some are rejected and replayed carefully) take work within the linear budget.
    #[test]
    fn generated_programs_take_work_linear_in_their_size(
        g in programs(GenConfig { max_steps: 120, open_leaves: true, ..GenConfig::default() })
    ) {
        let (work, bytes) = program_work(&g.program).map_err(|f| TestCaseError::fail(f.to_string()))?;
        let allowed = WorkBudget::default().allowed(bytes);
        prop_assert!(work <= allowed, "{} units for {} bytes", work, bytes);
    }
}
