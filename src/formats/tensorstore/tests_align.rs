//! Alignment tests: the cases of TensorStore's `alignment_test.cc`, as data.

use serde_json::{json, Value};

use super::*;

fn dom(min: &[i64], max: &[i64], labels: &[&str]) -> IndexDomain {
    let mut v = json!({"inclusive_min": min, "exclusive_max": max});
    if !labels.is_empty() {
        v["labels"] = json!(labels);
    }
    IndexDomain::from_json(&v).unwrap()
}

fn opts(s: &str) -> AlignOptions {
    AlignOptions {
        permute: s.contains('p'),
        translate: s.contains('t'),
        broadcast: s.contains('b'),
    }
}

/// `expect`: the matches (`-1` for none), or `None` for an error whose message contains
/// `message`.
fn check(source: &IndexDomain, target: &IndexDomain, options: &str, expect: Result<&[i64], &str>) {
    let got = align_dimensions_to(source, target, opts(options));
    match (got, expect) {
        (Ok(m), Ok(e)) => {
            let m: Vec<i64> = m.iter().map(|x| x.map_or(-1, |j| j as i64)).collect();
            assert_eq!(m, e, "{source} -> {target} [{options}]");
        }
        (Err(err), Err(msg)) => assert!(err.to_string().contains(msg), "{err} lacks {msg}"),
        (got, expect) => {
            panic!("{source} -> {target} [{options}]: got {got:?}, expected {expect:?}")
        }
    }
}

#[test]
fn alignment_test_cc() {
    let s = dom(&[3, 5, 4], &[7, 6, 10], &[]);
    let t = dom(&[2, 0, 6], &[6, 4, 12], &[]);
    check(&s, &t, "ptb", Ok(&[0, -1, 2]));
    check(&s, &t, "tb", Ok(&[0, -1, 2]));
    check(&s, &s, "", Ok(&[0, 1, 2]));
    check(&s, &t, "t", Err("Error aligning dimensions: source dimension 1 [5, 6) mismatch with target dimension 1 [0, 4)"));
    check(&s, &t, "b", Err("source dimension 0 [3, 7) mismatch with target dimension 0 [2, 6), source dimension 2 [4, 10) mismatch with target dimension 2 [6, 12)"));

    let sl = dom(&[3, 5, 4], &[7, 6, 10], &["x", "y", "z"]);
    let abc = dom(&[2, 0, 6], &[6, 4, 12], &["a", "b", "c"]);
    check(&sl, &abc, "tb", Ok(&[0, -1, 2]));
    check(&sl, &abc, "ptb", Err("unmatched source dimension 0 \"x\": [3, 7) does not have a size of 1, unmatched source dimension 2 \"z\": [4, 10) does not have a size of 1"));

    let tl = dom(&[4, 0, 6], &[8, 4, 12], &["x", "y", "z"]);
    check(&s, &tl, "ptb", Ok(&[0, -1, 2]));
    check(&sl, &dom(&[4, 0, 6], &[8, 4, 12], &[]), "tb", Ok(&[0, -1, 2]));

    let zxy = dom(&[6, 4, 0], &[12, 8, 4], &["z", "x", "y"]);
    check(&sl, &zxy, "ptb", Ok(&[1, -1, 0]));
    let zxy_same = dom(&[4, 3, 5], &[10, 7, 6], &["z", "x", "y"]);
    for o in ["p", "pt", "pb", "ptb"] {
        check(&sl, &zxy_same, o, Ok(&[1, 2, 0]));
    }
    for o in ["", "t", "b", "tb"] {
        check(&sl, &zxy_same, o, Err("Error aligning dimensions: "));
    }
    check(&dom(&[3, 5, 4], &[7, 9, 10], &["x", "y", "z"]), &zxy, "ptb", Ok(&[1, 2, 0]));

    let partial = dom(&[3, 5, 4], &[7, 6, 10], &["x", "y", ""]);
    let target4 = dom(&[0, 6, 4, 0], &[10, 12, 8, 4], &["", "", "x", "y"]);
    check(&partial, &target4, "ptb", Ok(&[2, -1, 1]));
    check(
        &partial,
        &target4,
        "",
        Err("Aligning source domain of rank 3 to target domain of rank 4 requires broadcasting"),
    );

    let s2 = dom(&[2, 3], &[5, 6], &[]);
    let t3 = dom(&[1, 2, 3], &[4, 5, 6], &[]);
    for o in ["b", "bt", "bp", "ptb"] {
        check(&s2, &t3, o, Ok(&[1, 2]));
    }
    for o in ["", "p", "t", "pt"] {
        check(&s2, &t3, o, Err("requires broadcasting"));
    }

    let xy = dom(&[2, 3], &[5, 4], &["x", "y"]);
    let xz = dom(&[2, 5], &[5, 10], &["x", "z"]);
    check(&xy, &xz, "pb", Ok(&[0, -1]));
    check(&xy, &xz, "ptb", Ok(&[0, -1]));
    for o in ["p", "pt"] {
        check(
            &xy,
            &xz,
            o,
            Err("Error aligning dimensions: unmatched source dimension 1 \"y\": [3, 4)"),
        );
    }

    let s4 = dom(&[3, 5, 7, 4], &[7, 9, 8, 10], &["x", "y", "", ""]);
    let t3l = dom(&[0, 4, 0], &[6, 8, 4], &["", "x", "y"]);
    check(&s4, &t3l, "ptb", Ok(&[1, 2, -1, 0]));

    let zwy = dom(&[6, 4, 0], &[12, 8, 4], &["z", "w", "y"]);
    check(
        &sl,
        &zwy,
        "ptb",
        Err("unmatched source dimension 0 \"x\": [3, 7) does not have a size of 1"),
    );
    check(
        &dom(&[3, 5, 4], &[7, 7, 10], &["x", "y", "z"]),
        &zxy,
        "ptb",
        Err("source dimension 1 \"y\": [5, 7) mismatch with target dimension 2 \"y\": [0, 4)"),
    );
    check(
        &dom(&[3, 5, 4], &[7, 7, 10], &[]),
        &dom(&[4, 0, 6], &[8, 4, 12], &[]),
        "ptb",
        Err("source dimension 1 [5, 7) mismatch with target dimension 1 [0, 4)"),
    );
    check(
        &dom(&[0], &[3], &["x"]),
        &dom(&[0], &[3], &["y"]),
        "ptb",
        Err("does not have a size of 1"),
    );
}

#[test]
fn alignment_transforms() {
    let partial = dom(&[3, 5, 4], &[7, 6, 10], &["x", "y", ""]);
    let target4 = dom(&[0, 6, 4, 0], &[10, 12, 8, 4], &["", "", "x", "y"]);
    let t = align_domain_to(&partial, &target4, AlignOptions::ALL).unwrap();
    let expected: Value = json!({
        "input_inclusive_min": [0, 6, 4, 0], "input_exclusive_max": [10, 12, 8, 4],
        "input_labels": ["", "", "x", "y"],
        "output": [{"input_dimension": 2, "offset": -1}, {"offset": 5}, {"input_dimension": 1, "offset": -2}]
    });
    assert_eq!(t.to_json(), expected);
    // Rule V4: without `translate`, equal sizes with different origins do not match.
    let a = dom(&[1], &[2], &[]);
    let b = dom(&[0], &[1], &[]);
    assert!(align_dimensions_to(&a, &b, opts("pb")).is_err());
    assert_eq!(align_dimensions_to(&a, &b, opts("ptb")).unwrap(), vec![Some(0)]);
    // Aligning a transform composes it with the alignment.
    let src =
        IndexTransform::from_json(&json!({"input_inclusive_min": [3], "input_exclusive_max": [5],
        "output": [{"input_dimension": 0, "stride": 2}]}))
        .unwrap();
    let aligned =
        align_transform_to(&src, &dom(&[0, 10], &[7, 12], &[]), AlignOptions::ALL).unwrap();
    assert_eq!(
        aligned.to_json(),
        json!({"input_inclusive_min": [0, 10], "input_exclusive_max": [7, 12],
               "output": [{"input_dimension": 1, "stride": 2, "offset": -14}]})
    );
}
