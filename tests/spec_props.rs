//! Property tests of the parsing stage: `parse(print(ast)) == ast` (modulo spans) for random
//! trees of all three front ends, and no input makes a front end panic or report a span
//! outside the input. The trees and texts come from the public strategies of
//! `einrow::fuzzing::specs`, the same ones `einrow fuzz specs` runs.
#![cfg(feature = "fuzzing")]

use einrow::fuzzing::specs::{
    check_spec_text, einsum_spec_ast, einsum_text, labels_spec_ast, labels_text, numpy_spec_ast,
    numpy_text, Front,
};
use einrow::spec::{parse_einsum, parse_labels, parse_numpy};
use proptest::prelude::*;

/// Prints a span-free tree, parses the text back, and compares the trees without spans.
fn check<T: std::fmt::Display + PartialEq + std::fmt::Debug, E: std::fmt::Display>(
    tree: &T,
    parse: impl Fn(&str) -> Result<T, E>,
    erase: impl Fn(&T) -> T,
) -> Result<(), TestCaseError> {
    let text = tree.to_string();
    let parsed = parse(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
    prop_assert_eq!(&erase(&parsed), tree, "text {:?}", text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn einsum_print_parse_round_trip(spec in einsum_spec_ast()) {
        check(&spec, parse_einsum, |s| s.without_spans())?;
    }

    #[test]
    fn labels_print_parse_round_trip(spec in labels_spec_ast()) {
        check(&spec, parse_labels, |s| s.without_spans())?;
    }

    #[test]
    fn numpy_print_parse_round_trip(spec in numpy_spec_ast()) {
        check(&spec, parse_numpy, |s| s.without_spans())?;
    }

    #[test]
    fn near_valid_texts_never_panic(
        labels in labels_text(), einsum in einsum_text(), numpy in numpy_text()
    ) {
        for (front, text) in [(Front::Labels, &labels), (Front::Einsum, &einsum), (Front::Numpy, &numpy)] {
            check_spec_text(front, text).map_err(|f| TestCaseError::fail(f.to_string()))?;
        }
    }

    #[test]
    fn no_panic_and_spans_inside(text in "[ a-z0-9_,.|;=<>+*^&-]{0,24}|\\PC{0,12}") {
        for front in [Front::Labels, Front::Einsum, Front::Numpy] {
            check_spec_text(front, &text).map_err(|f| TestCaseError::fail(f.to_string()))?;
        }
    }
}
