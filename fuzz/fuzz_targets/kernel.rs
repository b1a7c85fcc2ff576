//! numpy einsum on strided views from bytes (spec, shapes, strides, offsets, dtype): never a
//! panic, and where the naive reference accepts the case, einrow's result equals it.
#![no_main]

use einrow::fuzzing::gen::Choices;
use einrow::fuzzing::views::{check_einsum_views, einsum_on_views};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let words: Vec<u32> = data.iter().map(|b| u32::from(*b)).collect();
    let (case, views, dtype) = einsum_on_views(&mut Choices::new(&words));
    if let Err(f) = check_einsum_views(&case, &views, dtype) {
        panic!("{f}");
    }
});
