//! Property tests of execution: numpy einsum on random strided views (zero, negative and
//! gapped strides, offsets; f64, f32 and int8) equals the naive reference on the views'
//! logical values, and never panics on near-valid cases.
#![cfg(feature = "fuzzing")]

use einrow::fuzzing::views::{check_einsum_views, einsum_view_cases};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    #[test]
    fn einsum_on_views_matches_the_naive_reference((case, views, dtype) in einsum_view_cases()) {
        check_einsum_views(&case, &views, dtype).map_err(|f| TestCaseError::fail(f.to_string()))?;
    }
}
