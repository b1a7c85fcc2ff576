//! The cargo-fuzz seeds (`fuzz/seeds/<target>/`) run through the properties their targets
//! check, so that `cargo test` keeps every seed meaningful and passing without cargo-fuzz:
//! `parse_spec` (the three front ends: no panic, spans inside, round trips), `solve_graph`
//! (program text or generator recipes: solutions pass the checker), `kernel` (einsum on
//! strided views against the naive reference), `formats` (the readers' round trips),
//! `einsum_path` (a planned path contracts every operand) and `shape_rules` (near-valid
//! numpy-semantics programs drawn and judged). Every target has seeds.

#![cfg(feature = "fuzzing")]

use std::path::{Path, PathBuf};

use einrow::fuzzing::gen::{Choices, GenConfig, Recipe, StepRecipe};
use einrow::fuzzing::numpy_ops::{draw_program, near_valid, NpConfig, Outcome};
use einrow::fuzzing::props::{check_program, FailureKind};
use einrow::fuzzing::specs::{check_spec_text, Front};
use einrow::fuzzing::views::{check_einsum_views, einsum_on_views};
use einrow::infer::program::Program;

fn seeds(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/seeds").join(target);
    let mut out: Vec<(PathBuf, Vec<u8>)> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| {
            let path = e.expect("a directory entry").path();
            let bytes = std::fs::read(&path).expect("a readable seed");
            (path, bytes)
        })
        .collect();
    out.sort();
    assert!(!out.is_empty(), "no seeds for {target}");
    out
}

#[test]
fn every_target_has_seeds() {
    let targets = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/fuzz_targets");
    for entry in std::fs::read_dir(targets).expect("fuzz targets") {
        let path = entry.expect("an entry").path();
        let name = path.file_stem().and_then(|s| s.to_str()).expect("a name");
        assert!(seeds(name).len() >= 4, "{name} has too few seeds");
    }
}

#[test]
fn parse_spec_seeds() {
    for (path, bytes) in seeds("parse_spec") {
        let text = String::from_utf8(bytes).expect("text seeds");
        for front in [Front::Labels, Front::Einsum, Front::Numpy] {
            check_spec_text(front, &text).unwrap_or_else(|f| panic!("{}: {f}", path.display()));
        }
    }
}

fn words(data: &[u8]) -> Vec<u32> {
    data.chunks(4).map(|c| c.iter().fold(0u32, |w, b| (w << 8) | u32::from(*b))).collect()
}

#[test]
fn solve_graph_seeds() {
    let (mut texts, mut recipes) = (0, 0);
    for (path, bytes) in seeds("solve_graph") {
        let (&mode, rest) = bytes.split_first().expect("a mode byte");
        let program = if mode % 4 == 0 {
            texts += 1;
            let text = std::str::from_utf8(rest).expect("program text");
            Program::parse_text(text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        } else {
            recipes += 1;
            let steps = words(rest)
                .chunks(16)
                .map(|c| StepRecipe { op: c[0], choices: c[1..].to_vec() })
                .collect();
            let cfg = GenConfig { open_leaves: mode % 2 == 1, ..GenConfig::default() };
            Recipe { steps }.build(&cfg).program
        };
        if let Err(f) = check_program(&program) {
            let bug = matches!(
                f.kind,
                FailureKind::Panic | FailureKind::Violation | FailureKind::Unsolved
            );
            assert!(!bug, "{}: {f}", path.display());
        }
    }
    assert!(texts >= 4 && recipes >= 4);
}

#[test]
fn kernel_seeds() {
    for (path, bytes) in seeds("kernel") {
        let words: Vec<u32> = bytes.iter().map(|b| u32::from(*b)).collect();
        let (case, views, dtype) = einsum_on_views(&mut Choices::new(&words));
        check_einsum_views(&case, &views, dtype)
            .unwrap_or_else(|f| panic!("{}: {f}", path.display()));
    }
}

#[test]
fn formats_seeds() {
    for (path, bytes) in seeds("formats") {
        if let Ok(text) = std::str::from_utf8(&bytes) {
            einrow::formats::roundtrip::check_text(text)
                .unwrap_or_else(|v| panic!("{}: {v}", path.display()));
        }
    }
}

#[test]
fn einsum_path_seeds() {
    use einrow::numpy::{einsum_path, Optimize, PathOptions};
    let mut planned = 0;
    for (_, bytes) in seeds("einsum_path") {
        let text = String::from_utf8(bytes).expect("text seeds");
        let mut lines = text.split('\n');
        let spec = lines.next().unwrap_or("");
        let shapes: Vec<Vec<usize>> = lines
            .next()
            .map(|s| {
                s.split(';')
                    .map(|op| op.split(',').filter_map(|x| x.trim().parse().ok()).collect())
                    .collect()
            })
            .unwrap_or_default();
        let optimize = match lines.next().map(str::trim) {
            None | Some("") => Optimize::Auto,
            Some(t) => Optimize::parse(t).expect("seed strategies parse"),
        };
        let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        if let Ok(report) = einsum_path(spec, &refs, &PathOptions::new(optimize)) {
            planned += 1;
            let left = report.path().iter().fold(refs.len(), |left, step| left - step.len() + 1);
            assert_eq!(left, 1, "{spec}");
        }
    }
    assert!(planned >= 4);
}

#[test]
fn shape_rules_seeds() {
    let cfg = NpConfig::default();
    let mut refused = 0;
    for (_, bytes) in seeds("shape_rules") {
        let w = words(&bytes);
        let mut d = Choices::new(&w);
        let p = draw_program(&cfg, &mut d);
        assert!(p.evaluate().iter().all(|o| matches!(o, Outcome::Value(_))), "{}", p.to_text());
        let m = near_valid(&p, &cfg, &mut d);
        refused +=
            usize::from(m.program.evaluate().iter().any(|o| matches!(o, Outcome::Rejected(_))));
    }
    assert!(refused >= 4);
}
