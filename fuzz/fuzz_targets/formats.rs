//! The format readers on arbitrary text (Vespa types, literals and JSON, TensorStore JSON,
//! einrow's tensor input): no panic, and the round-trip invariants of
//! `einrow::formats::roundtrip` hold.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Err(violation) = einrow::formats::roundtrip::check_text(text) {
            panic!("{violation}");
        }
    }
});
