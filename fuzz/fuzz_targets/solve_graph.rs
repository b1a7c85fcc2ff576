//! Shape inference on programs from bytes: either a well-formed program interpreted from the
//! bytes (einrow's fuzzing generator, leaves sometimes opened) or the bytes as program text.
//! The solver must not panic, must terminate (libFuzzer's timeout), and any solution must
//! pass the independent checker.
#![no_main]

use einrow::fuzzing::gen::{GenConfig, Recipe, StepRecipe};
use einrow::fuzzing::props::{check_program, FailureKind};
use einrow::infer::program::Program;
use libfuzzer_sys::fuzz_target;

fn words(data: &[u8]) -> Vec<u32> {
    data.chunks(4).map(|c| c.iter().fold(0u32, |w, b| (w << 8) | u32::from(*b))).collect()
}

fn recipe(words: &[u32]) -> Recipe {
    let steps = words.chunks(16).map(|c| StepRecipe { op: c[0], choices: c[1..].to_vec() }).collect();
    Recipe { steps }
}

fn check(p: &Program) {
    if let Err(f) = check_program(p) {
        // Rejections are fine here; panics, unsolved successes and violations are bugs.
        assert!(!matches!(f.kind, FailureKind::Panic | FailureKind::Violation | FailureKind::Unsolved), "{f}");
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else { return };
    if mode % 4 == 0 {
        if let Ok(text) = std::str::from_utf8(rest) {
            if let Ok(p) = Program::parse_text(text) {
                check(&p);
            }
        }
        return;
    }
    let cfg = GenConfig { open_leaves: mode % 2 == 1, ..GenConfig::default() };
    check(&recipe(&words(rest)).build(&cfg).program);
});
