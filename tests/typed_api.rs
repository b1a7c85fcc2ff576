//! The typed graph API: shapes built without text, leaf kinds, named rows, the step of a
//! tensor, dimension handles (captures, `set_dim`, `set_equal`), warnings; and the coded
//! errors of bad input.

use einrow::code::{Coded, ErrorCode};
use einrow::infer::{Graph, HandleKind, InferError, Leaf, OpKind, ShapeBuilder, Warning};
use einrow::spec::ast::RowKind;

fn code<T: std::fmt::Debug>(r: Result<T, InferError>) -> ErrorCode {
    r.expect_err("rejected").code()
}

/// A typed declaration solves exactly as its shape string does.
#[test]
fn typed_shapes_match_shape_strings() {
    let cases: [(ShapeBuilder, &str); 5] = [
        (ShapeBuilder::new().batch([2]).input([4]).output([3]), "2|4->3"),
        (ShapeBuilder::array([5, 6]), "5,6"),
        (ShapeBuilder::new().output([2]).output_open().output([5]), "2,...,5"),
        (ShapeBuilder::new().batch_open().batch([7]).output([3]), "...,7|3"),
        (ShapeBuilder::new().top(RowKind::Output), "1!"),
    ];
    for (typed, text) in cases {
        let (mut a, mut b) = (Graph::new(), Graph::new());
        let ta = a.input("x", &typed).expect("declares");
        let tb = b.declare("x", Some(text), false).expect("declares");
        let other = b.declare("y", Some("2,3,4,5"), false).expect("declares");
        let oa = a.declare("y", Some("2,3,4,5"), false).expect("declares");
        if text == "2,...,5" {
            a.pointwise(&[ta, oa]).expect("adds");
            b.pointwise(&[tb, other]).expect("adds");
        }
        a.solve().expect("solves");
        b.solve().expect("solves");
        assert_eq!(
            a.shape_string(ta).expect("solved"),
            b.shape_string(tb).expect("solved"),
            "{text}"
        );
        assert_eq!(format!("{:?}", a.shape(ta)), format!("{:?}", b.shape(tb)), "{text}");
    }
}

#[test]
fn leaves_rows_and_producers() {
    let mut g = Graph::new();
    let x = g
        .declare_leaf("x", Leaf::Input, &ShapeBuilder::new().batch([5]).input([2]).output([3]))
        .expect("declares");
    let w = g
        .declare_leaf("w", Leaf::Parameter, &ShapeBuilder::new().input_open().output([4]))
        .expect("declares");
    let y = g.compose(w, x).expect("adds");
    let z = g.pointwise(&[y]).expect("adds");
    g.solve().expect("solves");
    assert_eq!(g.tensor(x).expect("of g").kind(), Some(Leaf::Input));
    assert_eq!(g.tensor(w).expect("of g").kind(), Some(Leaf::Parameter));
    assert_eq!(g.tensor(y).expect("of g").kind(), None);
    // Reading takes `&self`: a shared borrow reads everything.
    let shared: &Graph = &g;
    let s = shared.sizes(x).expect("solved");
    assert_eq!((s.batch, s.input, s.output), (vec![5], vec![2], vec![3]));
    assert_eq!(shared.sizes(x).expect("solved").memory_order(), [5, 3, 2]);
    assert_eq!(shared.sizes(w).expect("solved").input, [3]);
    assert_eq!(shared.sizes(y).expect("solved").numel(), Some(5 * 2 * 4));
    assert_eq!(shared.producer(y).expect("of g").map(|s| s.index()), Some(0));
    assert_eq!(shared.producer(z).expect("of g").map(|s| s.index()), Some(1));
    assert_eq!(shared.producer(x).expect("of g"), None);
    let foreign = Graph::new().input("v", &ShapeBuilder::array([2])).expect("declares");
    assert_eq!(code(shared.sizes(foreign)), ErrorCode::Name);
}

#[test]
fn bad_typed_declarations_are_coded_errors() {
    let mut g = Graph::new();
    assert_eq!(code(g.input("x", &ShapeBuilder::array([1 << 63]))), ErrorCode::Value);
    assert_eq!(
        code(g.input("x", &ShapeBuilder::new().output_open().output_open())),
        ErrorCode::Syntax
    );
    let foreign = Graph::new().row_var("b");
    assert_eq!(code(g.input("x", &ShapeBuilder::new().batch_var(foreign))), ErrorCode::Label);
    let a = g.input("a", &ShapeBuilder::array([2, 3])).expect("declares");
    let c = g.add_step_capturing(OpKind::Permute, &[a], "ij=>ji", &["i"]).expect("captures");
    let dim = c.handles[0];
    assert_eq!(g.handle_kind(dim).expect("known"), HandleKind::Dim);
    assert_eq!(code(g.input("x", &ShapeBuilder::new().batch_var(dim))), ErrorCode::Label);
    assert_eq!(g.tensor_count(), 2, "no failed declaration is kept");
}

#[test]
fn captures_set_and_read_sizes() {
    let mut g = Graph::new();
    let x = g.input("x", &ShapeBuilder::new().batch_open().output_open()).expect("declares");
    let w = g.parameter("w", &ShapeBuilder::unknown()).expect("declares");
    let c = g
        .add_step_capturing(OpKind::Einsum, &[x, w], "..b..|i; i->o => ..b..|o", &["i", "o", "b"])
        .expect("captures");
    let [i, o, b] = [c.handles[0], c.handles[1], c.handles[2]];
    assert_eq!(g.handle_step(i).expect("known"), Some(c.step));
    assert_eq!(g.handle_kind(b).expect("known"), HandleKind::Row);
    assert_eq!(code(g.handle_size(i)), ErrorCode::Unresolved);
    g.set_dim(i, 3).expect("sets");
    g.set_equal(o, i).expect("sets");
    g.set_dim(b, 6).expect("sets");
    g.solve().expect("solves");
    assert_eq!(g.handle_size(o).expect("solved"), 3);
    assert_eq!(g.handle_dims(b).expect("solved"), [6]);
    assert_eq!(g.sizes(w).expect("solved").input, [3]);
    assert_eq!(g.sizes(c.tensor).expect("solved").batch, [6]);

    // A label and a row: the row's elements number the label's size.
    let mut g = Graph::new();
    let x = g.input("x", &ShapeBuilder::new().batch([2, 3]).output([4])).expect("declares");
    let c = g
        .add_step_capturing(OpKind::Permute, &[x], "..b..|k => ..b..|k", &["b", "k"])
        .expect("captures");
    g.solve().expect("solves");
    assert_eq!(g.handle_size(c.handles[0]).expect("solved"), 6);
    let err = g.set_equal(c.handles[0], c.handles[1]).expect_err("6 elements are not 4");
    assert_eq!(err.code(), ErrorCode::Elems, "{err}");
}

/// A contradiction names the setting and the step the handle came from; the graph is left as
/// it was, handles included.
#[test]
fn contradictions_name_the_setting_and_the_step() {
    let mut g = Graph::new();
    let a = g.input("a", &ShapeBuilder::array([2, 3])).expect("declares");
    let b = g.input("b", &ShapeBuilder::array([3, 4])).expect("declares");
    let c = g.add_step_capturing(OpKind::Einsum, &[a, b], "ij;jk=>ik", &["j"]).expect("captures");
    let j = c.handles[0];
    let err = g.set_dim(j, 5).expect_err("j is 3");
    assert_eq!(err.code(), ErrorCode::Mismatch);
    let text = err.to_string();
    assert!(text.contains("set_dim of `j` to 5") && text.contains("step0"), "{text}");
    assert_eq!(g.handle_size(j).expect("still solved by the step"), 3);
    // Setting first, then a step that contradicts it: the step's error tells where the size came from.
    let mut g = Graph::new();
    let a = g.input("a", &ShapeBuilder::new().output_open()).expect("declares");
    let c = g.add_step_capturing(OpKind::Permute, &[a], "i=>i", &["i"]).expect("captures");
    g.set_dim(c.handles[0], 4).expect("sets");
    let b = g.input("b", &ShapeBuilder::array([5])).expect("declares");
    let err = g.pointwise(&[c.tensor, b]).expect_err("4 is not 5");
    let text = err.to_string();
    assert!(
        text.contains("step1") && text.contains("`i` was set to 4 by set_dim, captured from step0"),
        "{text}"
    );
    assert_eq!(g.handle_size(c.handles[0]).expect("kept"), 4);
}

#[test]
fn bad_handles_are_coded_errors() {
    let mut g = Graph::new();
    let a = g.input("a", &ShapeBuilder::array([2])).expect("declares");
    let foreign = Graph::new().row_var("r");
    assert_eq!(code(g.set_dim(foreign, 2)), ErrorCode::Label);
    assert_eq!(code(g.handle_size(foreign)), ErrorCode::Label);
    assert_eq!(code(g.add_step_capturing(OpKind::Permute, &[a], "i=>i", &["z"])), ErrorCode::Label);
    assert_eq!(
        code(g.add_step_capturing(OpKind::Pointwise, &[a], "i=>i", &["i"])),
        ErrorCode::Arity
    );
    assert_eq!(g.steps().len(), 0, "no failed capture is kept");
    let r = g.row_var("r");
    assert_eq!(code(g.set_dim(r, 1 << 63)), ErrorCode::Value);
    let open = g.input("open", &ShapeBuilder::new().output_open()).expect("declares");
    let c = g.add_step_capturing(OpKind::Permute, &[open], "i=>i", &["i"]).expect("captures");
    assert_eq!(code(g.set_equal(c.handles[0], r)), ErrorCode::Unresolved);
    assert_eq!(code(g.row_of(a, RowKind::Batch)), ErrorCode::Label);
}

/// A step that fails rebuilds the graph from its record: handles made before stay valid.
#[test]
fn handles_survive_a_failed_step() {
    let mut g = Graph::new();
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([3])).expect("declares");
    let c =
        g.add_step_capturing(OpKind::Permute, &[x], "...|i => ...|i", &["i"]).expect("captures");
    g.set_dim(batch, 4).expect("sets");
    let bad = g.input("bad", &ShapeBuilder::array([7])).expect("declares");
    g.pointwise(&[c.tensor, bad]).expect_err("3 is not 7");
    g.solve().expect("solves");
    assert_eq!(g.handle_dims(batch).expect("solved"), [4]);
    assert_eq!(g.handle_size(c.handles[0]).expect("solved"), 3);
}

#[test]
fn warnings_are_values() {
    let mut g = Graph::new();
    let x = g.input("x", &ShapeBuilder::new().batch([32]).output([10])).expect("declares");
    let bias = g.parameter("bias", &ShapeBuilder::unknown()).expect("declares");
    let declared = g.parameter("scale", &ShapeBuilder::array([10])).expect("declares");
    let y = g.pointwise(&[x, bias]).expect("adds");
    let y = g.pointwise(&[y, declared]).expect("adds");
    // `j` is written in the result only: sized by the consumer (the pointwise with `z`) ...
    let e = g.permute("...|i => ...|i,j", y).expect("adds");
    let z = g.input("z", &ShapeBuilder::new().batch([32]).output([10, 7])).expect("declares");
    g.pointwise(&[e, z]).expect("adds");
    // ... and `k`, used by nothing, closes to 1.
    g.permute("...|i => ...|k,i", y).expect("adds");
    g.solve().expect("solves");
    let w = g.warnings();
    assert_eq!(w.len(), 3, "{w:?}");
    assert!(
        matches!(&w[0], Warning::ParameterBatch { tensor, row: RowKind::Batch, axes, .. } if *tensor == bias && axes == "32"),
        "{w:?}"
    );
    assert!(
        matches!(&w[1], Warning::ResultOnlyLabel { label, size: 7, closed: false, .. } if label == "j"),
        "{w:?}"
    );
    assert!(
        matches!(&w[2], Warning::ResultOnlyLabel { label, size: 1, closed: true, .. } if label == "k"),
        "{w:?}"
    );
    assert!(w[0].to_string().contains("`bias`"));
}

/// `Graph::einsum` takes one, two or three operands and makes the step of that count; other
/// counts are `arity` errors.
#[test]
fn einsum_steps_follow_the_operand_count() {
    let mut g = einrow::infer::Graph::new();
    let a = g.declare("a", Some("2,3"), false).expect("declares");
    let t = g.einsum("ij=>ji", &[a]).expect("one operand");
    let m = g.einsum("ij;jk=>ik", &[a, t]).expect("two operands");
    let v = g.declare("v", Some("3"), false).expect("declares");
    let o = g.einsum("i;j;k=>ijk", &[v, v, v]).expect("three operands");
    let kinds: Vec<_> = g.steps().iter().map(|s| s.op).collect();
    use einrow::infer::OpKind;
    assert_eq!(kinds, [OpKind::Permute, OpKind::Einsum, OpKind::Einsum3]);
    let e = g.einsum("i;i;i;i=>i", &[a, a, a, a]).expect_err("four operands");
    assert_eq!(einrow::Coded::code(&e), einrow::ErrorCode::Arity);
    g.solve().expect("solves");
    assert_eq!(g.shape_string(t).expect("ours"), "3,2");
    assert_eq!(g.shape_string(m).expect("ours"), "2,2");
    assert_eq!(g.shape_string(o).expect("ours"), "3,3,3");
}
