//! The format round-trip invariants on every text of the public Vespa and TensorStore suites,
//! and on truncations and single-byte edits of them (the seeds of the `formats` fuzz target).

#![cfg(feature = "kernel")]

use serde_json::Value;

fn texts(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::String(s) => out.push(s.clone()),
        Value::Array(xs) => xs.iter().for_each(|x| texts(x, out)),
        Value::Object(m) => {
            out.push(v.to_string());
            m.values().for_each(|x| texts(x, out));
        }
        _ => {}
    }
}

#[test]
fn suites_and_their_mutations_round_trip() {
    let mut seeds = Vec::new();
    for file in ["tests/conformance/vespa.json", "tests/conformance/tensorstore.json"] {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
        texts(&doc["cases"], &mut seeds);
    }
    assert!(seeds.len() > 300, "only {} seed texts", seeds.len());
    let mut checked = 0;
    for seed in &seeds {
        let mut variants = vec![seed.clone()];
        for cut in [1, 2, 5].into_iter().filter(|c| *c < seed.len()) {
            let end = (0..=seed.len() - cut).rev().find(|i| seed.is_char_boundary(*i)).unwrap_or(0);
            variants.push(seed[..end].to_string());
        }
        for (i, _) in seed.char_indices().step_by(11) {
            for b in ['[', '"', ':', '-'] {
                let mut v = seed.clone();
                v.replace_range(
                    i..i + v[i..].chars().next().map_or(0, char::len_utf8),
                    &b.to_string(),
                );
                variants.push(v);
            }
        }
        for v in variants {
            if let Err(e) = einrow::formats::roundtrip::check_text(&v) {
                panic!("{v:?}: {e}");
            }
            checked += 1;
        }
    }
    println!("{checked} texts checked");
}
