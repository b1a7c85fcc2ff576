//! Total-elements side constraints (`Graph::total_elems`, ocannl-semantics §3.8), as data: the
//! declarations, the element counts, then each tensor's expected shape or the error code.

use einrow::code::Coded;
use einrow::infer::Graph;

/// `decls`: `(name, shape, param)`; `totals`: `(name, n)`; `expected`: `(name, shape)` pairs,
/// or `Err(code)` for the error the graph must report (at the constraint or at solving).
fn check(
    decls: &[(&str, Option<&str>, bool)],
    totals: &[(&str, u64)],
    expected: Result<&[(&str, &str)], &str>,
) {
    let mut g = Graph::new();
    let ids: Vec<_> = decls
        .iter()
        .map(|(n, s, p)| g.declare(n, *s, *p).expect("the declaration is valid"))
        .collect();
    let id = |name: &str| ids[decls.iter().position(|d| d.0 == name).expect("declared")];
    let result =
        totals.iter().try_for_each(|(n, k)| g.total_elems(id(n), *k)).and_then(|()| g.solve());
    match (result, expected) {
        (Ok(()), Ok(shapes)) => {
            for (name, want) in shapes {
                assert_eq!(
                    g.shape_string(id(name)).expect("solved"),
                    *want,
                    "{name} in {decls:?} {totals:?}"
                );
            }
        }
        (Err(e), Err(code)) => assert_eq!(e.code().to_string(), code, "{e}"),
        (got, want) => panic!("{decls:?} {totals:?}: got {got:?}, expected {want:?}"),
    }
}

#[test]
fn known_axes_and_one_unknown() {
    check(&[("x", Some("2,3"), false)], &[("x", 6)], Ok(&[("x", "2,3")]));
    check(&[("x", Some("2,3"), false)], &[("x", 7)], Err("elems"));
    check(&[("x", Some("2,3"), false)], &[("x", 12)], Err("elems"));
    check(&[("x", Some("4|3,..."), true)], &[("x", 24)], Ok(&[("x", "4|3,2")]));
    check(&[("x", Some("5,..."), false)], &[("x", 12)], Err("elems"));
}

#[test]
fn open_rows_close_with_the_output_row_first() {
    check(&[("w", None, true)], &[("w", 12)], Ok(&[("w", "12")]));
    check(&[("w", Some("...->..."), true)], &[("w", 1)], Ok(&[("w", "")]));
    check(&[("w", Some("...->2"), true)], &[("w", 8)], Ok(&[("w", "4->2")]));
    check(&[("w", Some("..."), false)], &[("w", 0)], Ok(&[("w", "0")]));
}

#[test]
fn counts_combine_with_operations() {
    // `y = w * x`: x's output row [3] fixes w's input row; 12 elements leave 4 outputs.
    let mut g = Graph::new();
    let w = g.declare("w", Some("...->..."), true).expect("declares");
    let x = g.declare("x", Some("3"), false).expect("declares");
    let y = g.compose(w, x).expect("composes");
    g.total_elems(w, 12).expect("consistent so far");
    g.solve().expect("solves");
    assert_eq!(g.shape_string(w).expect("solved"), "3->4");
    assert_eq!(g.shape_string(y).expect("solved"), "4");
}

#[test]
fn bad_counts_are_errors_not_panics() {
    let mut g = Graph::new();
    let x = g.declare("x", Some("2,3"), false).expect("declares");
    assert!(g.total_elems(x, u64::MAX).is_err());
    let foreign = Graph::new().declare("y", Some("6"), false).expect("declares");
    assert!(g.total_elems(foreign, 6).is_err());
}
