//! Where each size of a dimension mismatch came from, through the library: declarations,
//! typed declarations and `set_dim` settings as origins, chains of several steps.

use einrow::infer::explain::{render_error, trace};
use einrow::infer::{Graph, InferError, OpKind, ShapeBuilder, Side};

/// The sides of a traced mismatch.
fn sides(e: &InferError) -> [Side; 2] {
    let InferError::Shape(s) = e else { panic!("not a shape error: {e}") };
    s.conflict.as_ref().expect("a mismatch").sides.clone()
}

#[test]
fn a_size_set_by_set_dim_is_traced_to_the_setting() -> Result<(), InferError> {
    let mut g = Graph::new();
    let x = g.input("x", &ShapeBuilder::new().output_open())?;
    let c = g.add_step_capturing(OpKind::Permute, &[x], "j => i,j", &["i", "j"])?;
    g.set_dim(c.handles[0], 3)?;
    g.set_dim(c.handles[1], 2)?;
    let d = g.pointwise(&[c.tensor])?;
    let y = g.input("y", &ShapeBuilder::array([4]))?;
    let mut e = g.einsum("i,j; i => i", &[d, y]).expect_err("3 against 4");
    trace(&g, &mut e);
    let [three, four] = sides(&e);
    let (three, four) = if three.value == 3 { (three, four) } else { (four, three) };
    let t3 = three.trace.expect("traced");
    let by = t3.setting.expect("set by set_dim");
    assert_eq!((by.handle.as_str(), by.size, by.step), ("i", 3, Some(c.step)));
    assert_eq!(t3.hops.len(), 1, "{:?}", t3.hops);
    let t4 = four.trace.expect("traced");
    assert_eq!(g.name(t4.origin.expect("declared").tensor)?.as_str(), "y");
    assert!(t4.setting.is_none());
    let shown = render_error(Some(&g), &e, true);
    assert!(shown.contains("3 comes from set_dim of `i` captured from"), "{shown}");
    assert!(shown.contains("4 comes from `y` (declared as `4`)"), "{shown}");
    // The caret of the setting is under `i` in the captured step's spec.
    assert!(shown.contains("| j => i,j\n     |      ^"), "{shown}");
    Ok(())
}

#[test]
fn a_leaf_row_set_by_set_dim_is_traced_to_the_setting() -> Result<(), InferError> {
    let mut g = Graph::new();
    let x = g.declare("x", Some("...|8"), false)?;
    let batch = g.row_of(x, einrow::spec::ast::RowKind::Batch)?;
    let h = g.pointwise(&[x])?;
    g.set_dim(batch, 5)?;
    let m = g.input("m", &ShapeBuilder::new().batch([6]).output([8]))?;
    // Solving closes `x`'s batch row to one axis of 5.
    g.solve()?;
    let r = g.einsum("b|i; b|i => b|i", &[h, m]);
    let mut e = r.and_then(|_| g.solve()).expect_err("5 against 6");
    trace(&g, &mut e);
    let [a, b] = sides(&e);
    let five = if a.value == 5 { a } else { b };
    let t = five.trace.expect("traced");
    let by = t.setting.expect("set by set_dim");
    assert_eq!((by.handle.as_str(), by.size, by.step), ("x.batch", 5, None));
    assert_eq!(g.name(t.origin.expect("the row's axis").tensor)?.as_str(), "x");
    Ok(())
}

#[test]
fn typed_declarations_are_origins() -> Result<(), InferError> {
    let mut g = Graph::new();
    let w = g.parameter("w", &ShapeBuilder::new().input([16]).output([4]))?;
    let x = g.input("x", &ShapeBuilder::new().batch_open().output([12]))?;
    let r = g.pointwise(&[x])?;
    let mut e = g.compose(w, r).expect_err("16 against 12");
    trace(&g, &mut e);
    for side in sides(&e) {
        let t = side.trace.expect("traced");
        let want = if side.value == 16 { "w" } else { "x" };
        assert_eq!(g.name(t.origin.expect("declared").tensor)?.as_str(), want);
    }
    let shown = render_error(Some(&g), &e, true);
    assert!(shown.contains("16 comes from `w` (declared as `16->4`)"), "{shown}");
    assert!(shown.contains("12 comes from `x` (declared as `...|12`)"), "{shown}");
    Ok(())
}

/// The chain `b = pointwise a src; c = pointwise_un b; d = einsum "i; i => i" c other`: the 3
/// is `src`'s, carried by two steps, each an entry of the explanation.
#[test]
fn a_size_is_traced_through_two_steps_to_its_declaration() -> Result<(), InferError> {
    let mut g = Graph::new();
    let a = g.declare("a", None, false)?;
    let src = g.declare("src", Some("3"), false)?;
    let other = g.declare("other", Some("4"), false)?;
    let b = g.pointwise(&[a, src])?;
    g.set_name(b, "b")?;
    let c = g.pointwise(&[b])?;
    g.set_name(c, "c")?;
    let mut e = g.einsum("i; i => i", &[c, other]).expect_err("3 against 4");
    trace(&g, &mut e);
    let [three, _] = sides(&e);
    let t = three.trace.expect("traced");
    assert_eq!(g.name(t.origin.expect("declared").tensor)?.as_str(), "src");
    let carried: Vec<String> = t
        .hops
        .iter()
        .map(|h| g.name(h.to.tensor).map(|n| n.to_string()))
        .collect::<Result<_, _>>()?;
    assert_eq!(carried, ["b", "c"]);
    let shown = render_error(Some(&g), &e, true);
    assert!(shown.contains("3 comes from `src` (declared as `3`), through `b`"), "{shown}");
    assert!(shown.contains("  1. 3 is written here"), "{shown}");
    assert!(shown.contains("  2. `b`'s output axis"), "{shown}");
    assert!(shown.contains("  3. `c`'s output axis"), "{shown}");
    Ok(())
}
