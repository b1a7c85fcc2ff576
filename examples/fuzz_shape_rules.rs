//! Fuzzing a framework's own shape rules with einrow.
//!
//! A framework computes result shapes with its own code. Here that code is `my_rules`: a
//! pointwise rule (numpy-style broadcasting by `1!`), a matmul-style `compose` rule and a
//! transpose rule, with a deliberate bug in `compose` (the result's batch row is taken from
//! the first operand instead of broadcasting both). The example draws random well-formed
//! programs from einrow's generator, runs the framework's rules forward from the leaves, and
//! judges every result with einrow's judge (`judge_step`: is the claim THE result, the step
//! solved alone?); the first wrong result is shrunk and printed as a case file (the case
//! format of `einrow::check::format`) that can be kept as a test.
//!
//! Run: `cargo run --example fuzz_shape_rules` (finds the bug; exit status 0 when found), or
//! `-- fixed` for the corrected rules (exit status 0 when every program agrees); `--count N`
//! draws at most N programs (default 2000). Frameworks that follow numpy (flat shapes, integer
//! axes) are fuzzed without translation by `einrow::fuzzing::numpy_ops` instead: see
//! `tests/planted_bugs.rs`.

use einrow::fuzzing::campaign::{runner, shrink_tree};
use einrow::fuzzing::case_file::{infer_case, program_text, suite, witness_expect};
use einrow::fuzzing::gen::{programs, GenConfig, Generated};
use einrow::fuzzing::judge::judge_step;
use einrow::fuzzing::rules::join_trailing;
use einrow::fuzzing::shrink::{shrink_program, Edits};
use einrow::fuzzing::ConcreteShape;
use einrow::infer::program::Program;
use einrow::infer::OpKind;
use proptest::strategy::{Strategy, ValueTree};

/// The framework's shape rules (flat rows; every axis trailing).
fn my_rules(op: OpKind, args: &[&ConcreteShape], fixed: bool) -> Option<ConcreteShape> {
    let row = |s: &ConcreteShape, k: usize| [&s.batch, &s.input, &s.output][k].flat();
    let join =
        |a: &ConcreteShape, b: &ConcreteShape, k: usize| join_trailing(&row(a, k), &row(b, k));
    let shape = |b, i, o| Some(ConcreteShape::from_rows(b, i, o));
    match (op, args) {
        (OpKind::Pointwise, [a]) => Some((*a).clone()),
        (OpKind::Pointwise, [a, rest @ ..]) => {
            let mut acc = (*a).clone();
            for b in rest {
                acc = ConcreteShape::from_rows(
                    join(&acc, b, 0)?,
                    join(&acc, b, 1)?,
                    join(&acc, b, 2)?,
                );
            }
            Some(acc)
        }
        (OpKind::Compose, [a, b]) => {
            // The bug: a framework that forgets that `b` may have more batch axes.
            let batch = if fixed { join(a, b, 0)? } else { row(a, 0) };
            shape(batch, row(b, 1), row(a, 2))
        }
        (OpKind::Transpose, [a]) => shape(row(a, 0), row(a, 2), row(a, 1)),
        _ => None,
    }
}

/// Runs the framework's rules over a generated program, forward from its declared leaves,
/// and judges every result: it must be THE result of its step.
fn agree(g: &Generated, fixed: bool) -> Result<(), String> {
    let mut shapes: Vec<(String, ConcreteShape)> = Vec::new();
    for d in &g.program.decls {
        let text = d.shape.as_deref().ok_or("a leaf without a shape")?;
        shapes.push((d.name.clone(), ConcreteShape::parse(text)?));
    }
    for s in &g.program.stmts {
        let args: Vec<&ConcreteShape> = s
            .args
            .iter()
            .map(|a| shapes.iter().rev().find(|(n, _)| n == a).map(|(_, sh)| sh))
            .collect::<Option<_>>()
            .ok_or("undefined operand")?;
        let mine = my_rules(s.op, &args, fixed);
        let judgement = judge_step(s, &args, mine.as_ref());
        if !judgement.is_ok() {
            return Err(format!("{}: my rules are {judgement}", s.out));
        }
        let Some(mine) = mine else { return Ok(()) };
        shapes.push((s.out.clone(), mine));
    }
    Ok(())
}

fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let fixed = args.iter().any(|a| a == "fixed");
    let count = args
        .iter()
        .position(|a| a == "--count")
        .and_then(|i| args.get(i + 1))
        .and_then(|n| n.parse::<usize>().ok())
        .unwrap_or(2000);
    let cfg = GenConfig {
        ops: vec![(OpKind::Pointwise, 3), (OpKind::Compose, 3), (OpKind::Transpose, 1)],
        ..GenConfig::default()
    };
    let strategy = programs(cfg);
    let mut runner = runner(7);
    for i in 0..count {
        let Ok(mut tree) = strategy.new_tree(&mut runner) else { break };
        if agree(&tree.current(), fixed).is_ok() {
            continue;
        }
        // Shrink the random choices, then the program itself (structural edits keep it a
        // program einrow solves).
        let small = shrink_tree(&mut tree, 2000, &mut |g| agree(g, fixed).is_err());
        let with = |p: &Program| Generated { program: p.clone(), ..small.clone() };
        let program = shrink_program(&small.program, Edits::Structural, 2000, &mut |p| {
            agree(&with(p), fixed).is_err()
        });
        let small = with(&program);
        let why = agree(&small, fixed).err().unwrap_or_default();
        println!("program {i} disagrees: {why}\n\n{}", program_text(&small.program));
        let case =
            infer_case("my-rules-1", &small.program, &witness_expect(&small, &small.program), &why);
        let doc = suite("my-rules", "found by examples/fuzz_shape_rules.rs", vec![case]);
        println!("{}", serde_json::to_string_pretty(&doc).unwrap_or_default());
        // The planted bug is meant to be found; the corrected rules are not.
        return if fixed {
            std::process::ExitCode::FAILURE
        } else {
            std::process::ExitCode::SUCCESS
        };
    }
    println!("{count} programs: the rules agree with einrow");
    if fixed {
        std::process::ExitCode::SUCCESS
    } else {
        std::process::ExitCode::FAILURE
    }
}
