//! Both front ends on arbitrary text: no panic, every error span inside the input, and every
//! accepted spec prints to text that parses back to the same tree.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    let inside = |s: einrow::Span| s.start <= s.end && s.end as usize <= text.len();
    match einrow::spec::parse_labels(text) {
        Ok(spec) => {
            let again = einrow::spec::parse_labels(&spec.to_string()).expect("printed labels parse");
            assert_eq!(again.without_spans(), spec.without_spans());
        }
        Err(e) => assert!(inside(e.span())),
    }
    match einrow::spec::parse_einsum(text) {
        Ok(spec) => {
            let again = einrow::spec::parse_einsum(&spec.to_string()).expect("printed einsum parses");
            assert_eq!(again.without_spans(), spec.without_spans());
        }
        Err(e) => assert!(inside(e.span())),
    }
    match einrow::spec::parse_numpy(text) {
        Ok(spec) => {
            let again = einrow::spec::parse_numpy(&spec.to_string()).expect("printed numpy parses");
            assert_eq!(again.without_spans(), spec.without_spans());
        }
        Err(e) => assert!(inside(e.span())),
    }
});
