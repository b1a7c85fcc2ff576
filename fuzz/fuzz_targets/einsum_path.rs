//! numpy's `einsum_path` on arbitrary text: the first line is the subscripts, the second the
//! operands' shapes (`;` between operands, `,` between sizes), the third an optional
//! `--optimize` text (a strategy name or an explicit path) and the fourth an optional memory
//! limit. Never a panic; a planned path contracts every operand into one result, each step
//! naming distinct positions of the operands left.
#![no_main]

use einrow::numpy::{einsum_path, MemoryLimit, Optimize, PathOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let mut lines = text.split('\n');
    let spec = lines.next().unwrap_or("");
    let shapes: Vec<Vec<usize>> = match lines.next() {
        None => Vec::new(),
        Some(s) => s
            .split(';')
            .map(|op| op.split(',').filter_map(|x| x.trim().parse().ok()).collect())
            .collect(),
    };
    let optimize = match lines.next().map(str::trim) {
        None | Some("") => Optimize::Auto,
        Some(t) => match Optimize::parse(t) {
            Ok(o) => o,
            Err(_) => return,
        },
    };
    let mut opts = PathOptions::new(optimize);
    if let Some(Ok(limit)) = lines.next().map(MemoryLimit::parse) {
        opts = opts.memory_limit(limit);
    }
    let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
    let Ok(report) = einsum_path(spec, &refs, &opts) else { return };
    let mut left = refs.len();
    for step in report.path() {
        let mut seen = step.clone();
        seen.sort_unstable();
        seen.dedup();
        assert_eq!(seen.len(), step.len(), "a step names a position twice: {step:?}");
        assert!(seen.iter().all(|&p| p < left), "a step past the {left} operands: {step:?}");
        left = left - step.len() + 1;
    }
    assert_eq!(left, 1, "{spec}: the path {:?} leaves {left} operands", report.path());
    let _ = report.to_string();
    let _ = report.to_json();
});
