//! Hostile inputs to shape inference, one named test per class: sizes that overflow 2^62,
//! programs whose size would drive recursion depth, specs and concatenations of many parts,
//! and the solver's guard. Their speed at scale is measured by `examples/hostile_scale.rs`,
//! never timed here.
//!
//! Deep programs run on a thread with a small stack: a recursion that follows the program
//! would overflow it long before these sizes.

use einrow::code::{Coded, ErrorCode};
use einrow::diagnostic::{Diagnostic, Source};
use einrow::infer::program::Program;
use einrow::infer::{Graph, InferError, OpKind, MAX_GRAPH_AXES};
use einrow::lint::{check_program, MAX_COMMAS_SHOWN, MAX_LABEL_LINTS};
use einrow::project::{plan_einsum, Concrete, Index};

/// The stack of the threads deep programs run on (a main thread has 8 MiB).
const SMALL_STACK: usize = 512 * 1024;

/// Runs `f` on a thread with a small stack.
fn on_small_stack<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let thread = std::thread::Builder::new().stack_size(SMALL_STACK);
    let handle = thread.spawn(f).expect("a thread starts");
    handle.join().expect("no stack overflow or panic")
}

/// Builds and solves a program text; the shapes of the named tensors, or the error.
fn solve(text: &str) -> Result<Vec<(String, String)>, InferError> {
    let p = Program::parse_text(text).expect("the program text parses");
    let built = p.build();
    built.result.map_err(|(e, _)| e)?;
    let g = built.graph;
    Ok(built.names.into_iter().map(|(n, t)| (n, g.shape_string(t).expect("solved"))).collect())
}

fn shape_of(shapes: &[(String, String)], name: &str) -> String {
    let found = shapes.iter().find(|(n, _)| n == name);
    found.map(|(_, s)| s.clone()).unwrap_or_else(|| panic!("no tensor `{name}`"))
}

/// The shape error of a result, with its code.
fn shape_error(r: Result<Vec<(String, String)>, InferError>, code: ErrorCode) -> InferError {
    let e = r.expect_err("the program is rejected");
    assert_eq!(e.code(), code, "rejected for another reason: {e}");
    e
}

/// A chain of `n` steps `y{i} = {op} "{spec}" y{i-1}` after the declarations `head`.
fn chain(head: &str, n: usize, step: impl Fn(usize, &str) -> String) -> String {
    let mut text = String::from(head);
    let mut prev = "x".to_string();
    for i in 0..n {
        text.push_str(&step(i, &prev));
        text.push('\n');
        prev = format!("y{i}");
    }
    text
}

/// A valid convolution whose output positions alone span more than 2^62 (`stride*(o-1)`) was
/// accepted with the kernel "inferred" as 11 from an input of 10 (a saturated product).
#[test]
fn a_convolution_extent_above_the_limit_is_a_value_error() {
    let text = "tensor x: 10\ntensor w: 5\nz = einsum \"4611686018427387904*o<+k;o=>k\" x w\n";
    let e = shape_error(solve(text), ErrorCode::Value);
    assert!(e.to_string().contains("spans more than 2^62"), "{e}");
    // The same program with stride 4 is a plain mismatch (the window cannot fit).
    let text = text.replace("4611686018427387904", "4");
    shape_error(solve(&text), ErrorCode::Mismatch);
}

/// 63 doublings by concatenation overflow 2^62 at the last step: reported there, as a value
/// error with the spec's span, not as an unresolved axis.
#[test]
fn concatenated_sizes_above_the_limit_are_a_value_error_at_their_step() {
    let text = chain("tensor x: 1\n", 63, |i, p| format!("y{i} = concat \"a;b=>a^b\" {p} {p}"));
    let e = shape_error(solve(&text), ErrorCode::Value);
    let InferError::Shape(s) = &e else { panic!("a shape error: {e}") };
    assert_eq!(s.step.map(|st| st.index()), Some(62), "{e}");
    assert!(!s.spans.is_empty(), "the error points into the spec: {e}");
    // 62 doublings reach exactly 2^62.
    let text = chain("tensor x: 1\n", 62, |i, p| format!("y{i} = concat \"a;b=>a^b\" {p} {p}"));
    let shapes = solve(&text).expect("solves");
    assert_eq!(shape_of(&shapes, "y61"), (1u64 << 62).to_string());
}

/// 70 strided permutes over a leaf of unknown shape: every size is determined once the leaf
/// closes, and the one above 2^62 is reported at the step that writes it.
#[test]
fn a_strided_chain_above_the_limit_is_a_value_error_at_its_step() {
    let text = chain("tensor x\n", 70, |i, p| format!("y{i} = permute \"2*o=>o\" {p}"));
    let e = shape_error(solve(&text), ErrorCode::Value);
    let InferError::Shape(s) = &e else { panic!("a shape error: {e}") };
    // The last step's axis closes to 1: step k's `2*o` has size 2^(70-k).
    assert_eq!(s.step.map(|st| st.index()), Some(7), "{e}");
    assert_eq!(s.spans.len(), 1, "{e}");
}

/// An overflow found while a later step is added is blamed on the step whose axis
/// overflows, with that step's spec for its span.
#[test]
fn an_overflow_found_later_keeps_the_spec_of_its_step() {
    let mut text =
        chain("tensor x\ntensor one: 1\n", 70, |i, p| format!("y{i} = permute \"2*o=>o\" {p}"));
    text.push_str("z = einsum \"a;a=>a\" y69 one\nw = einsum \"a;b=>a\" x one\n");
    let e = shape_error(solve(&text), ErrorCode::Value);
    let InferError::Shape(s) = &e else { panic!("a shape error: {e}") };
    assert_eq!(s.step.map(|st| st.index()), Some(7), "{e}");
    assert_ne!(s.spec.as_deref(), Some("a;b=>a"), "the spans point into step 7's spec");
}

/// A chain of strided permutes over a leaf of unknown shape was substituted by a recursion one
/// level per step: 100k steps overflowed the stack. It is now a loop over cached nodes; the
/// chain stays one node deep by composing strides.
#[test]
fn a_deep_strided_chain_needs_no_stack() {
    let r = on_small_stack(|| {
        let text = chain("tensor x\n", 20_000, |i, p| format!("y{i} = permute \"2*o=>o\" {p}"));
        solve(&text).map(|_| ())
    });
    // 2^20000 overflows, as above.
    assert_eq!(r.map_err(|e| e.code()), Err(ErrorCode::Value));
    // With stride 1 (offset 0) the chain solves: every size is the leaf's.
    let shapes = on_small_stack(|| {
        let text = chain("tensor x: 7\n", 20_000, |i, p| format!("y{i} = permute \"1*o=>o\" {p}"));
        solve(&text).expect("solves")
    });
    assert_eq!(shape_of(&shapes, "y19999"), "7");
}

/// The same depth through valid convolutions, which do not compose: nested nodes, refreshed
/// in a loop.
#[test]
fn a_deep_convolution_chain_needs_no_stack() {
    let shapes = on_small_stack(|| {
        let text = chain("tensor x\ntensor w: 1\n", 20_000, |i, p| {
            format!("y{i} = einsum \"1*o<+k;k=>o\" {p} w")
        });
        solve(&text).expect("solves")
    });
    // A kernel of 1 keeps the size: the last result closes to the broadcast top, and so
    // does the leaf.
    assert_eq!(shape_of(&shapes, "x"), "1!");
}

/// A row whose variable's value nests another variable's, as deep as the program: substituted
/// in a loop (each step drops the first axis of a leaf of unknown rank).
#[test]
fn deeply_nested_row_values_need_no_stack() {
    let shapes = on_small_stack(|| {
        let text =
            chain("tensor x\n", 2_000, |i, p| format!("y{i} = permute \"a,..r..=>..r..\" {p}"));
        solve(&text).expect("solves")
    });
    assert_eq!(shape_of(&shapes, "x").split(',').count(), 2_000);
    assert_eq!(shape_of(&shapes, "y1998"), "1!");
}

/// A row that gains an axis at every step: each step's row variable was bound to a copy of
/// the whole substituted row (quadratic memory: 20k steps needed 4 GB); it now takes the
/// row as written, its axes once.
#[test]
fn a_row_that_grows_at_every_step_is_not_copied() {
    let shapes = on_small_stack(|| {
        let text = chain(
            "tensor x
",
            2_000,
            |i, p| format!("y{i} = permute \"..r..=>a,..r..\" {p}"),
        );
        solve(&text).expect("solves")
    });
    assert_eq!(shape_of(&shapes, "y1999").split(',').count(), 2_000);
    // Over a leaf of known rank, and through a row equality the other way round.
    let shapes = on_small_stack(|| {
        let text = chain("tensor x: 2,3\n", 2_000, |i, p| {
            format!("y{i} = einsum \"..r..;..s..=>..s..,a\" {p} {p}")
        });
        solve(&text).expect("solves")
    });
    let last = shape_of(&shapes, "y1999");
    assert!(last.starts_with("2,3,"), "{last}");
    assert_eq!(last.split(',').count(), 2_002);
}

/// numpy broadcasts of rows that grow at every step: each deferred broadcast watched every
/// axis of its rows and was retried whenever one closed (cubic: 200 steps took a second).
/// A row rule waits on its rows' markers only.
#[test]
fn deferred_row_rules_wait_on_their_markers() {
    let mut text = String::from("tensor x\ntensor w: 1!,1!\n");
    let mut prev = "x".to_string();
    for i in 0..600 {
        text.push_str(&format!("y{i} = numpy \"...,ab->...a\" {prev} w\n"));
        text.push_str(&format!("z{i} = permute \"..r..=>a,..r..\" y{i}\n"));
        prev = format!("z{i}");
    }
    let shapes = solve(&text).expect("solves");
    assert_eq!(shape_of(&shapes, "z599").split(',').count(), 1_200);
}

/// A fixed index needs an axis one larger: at 2^62 that is past the limit (it was accepted
/// with a leaf of 2^62 + 1).
#[test]
fn a_fixed_index_at_the_limit_is_a_value_error() {
    let e = shape_error(
        solve("tensor x\nz = permute \"4611686018427387904=>_\" x\n"),
        ErrorCode::Value,
    );
    let InferError::Shape(s) = &e else { panic!("a shape error: {e}") };
    assert_eq!(s.spans.len(), 1, "{e}");
    let shapes = solve("tensor x\nz = permute \"4611686018427387903=>_\" x\n").expect("solves");
    assert_eq!(shape_of(&shapes, "x"), "4611686018427387904");
}

/// 28 concatenations of a leaf of unknown shape with itself flattened the parts into lists of
/// 2^28 entries (out of memory): the parts are now shared, and the sizes double.
#[test]
fn self_concatenation_shares_its_parts() {
    let text = chain("tensor x\n", 61, |i, p| format!("y{i} = concat \"a;b=>a^b\" {p} {p}"));
    let shapes = on_small_stack(move || solve(&text).expect("solves"));
    assert_eq!(shape_of(&shapes, "x"), "1!");
    assert_eq!(shape_of(&shapes, "y60"), (1u64 << 61).to_string());
}

/// A chain of concatenations over two leaves of unknown shape copied the flattened parts at
/// every step (quadratic memory).
#[test]
fn a_concatenation_chain_over_unknown_leaves_solves() {
    let text =
        chain("tensor x\ntensor z\n", 5_000, |i, p| format!("y{i} = concat \"a;b=>a^b\" {p} z"));
    let shapes = on_small_stack(move || solve(&text).expect("solves"));
    assert_eq!(shape_of(&shapes, "y4999"), "5001");
}

/// One concatenation of n labels over a leaf of size n: each label bound in turn re-interned
/// the rest of the concatenation (quadratic memory); each is now one update of a tree node.
#[test]
fn one_concatenation_of_many_labels_solves() {
    let n = 3_000;
    let parts: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let c = parts.join("^");
    let text = format!("tensor t: {n}\nc = permute \"{c}=>{c}\" t\n");
    let shapes = solve(&text).expect("solves");
    assert_eq!(shape_of(&shapes, "c"), n.to_string());
    // Over a leaf of unknown shape: each label closes to 1.
    let text = format!("tensor t\nc = permute \"{c}=>{c}\" t\n");
    let shapes = solve(&text).expect("solves");
    assert_eq!(shape_of(&shapes, "t"), n.to_string());
}

/// A spec of n labels looked each label up in a list (quadratic), and fell back to a careful
/// replay when it ran out of fuel at 30k labels; 40k labels were rejected as a `cycle`.
#[test]
fn an_einsum_of_many_labels_solves_within_its_fuel() {
    let n = 40_000;
    let labels: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let l = labels.join(",");
    let sizes = vec!["2"; n].join(",");
    let text = format!("tensor x: {sizes}\ntensor u\ny = einsum \"{l};{l}=>{l}\" x u\n");
    let shapes = solve(&text).expect("solves");
    assert_eq!(shape_of(&shapes, "u"), sizes);
    // The reverse permute over a leaf of unknown shape (no direct evaluation).
    let reversed: Vec<String> = labels.iter().rev().cloned().collect();
    let text = format!("tensor x\ny = permute \"{l}=>{}\" x\n", reversed.join(","));
    let shapes = solve(&text).expect("solves");
    assert_eq!(shape_of(&shapes, "y").split(',').count(), n);
}

/// The lints of a spec of n labels searched each result label in a list of the operands'
/// labels (quadratic time), and made a warning for every result label no operand has, each
/// holding a copy of the spec (quadratic memory: 10k labels took 1 GB). They are linear, and
/// what they hold is bounded: a few warnings one by one, one that counts the rest.
#[test]
fn lints_of_a_spec_of_many_labels_are_bounded() {
    let lint = |text: &str| {
        let program = Program::parse_text(text).expect("parses");
        check_program(&program, Some(&Source::new(text)))
    };
    // The text the diagnostics hold, all together.
    let held = |found: &[Diagnostic]| -> usize {
        let places = found.iter().flat_map(|d| d.primary.iter().chain(&d.related));
        places.map(|p| p.text.as_ref().map_or(0, String::len)).sum()
    };
    let n = 200_000;
    let labels: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let (l, r) = (labels.join(","), labels.iter().rev().cloned().collect::<Vec<_>>().join(","));
    let sizes = vec!["2"; n].join(",");
    assert!(lint(&format!("tensor x: {sizes}\ny = permute \"{l}=>{r}\" x\n")).is_empty());
    assert!(lint(&format!("tensor x\ntensor u\ny = einsum \"{l};{l}=>{r}\" x u\n")).is_empty());

    // n result labels that no operand has.
    let missing: Vec<String> = (0..n).map(|i| format!("b{i}")).collect();
    let text = format!("tensor x: 2\ny = permute \"q=>q,{}\" x\n", missing.join(","));
    let found = lint(&text);
    assert_eq!(found.len(), MAX_LABEL_LINTS + 1);
    assert!(found.iter().all(|d| d.code == ErrorCode::Label));
    let more = format!("{} more result labels are in no operand slot", n - MAX_LABEL_LINTS);
    assert_eq!(found[MAX_LABEL_LINTS].message, more);
    assert!(held(&found) <= (MAX_LABEL_LINTS + 1) * text.len());

    // A concatenation of n operands whose spec has `,` for `;`: a few commas are pointed at.
    let text = format!(
        "tensor t: 3\nc = concat \"{l}=>{}\" {}\n",
        labels.join("^"),
        vec!["t"; n].join(" ")
    );
    let found = lint(&text);
    assert_eq!(found.len(), 1);
    assert_eq!((found[0].code, found[0].related.len()), (ErrorCode::Arity, MAX_COMMAS_SHOWN - 1));
    assert!(held(&found) <= MAX_COMMAS_SHOWN * text.len());
}

/// The plan of a spec of n labels looked each label's loop and size up in lists (quadratic):
/// they are looked up in tables once a spec has more than a few, with the same plan.
#[test]
fn the_plan_of_a_spec_of_many_labels_has_a_loop_per_label() {
    let n = 200_000;
    let labels: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let (l, r) = (labels.join(","), labels.iter().rev().cloned().collect::<Vec<_>>().join(","));
    let sizes: Vec<u64> = (0..n as u64).map(|i| i % 3 + 1).collect();
    let x = Concrete::output(&sizes);
    let plan = plan_einsum(&format!("{l};{l}=>{r}"), &[&x, &x]).expect("plans");
    assert_eq!(plan.parts.len(), 1);
    let part = &plan.parts[0];
    // Loops in the order the labels first appear, the result's first.
    let loops: Vec<(&str, u64)> = part.loops.iter().map(|lp| (lp.name.as_str(), lp.size)).collect();
    let want: Vec<(&str, u64)> =
        labels.iter().map(String::as_str).zip(sizes.clone()).rev().collect();
    // Compared without `assert_eq!`: a mismatch would print 200k entries.
    assert!(loops == want, "one loop per label, in the result's order");
    let iters =
        |range: &mut dyn Iterator<Item = usize>| -> Vec<Index> { range.map(Index::Iter).collect() };
    assert!(part.result == iters(&mut (0..n)), "the result follows the loops in order");
    let reads = iters(&mut (0..n).rev());
    assert!(part.reads().eq([0, 1]), "both operands are read");
    assert!(part.operands.iter().all(|o| o.index == reads), "operands read reversed");
    let mut reversed = sizes;
    reversed.reverse();
    assert!(plan.result_dims == reversed, "the result's sizes are reversed");
}

/// A concatenation of n operands has n parts, each reading one operand: each part decided
/// which operands it leaves out by looking every label up in a list of the other n-1 (cubic).
#[test]
fn the_plan_of_a_concatenation_of_many_operands_reads_one_operand_per_part() {
    let n = 1_500;
    let labels: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let spec = format!("{}=>{}", labels.join(";"), labels.join("^"));
    let operands: Vec<Concrete> = (0..n as u64).map(|i| Concrete::output(&[i % 4 + 1])).collect();
    let plan = plan_einsum(&spec, &operands.iter().collect::<Vec<_>>()).expect("plans");
    assert_eq!(plan.parts.len(), n);
    let mut offset = 0;
    for (i, part) in plan.parts.iter().enumerate() {
        assert!(part.reads().eq([i]), "part {i} reads operand {i} alone");
        let want = Index::Affine { terms: vec![(1, 0)], offset, padded: false };
        assert_eq!(part.result, [want]);
        offset += i as i64 % 4 + 1;
    }
    assert_eq!(plan.result_dims, [offset as u64]);
}

/// The guard on the solver's work is reported as `resource`, a code of its own: it is not a
/// cycle, nor any fault found in the program.
#[test]
fn the_resource_code_is_its_own() {
    assert_eq!(ErrorCode::from_name("resource"), Some(ErrorCode::Resource));
    assert_ne!(ErrorCode::Resource, ErrorCode::Cycle);
}

/// Operand numbers were stored in a byte: the 261st operand was reported as the 5th.
#[test]
fn operand_numbers_do_not_wrap() {
    let n = 261;
    let slots = vec!["x"; n].join(";");
    let mut args = vec!["t"; n];
    args[n - 1] = "u";
    let text = format!("tensor t: 3\ntensor u: 4\nc = concat \"{slots}=>x\" {}\n", args.join(" "));
    let e = shape_error(solve(&text), ErrorCode::Mismatch);
    // The 261st operand is operand 260 (operands count from 0).
    assert!(e.to_string().contains("operand 260's"), "{e}");
}

/// A concatenation of n operands decided which components may close to 0 in cubic time; the
/// components are also all solved at once.
#[test]
fn a_concatenation_of_many_operands_solves() {
    let n = 5_000;
    let slots: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let text = format!(
        "tensor t: 3\nc = concat \"{}=>{}\" {}\n",
        slots.join(";"),
        slots.join("^"),
        vec!["t"; n].join(" ")
    );
    let shapes = solve(&text).expect("solves");
    assert_eq!(shape_of(&shapes, "c"), (3 * n).to_string());
}

/// Numpy broadcasts over one shared operand deferred a constraint each on its row variable,
/// and every later step woke them all (quadratic): a union now wakes what waited on the
/// variable that stops being a root.
#[test]
fn numpy_broadcasts_over_a_shared_operand_solve() {
    let text = chain("tensor x\ntensor z: 3\n", 2_000, |i, p| {
        format!("y{i} = numpy \"...i,...i->...i\" {p} z")
    });
    let shapes = solve(&text).expect("solves");
    assert_eq!(shape_of(&shapes, "y1999"), "3");
}

/// A graph built through the library: the same deep chain, and its shapes read back.
#[test]
fn a_deep_chain_reads_back_through_the_graph() {
    let sizes = on_small_stack(|| {
        let mut g = Graph::new();
        let x = g.declare("x", Some("12"), false).expect("declares");
        let mut t = x;
        for _ in 0..10_000 {
            t = g.permute("3*o+2=>o", t).expect("adds");
            t = g.permute("o=>3*o", t).expect("adds");
        }
        g.solve().expect("solves");
        g.shape_string(t).expect("solved")
    });
    assert_eq!(sizes, "12");
}

/// Every `&self` read of a tensor: its shape, its sizes three ways; the sizes when solved.
fn read(g: &Graph, t: einrow::ids::TensorId) -> Result<Vec<u64>, ErrorCode> {
    let shape = g.shape(t).map_err(|e| e.code())?;
    let mut pushed = Vec::new();
    let in_place = g.solved_shape(t, einrow::spec::ast::RowKind::ALL, &mut |s| pushed.push(s.size));
    let typed = g.sizes(t);
    match g.dims(t) {
        Ok(rows) => {
            let sizes: Vec<u64> = rows.iter().flatten().map(|s| s.size).collect();
            assert!(in_place.is_some() && pushed == sizes, "the in-place read agrees");
            let typed = typed.expect("the typed read agrees");
            let (mut a, mut b) = (typed.memory_order(), sizes.clone());
            a.sort_unstable();
            b.sort_unstable();
            assert_eq!(a, b, "the typed read has the same sizes");
            let rows = [&shape.batch, &shape.input, &shape.output];
            assert!(rows.iter().all(|r| r.all().all(|d| d.solved().is_some())));
            Ok(sizes)
        }
        Err(e) => {
            assert!(in_place.is_none() && typed.is_err(), "the other reads fail too: {e}");
            Err(e.code())
        }
    }
}

/// The `&self` reads substitute through chains as deep as the program without recursion:
/// before the world is closed (nodes never computed or stale, evaluated by the read), after
/// a later step binds the chain's end (every node stale), and after solving.
#[test]
fn reads_of_deep_chains_need_no_stack() {
    let n = 20_000;
    on_small_stack(move || {
        // Valid convolutions of a kernel of 1 keep the size and do not compose: nested nodes.
        let mut g = Graph::new();
        let x = g.declare("x", None, false).expect("declares");
        let w = g.declare("w", Some("1"), false).expect("declares");
        let five = g.declare("five", Some("5"), false).expect("declares");
        let mut t = x;
        for _ in 0..n {
            t = g.einsum("1*o<+k;k=>o", &[t, w]).expect("adds");
        }
        assert_eq!(read(&g, x), Err(ErrorCode::Unresolved));
        g.einsum("a;a=>a", &[t, five]).expect("adds");
        assert_eq!(read(&g, x), Ok(vec![5]));
        g.solve().expect("solves");
        assert_eq!(read(&g, x), Ok(vec![5]));

        // Strided steps compose, and overflow: the read says so (a value error, not an
        // unresolved axis), before solving and after.
        let mut g = Graph::new();
        let x = g.declare("x", None, false).expect("declares");
        let two = g.declare("two", Some("2"), false).expect("declares");
        let mut t = x;
        for _ in 0..n {
            t = g.permute("2*o=>o", t).expect("adds");
        }
        assert_eq!(read(&g, x), Err(ErrorCode::Unresolved));
        assert_eq!(read(&g, t), Err(ErrorCode::Unresolved));
        // The step itself reads no size of the chain: its overflow is found by the read, and
        // by solving.
        g.einsum("a;a=>a", &[t, two]).expect("adds");
        assert_eq!(read(&g, x), Err(ErrorCode::Value));
        assert_eq!(g.solve().map_err(|e| e.code()), Err(ErrorCode::Value));
        assert_eq!(read(&g, x), Err(ErrorCode::Value));

        // Concatenations nest as deep, and share their parts.
        let mut g = Graph::new();
        let x = g.declare("x", None, false).expect("declares");
        let z = g.declare("z", None, false).expect("declares");
        let three = g.declare("three", Some("3"), false).expect("declares");
        let mut t = x;
        for _ in 0..n {
            t = g.concat("a;b=>a^b", &[t, z]).expect("adds");
        }
        let mut doubled = x;
        for _ in 0..60 {
            doubled = g.concat("a;b=>a^b", &[doubled, doubled]).expect("adds");
        }
        assert_eq!(read(&g, t), Err(ErrorCode::Unresolved));
        assert_eq!(read(&g, doubled), Err(ErrorCode::Unresolved));
        g.einsum("a;a=>a", &[x, three]).expect("adds");
        g.einsum("a;a=>a", &[z, three]).expect("adds");
        let (long, wide) = (Ok(vec![3 * (n as u64 + 1)]), Ok(vec![3 << 60]));
        assert_eq!((read(&g, t), read(&g, doubled)), (long.clone(), wide.clone()));
        g.solve().expect("solves");
        assert_eq!((read(&g, t), read(&g, doubled)), (long, wide));
    });
}

/// A wide leaf read by many steps: every result is as wide as the leaf, so a program of a few
/// hundred kilobytes held rank times steps axes (50k axes over 5k steps ran out of memory). A
/// graph's tables are bounded ([`MAX_GRAPH_AXES`] by default): the step past the limit is a
/// `resource` error naming that step, and the graph keeps the steps before it.
#[test]
fn a_wide_leaf_read_by_many_steps_is_bounded() {
    let rank = 1_000;
    let limit = 100 * rank;
    let mut g = Graph::new();
    g.set_axis_limit(limit);
    let x = g.declare("x", Some(&vec!["2"; rank].join(",")), false).expect("declares");
    let mut added = 0;
    let e = loop {
        match g.add_named_step(&format!("y{added}"), OpKind::Pointwise, &[x, x], None) {
            Ok(_) => added += 1,
            Err(e) => break e,
        }
        assert!(added <= limit / rank, "{added} steps of {rank} axes under a limit of {limit}");
    };
    assert_eq!(e.code(), ErrorCode::Resource, "{e}");
    assert!(e.to_string().contains(&format!("more than {limit} axes")), "{e}");
    let InferError::Shape(s) = &e else { panic!("a shape error: {e:?}") };
    assert_eq!(s.step.map(|st| st.index()), Some(added), "{e}");
    assert!(added >= limit / rank / 2, "only {added} steps fit");
    assert_eq!(g.steps().len(), added, "the failing step is not added");
    g.solve().expect("the steps before it solve");
    assert_eq!(g.shape_string(x).expect("solved"), vec!["2"; rank].join(","));
    assert_eq!(Graph::new().axis_limit(), MAX_GRAPH_AXES);
}

/// A numpy step of n operands sharing a label links the label's variable to each operand's
/// axis: each link was first searched for in the variable's list of links (quadratic: 200k
/// operands took 12 s). Long lists are also kept as sets.
#[test]
fn a_numpy_step_of_many_operands_links_each_once() {
    let n = 20_000;
    let mut text: String = (0..n).map(|i| format!("tensor x{i}\n")).collect();
    let names: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    text += &format!("y = numpy \"{}->...i\" {}\n", vec!["...i"; n].join(","), names.join(" "));
    text += "tensor z: 2,3\nw = pointwise y z\n";
    let shapes = solve(&text).expect("solves");
    assert_eq!(shape_of(&shapes, "y"), "2,3");
    assert_eq!(shape_of(&shapes, "x7"), "3");
}

/// The picture of an error whose trace runs through a chain of n steps looked each tensor and
/// step up in the trace's lists (quadratic: 100k steps took 5 s). Marks are flags by index.
#[test]
fn the_picture_of_an_error_at_the_end_of_a_long_chain_marks_the_chain() {
    use einrow::infer::explain::{to_dot_error, trace};
    let n = 3_000;
    let text = chain("tensor x: 3\ntensor z: 4\n", n, |i, p| format!("y{i} = pointwise_un {p}"));
    let text = format!("{text}w = pointwise y{} z\n", n - 1);
    let built = Program::parse_text(&text).expect("parses").build();
    let (mut e, _) = built.result.expect_err("3 against 4");
    trace(&built.graph, &mut e);
    let dot = to_dot_error(&built.graph, &e);
    // Every step of the chain carried the 3; `x` and `z` wrote the two sizes.
    let red_edges = dot.lines().filter(|l| l.contains("->") && l.contains("penwidth = 2")).count();
    assert_eq!(red_edges, n, "red steps");
    for leaf in ["\"x: 3\"", "\"z: 4\""] {
        let line = dot.lines().find(|l| l.contains(leaf)).expect("the leaf is drawn");
        assert!(line.contains("color = red"), "{line}");
    }
}

/// A parameter used by every step of a long chain gains a link (compose) or a cap (pointwise:
/// `..r..|64` with a fresh `r` per step, which cannot be joined while `r` is unknown) at each
/// step, and each new one was compared with every earlier one: a 40k-step chain took 4 s, 160k
/// steps 16 times that. Long link lists are now indexed, so these chains solve in linear time.
#[test]
fn a_parameter_shared_by_every_step_of_a_long_chain_solves() {
    let n = 60_000;
    let last = format!("y{}", n - 1);
    let text =
        chain("tensor x: ...|64\nparam b: ...\n", n, |i, p| format!("y{i} = pointwise {p} b"));
    let shapes = on_small_stack(move || solve(&text).expect("solves"));
    assert_eq!(shape_of(&shapes, "b"), "64");
    assert_eq!(shape_of(&shapes, &last), "64");
    let text =
        chain("tensor x: ...|64\nparam w: ...->...\n", n, |i, p| format!("y{i} = compose w {p}"));
    let shapes = on_small_stack(move || solve(&text).expect("solves"));
    assert_eq!(shape_of(&shapes, "w"), "64->64");
    assert_eq!(shape_of(&shapes, &last), "64");
}
