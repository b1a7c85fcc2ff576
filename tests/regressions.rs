//! Minimal programs found by fuzzing (`einrow fuzz`, `tests/infer_props.rs`), frozen as tests.
//!
//! Each test names the solver behaviour it pins; those once marked open issues (least
//! solutions of overlapping flanks, cap joins, numpy's right-aligned ellipsis) are fixed.
#![cfg(feature = "fuzzing")]

use einrow::code::ErrorCode;
use einrow::fuzzing::execution::check_execution;
use einrow::fuzzing::gen::Choices;
use einrow::fuzzing::props::{check_program, run_program, Outcome};
use einrow::fuzzing::ConcreteShape;
use einrow::infer::program::Program;

fn program(text: &str) -> Program {
    Program::parse_text(text).expect("the program text parses")
}

/// The program solves, its solution passes the independent checker, and the named tensors
/// have the expected shapes (FORMAT.md comparison: a plain `1` matches either size-1 basis).
fn expect_shapes(text: &str, want: &[(&str, &str)]) {
    let p = program(text);
    let outcome = check_program(&p).unwrap_or_else(|f| panic!("{f}"));
    let Outcome::Solved(sol) = outcome else { panic!("rejected: {outcome:?}") };
    for (name, shape) in want {
        let want = ConcreteShape::parse(shape).expect("expected shape parses");
        let got = sol.get(name).unwrap_or_else(|| panic!("no shape for `{name}`"));
        assert!(want.matches_expected(got), "`{name}`: expected {want}, solved {got}");
    }
}

/// The program is rejected with the given code (and no solution breaks a constraint).
fn expect_rejected(text: &str, code: ErrorCode) {
    match check_program(&program(text)).unwrap_or_else(|f| panic!("{f}")) {
        Outcome::Rejected { code: got, message } => {
            assert_eq!(got, code, "rejected for another reason: {message}")
        }
        Outcome::Solved(sol) => panic!("solved an unsatisfiable program: {sol:?}"),
    }
}

/// Whatever the outcome, a solution never breaks a constraint.
fn never_violates(text: &str) {
    check_program(&program(text)).unwrap_or_else(|f| panic!("{f}"));
}

/// A cap holding an unsolved axis (`x1`'s input, from the permute's label) was merged into
/// another cap of `y`'s output and dropped, so `x1.input ⊑ y.output` was never re-checked and
/// the solver returned `x1: 1!->` with `y: 2` (fixed in `src/infer/solve/broadcast.rs`).
#[test]
fn a_cap_with_an_unknown_axis_is_kept() {
    let text = "tensor x0: 2->\ntensor x1\ntensor y\n\
                t1 = permute \"a->=>a\" x1\nt2 = compose x0 y\nt3 = compose x1 y\n";
    expect_shapes(text, &[("x1", "2->"), ("y", "2"), ("t1", "2")]);
}

/// The same lost cap on an interior row: the program may be rejected, but not solved wrongly.
#[test]
fn a_cap_with_an_unknown_axis_on_an_interior_row_is_checked() {
    never_violates(
        "tensor x0: 2->\ntensor x1\nt0 = pointwise x0\n\
         t1 = concat \"c0->; c1-> => c0^c1->\" x0 x1\nt2 = compose x0 t0\nt3 = compose x1 t0\n",
    );
}

/// Fixed: a spec row with axes beside its row variable (`[s].<ρ>` of a batch slice, or
/// `b...`) meets a result row the solver keeps open (`<τ>.[2,3]`). The word equation
/// `[s].<ρ> = <τ>.[2,3]` is deferred, then closed at stage 6 by the family `τ = [s].<z>`,
/// `ρ = <z>.[2,3]`, which misses the least solution `τ = []`: `t0` gets an extra `1!` axis and
/// the batch slice drops it instead of `2` (`t0: 1!,2,3|4`, `t1: 2,3|4`).
#[test]
fn batch_slice_of_a_computed_tensor() {
    let text = "tensor x: 2,3|4\nt0 = pointwise x\nt1 = batch_slice t0\n";
    expect_shapes(text, &[("t0", "2,3|4"), ("t1", "3|4")]);
}

/// Fixed: the same word equation from a spec row `b...` (`t0: 1!,6` instead of `6`).
#[test]
fn spec_row_with_a_leading_axis_on_a_computed_tensor() {
    let text = "tensor x: 6\nt0 = pointwise x\nt1 = permute \"b...=>b...\" t0\n";
    expect_shapes(text, &[("t0", "6"), ("t1", "6")]);
}

/// Fixed: caps are closed in the order they were added. `t1`'s output row gets the open
/// cap `<τ>.[2,4]` (from `compose t1 t1`) before the cap `[]` (from `t3 ⊑ t1` once the permute
/// closes `t3`'s output); open caps are never joined, `close_row_to_cap` takes the first, and
/// `[] ⊑ [2,4]` then fails. Adding the permute before the compose solves.
#[test]
fn caps_are_joined_whatever_their_order() {
    let text = "tensor x0: 2,4->\nt1 = pointwise x0\nt3 = pointwise t1\n\
                t4 = compose t1 t1\nt6 = permute \"ab->=>ab\" t3\n";
    expect_shapes(text, &[("t1", "2,4->"), ("t3", "2,4->"), ("t4", "2,4->"), ("t6", "2,4")]);
}

/// The same program with the permute first: solved (kept as the reference order).
#[test]
fn caps_in_the_solving_order() {
    let text = "tensor x0: 2,4->\nt1 = pointwise x0\nt3 = pointwise t1\n\
                t6 = permute \"ab->=>ab\" t3\nt4 = compose t1 t1\n";
    expect_shapes(text, &[("t1", "2,4->"), ("t3", "2,4->"), ("t4", "2,4->"), ("t6", "2,4")]);
}

/// Fixed completeness gap (OCANNL's per-flank templates, §3.6 rule 4): `t0`'s output has a leading
/// flank (`a` before `...`), `x0`'s a trailing one; `t1 ⊑ x0, t1 ⊑ t0` gets a template with a
/// fresh leading *and* trailing axis, so `t1` has two axes and `a=>a` fails, although
/// `t1 = [2]` satisfies every constraint.
#[test]
fn leading_and_trailing_operands_overlap() {
    let text = "tensor x0: 2\nt0 = einsum \"a; ..., 0 => a, ...\" x0 x0\n\
                t1 = pointwise x0 t0\nt2 = permute \"a=>a\" t1\n";
    expect_shapes(text, &[("t0", "2"), ("t1", "2"), ("t2", "2")]);
}

/// Solving is deterministic on the programs above (replayed twice).
#[test]
fn regressions_are_deterministic() {
    for text in [
        "tensor x: 2,3|4\nt0 = pointwise x\nt1 = batch_slice t0\n",
        "tensor x0: 2,4->\nt1 = pointwise x0\nt3 = pointwise t1\nt4 = compose t1 t1\n\
         t6 = permute \"ab->=>ab\" t3\n",
    ] {
        let p = program(text);
        assert_eq!(run_program(&p).ok(), run_program(&p).ok());
    }
}

/// Fixed: a numpy step's operand `...` is bound to the middle of the operand's row and
/// keeps its leading flank (`t0 = [a,b,c]` from the permute's result row), so the result's
/// `...` is compared with it aligned left instead of numpy's right alignment; with a cap
/// from `t2` the solver returns `t1: 1,3,2,2,2,2` for `numpy "...a"` on `1,3,2`, whose `...`
/// part `1,3,2,2,2` does not broadcast (right-aligned) into the operand's `1,3`.
#[test]
fn numpy_ellipsis_aligns_right() {
    never_violates(
        "tensor x: 1,3,2\ntensor y: 2,2,2,2\nt0 = permute \"abc...=>abc...\" x\n\
         t1 = numpy \"...a\" t0\nt2 = pointwise t1 y\n",
    );
}

/// Fixed design question: a numpy step's result `...` is only required to broadcast into the
/// operands' (`E ⊑ ρ`), so a cap from a later pointwise step makes it longer than numpy's
/// result: `numpy "...a"` on `1,3,2` is solved to `5,1,3,2` (numpy gives `1,3,2`; the
/// pointwise step would accept that too).
#[test]
fn numpy_result_is_numpys() {
    let text = "tensor x: 1,3,2\ntensor y: 5,1,3,2\nt1 = numpy \"...a\" x\nt2 = pointwise t1 y\n";
    expect_shapes(text, &[("t1", "1,3,2"), ("t2", "5,1,3,2")]);
}

/// Fixed (`src/infer/solve/broadcast.rs`): online propagation did not converge ("shape inference
/// did not converge (infinitely many axes?)", `cycle`) on a satisfiable program. `t2 =
/// transpose t0` of a pointwise template, then `compose t0 t2`, links two row variables both
/// ways; they are united, and the root kept the other as its own upper neighbour, so adding
/// the empty cap passed the cap to itself again, forever. Upper neighbours are now read as
/// roots and `y` itself skipped.
#[test]
fn compose_with_a_transposed_template_converges() {
    let text = "tensor a: 1!\ntensor x1: 2\nt0 = pointwise a\nt2 = transpose t0\n\
                t3 = compose x1 t2\nt4 = compose t0 t2\n";
    expect_shapes(text, &[("t0", "1!"), ("t2", "1!->"), ("t4", "1!->1!")]);
}

/// Fixed (`src/infer/close/careful.rs`): in careful mode, a word equation `[a,b].<ρ> = <τ>.[2]`
/// (two batch slices meeting a pointwise result) whose least and family solutions both failed
/// on trial copies of the solver was marked done with neither taken, so it was silently
/// dropped: the solver returned `t0: 2|` with `t2: 1|`, breaking `t2 = batch_slice t0`.
/// Such a decision now takes its first choice and reports the contradiction; this program is
/// then solved by a later, consistent choice (`t0` gets a leading `1!`).
#[test]
fn a_word_equation_is_never_dropped() {
    let text = "tensor x0: 2|\ntensor x2: 1|\nt0 = pointwise x0\nt2 = batch_slice t0\n\
                t3 = compose t2 x2\nt5 = batch_slice t2\n";
    expect_shapes(text, &[("t0", "1!,2|"), ("t2", "2|"), ("t3", "2,1|"), ("t5", "")]);
}

/// The same dropped equation on an unsatisfiable program (it was solved with `t1: 2|`): `t1`
/// is `t0` without its first axis and ends in `x0`'s user-written `1`, which cannot meet
/// `x1`'s `2` in `t4`.
#[test]
fn an_unsatisfiable_word_equation_is_reported() {
    let text = "tensor x0: 1|\ntensor x1: 2|\nt0 = compose x0 x0\nt1 = batch_slice t0\n\
                t2 = batch_slice t1\nt4 = pointwise x1 t1\n";
    expect_rejected(text, ErrorCode::Mismatch);
}

/// The same bug through a pointwise step of three operands: `t2` needs `t1`'s leading `1` and
/// `x0`'s trailing `2,1`, which cannot overlap, so it is `1,2,1` (it was solved with
/// `t1: 2,1|`, not `t0` without its first axis).
#[test]
fn a_batch_slice_keeps_its_first_axis_apart() {
    let text = "tensor x0: 2,1|\ntensor x1: \nt0 = pointwise x0\nt1 = batch_slice t0\n\
                t2 = pointwise t1 x1 x0\nt3 = batch_slice t1\n";
    expect_shapes(text, &[("t0", "2,1|"), ("t1", "1|"), ("t2", "1,2,1|"), ("t3", "")]);
}

/// The same bug in an einsum with row variables on both sides (it was solved with `t4`'s
/// label `c` both `1!` and `4`): whatever the outcome, no constraint is broken.
#[test]
fn a_dropped_equation_in_an_einsum() {
    never_violates(
        "tensor x0: 1,1\ntensor x1: \ntensor x2: \ntensor x3\nt0 = compose x0 x1\n\
         t1 = compose t0 x2\nt3 = permute \"ab=>ab\" t1\n\
         t4 = einsum \"...|..., a->a, b; c, b->a, d, ... => ..input..|..output..->a, b, c, d, ..batch..\" x3 t0\n",
    );
}

/// Fixed (`src/infer/solve/dims.rs`): a fixed index in a result (`=> ab2`) bounds a dim that a
/// later convolution ties to `2*c<+2*b`; the bound waited for the affine size to be known,
/// so closing took `c = 1!` and reported index 2 out of range. The bound now gives the least
/// `c` at once (size `2*(c-1) + 1 ≥ 3`, so `c ≥ 2`).
#[test]
fn a_fixed_index_bounds_a_convolution_output() {
    let text = "tensor x2: 1|2,2->\ntensor x4: 2,2|1\nt4 = permute \"0|ab->=>ab2\" x2\n\
                t6 = einsum \"|a, a, 2*c<+2*b; d, e|b => a, b, c, d, e\" t4 x4\n";
    expect_shapes(text, &[("t4", "2,2,3"), ("t6", "2,1,2,2,2")]);
}

/// Fixed (`src/infer/solve/broadcast.rs`, `RowIneqRight`): a numpy operand's `...` over a row with a
/// leading flank (`t3`'s output row `a,b,c,d,e,..output..`) kept the flank, and the result's
/// `...` was compared with it aligned left (`h=4` against `1`). numpy aligns right; the
/// shapes below are numpy's.
#[test]
fn numpy_ellipsis_over_a_leading_flank_aligns_right() {
    let text = "tensor x0: h=4|w=2->1\nt1 = einsum \"a|b->c;a|d->c=>abcd\" x0 x0\n\
                t3 = einsum \"...->a...bc;a|d...->e=>...->abcde...\" t1 x0\n\
                t4 = numpy \"...a,bcde...f->...fbedca\" t1 t3\n";
    let t4 = "h=4,w=2,1,w=2,h=4,w=2,w=2,1,w=2";
    expect_shapes(text, &[("t3", "h=4,1,w=2,w=2,1,w=2"), ("t4", t4)]);
}

/// The same, with numpy's implicit output: `...` of `3,2` and `2` broadcast to `3,2`.
#[test]
fn numpy_implicit_output_over_a_leading_flank() {
    let text = "tensor x0: 2,5|4\ntensor x1: 3,2,2->3\n\
                t1 = einsum \"a, c<+b|...->d; e, f, g->b => a, b, c, d, e, f, g, ..input..\" x0 x1\n\
                t2 = numpy \"abcd...e,fghijk...\" t1 t1\n";
    expect_shapes(text, &[("t1", "2,3,3,4,3,2,2"), ("t2", "3,2,2,3,3,4,2,2,3,3,4,3,2")]);
}

/// Fixed (`src/infer/close/stages.rs`): a leaf's dim that a deferred word equation mentions was
/// guessed `1!` at stage 5, before the equation was decided at stage 6. Here `a` (from `x2`,
/// an open leaf) also heads `t3`'s batch row: `[a].<β> = <τ>.[2]` has the least solution
/// `a = 2`, `τ = []`, but with `a = 1!` fixed first only the longer `t3: 1!,2|` remained.
#[test]
fn a_dim_waiting_on_a_word_equation_is_not_guessed() {
    let text = "tensor x0: 2|\ntensor x2\nt3 = pointwise x0\n\
                t5 = einsum \"a...|->;bac->aaa=>...|abc\" t3 x2\n";
    expect_shapes(text, &[("t3", "2|"), ("t5", "|2,1!,1!")]);
    // The same through a compose result (it was solved `t0: 1!,2,2|`).
    let text = "tensor x0: 2,2|\ntensor x1\nt0 = compose x0 x0\n\
                t1 = einsum \"a...|->...;a|ba->aaa=>...|ab...\" t0 x1\n";
    expect_shapes(text, &[("t0", "2,2|"), ("t1", "2|2,1!")]);
}

/// Fixed (`src/infer/solve/concat.rs`): `1 = c0^c1` with `c1 = h=1` took `c0 = 0` and called the
/// sides equal, though the concatenation's basis is `h` and the `1` has none; `x2`'s batch row
/// was closed to `h=1,1` and `t4`'s `1,1` does not refine it.
#[test]
fn a_concatenation_keeps_its_named_basis() {
    let text = "tensor x0\ntensor x1: h=1,1|1,1\ntensor x2: ...|\ntensor x3: 1,1|\n\
                t2 = concat \"c0, b|c, d; c1, b|c, d => c0^c1, b|c, d\" x0 x1\n\
                t3 = compose t2 x2\nt4 = compose x3 x2\n";
    expect_shapes(text, &[("x2", "1!,1!|"), ("t4", "1,1|")]);
}

/// Fixed (`src/infer/lower/numpy.rs`): numpy's broadcast of `...` over `1!` and a user-written `1`
/// picked `1!`, which does not refine the `1` (numpy: shapes `(1,)`, `(2,)`, `(2,1)` give
/// `(2,1,2)`).
#[test]
fn numpy_ellipsis_prefers_a_written_one_to_the_top() {
    let text = "tensor x0: 2|\ntensor x1: 1!\ntensor x2: 2,1\nt0 = permute \"a|=>a\" x0\n\
                t1 = numpy \"...,...a,...\" x1 t0 x2\n";
    expect_shapes(text, &[("t1", "2,1,2")]);
    let text = "tensor x0: 2,1->2,1,1!\nt0 = einsum \"ab->acd;ef->ghi=>abcdefghi\" x0 x0\n\
                t1 = numpy \"abcdefgh...,...i\" t0 t0\n";
    let t0 = "2,1,1,1!,2,1,2,1,1!";
    expect_shapes(text, &[("t0", t0), ("t1", "2,1,1,1!,2,1,2,1,2,1,1,1!,2,1,2,1,1!")]);
}

/// Fixed (`src/infer/close/stages.rs`): a result's fixed index 0 (`=> 0|...`) closed to `1!` when a
/// consumer's cap had arrived and to a plain `1` otherwise, so the answer depended on the
/// order the operations were added in. It is `1!` either way.
#[test]
fn a_fixed_index_zero_closes_to_the_top_in_any_order() {
    let steps = [
        "t1 = compose x0 x1",
        "t2 = compose t1 x0",
        "t3 = permute \"->...=>0|...\" t2",
        "t6 = einsum \"ab->;...|0c->...=>...0|abc...\" x1 x1",
        "t7 = compose t6 t3",
    ];
    let head = "tensor x0: \ntensor x1: 3,2->\n";
    for order in [[0, 1, 2, 3, 4], [0, 3, 1, 2, 4]] {
        let text: String = order.iter().map(|&i| format!("{}\n", steps[i])).collect();
        expect_shapes(&format!("{head}{text}"), &[("t3", "1!|"), ("t7", "1!|3,2,2")]);
    }
}

// Found by the reference sweep of `ocannl-semantics.md` (session 3), not by fuzzing.

/// §3.6 rule 6 and §3.9 stage 3: a leaf row with a leading flank (`2,...`) broadcast into a
/// known result gets the result's residue as a cap and closes to it. The broadcast waits while
/// the result's own row variable is open; the leaf row used to close empty at stage 4 before
/// that broadcast was decided (`x: 2`).
#[test]
fn a_leading_flank_leaf_row_closes_to_its_cap() {
    let text = "tensor x: 2,...\ntensor y: 2,3,4\nr = pointwise y x\n";
    expect_shapes(text, &[("x", "2,3,4"), ("r", "2,3,4")]);
    let text = "tensor x: 2,...,3\ntensor y: 2,4,3\nr = pointwise y x\n";
    expect_shapes(text, &[("x", "2,4,3"), ("r", "2,4,3")]);
    let text = "tensor x: ...|2,...\ntensor y: 5|2,3,4\nr = pointwise y x\n";
    expect_shapes(text, &[("x", "5|2,3,4"), ("r", "5|2,3,4")]);
}

/// The same with the operands swapped (§9.4: results do not depend on operand order). The
/// result's row, linked to `x`'s and collapsed into it at stage 2, waits on the deferred
/// broadcast against `y` instead of closing empty at stage 4 (which gave `x: 2`).
#[test]
fn a_leading_flank_leaf_row_closes_whichever_operand_comes_first() {
    let text = "tensor x: 2,...\ntensor y: 2,3,4\nr = pointwise x y\n";
    expect_shapes(text, &[("x", "2,3,4"), ("r", "2,3,4")]);
    let text = "tensor x: 2,...,3\ntensor y: 2,4,3\nr = pointwise x y\n";
    expect_shapes(text, &[("x", "2,4,3"), ("r", "2,4,3")]);
}

/// §3.9 (variant 4) and FORMAT.md: a parameter's row used in a spec is never guessed empty.
/// The default policy refused; the fallback search of leaf row lengths then picked length 0.
#[test]
fn a_parameter_row_used_in_a_spec_is_not_guessed() {
    let text = "param p: ...\nr = permute \"..r.. => ..r..\" p\n";
    expect_rejected(text, ErrorCode::Unresolved);
    let text = "param p: ...\ntensor x: 3\nr = einsum \"..r..; i => ..r.., i\" p x\n";
    expect_rejected(text, ErrorCode::Unresolved);
}

/// §4: only a row used pointwise only (a bias) is safe to guess empty on a parameter; the
/// output row of a composed weight that nothing sizes is an `unresolved` error.
#[test]
fn a_parameter_row_only_a_compose_result_follows_is_not_guessed() {
    let text = "param w: ...->...\ntensor x: 3\ny = compose w x\n";
    expect_rejected(text, ErrorCode::Unresolved);
    let text = "param b: ...\ntensor x: 3\ny = pointwise x b\n";
    expect_shapes(text, &[("b", "3"), ("y", "3")]);
}

/// §2.1: a convolution's output and kernel axes with two different named bases are a
/// `mismatch` (the size used to take the output axis's basis: `r: x=5`).
#[test]
fn a_convolution_rejects_conflicting_named_bases() {
    let text = "tensor o: x=3\ntensor w: y=3\nr = einsum \"o; k => o<+k\" o w\n";
    expect_rejected(text, ErrorCode::Mismatch);
    let text = "tensor o: x=3\ntensor w: y=3\nr = einsum \"o; k => 2*o<+k\" o w\n";
    expect_rejected(text, ErrorCode::Mismatch);
    let text = "tensor o: x=3\ntensor w: 3\nr = einsum \"o; k => o<+k\" o w\n";
    expect_shapes(text, &[("r", "x=5")]);
}

/// An equation between a strided axis (`2*b`) and a valid convolution (`3*d<+c`) of another
/// operation was marked done at stage 7 with both sides still open, so after closing it never
/// compared `2` with `1` (`einrow fuzz infer --open --known-issues --seed 31`). It now waits
/// until a side is solved; here the closing guesses make it a mismatch, never a wrong answer.
#[test]
fn an_equation_between_affine_axes_of_two_kinds_is_not_dropped() {
    never_violates(
        "tensor x0: 1->...\ntensor x1: \ntensor x2: 1\n\
         t0 = einsum \"a->0, 2*b, c;  => a, b, c\" x0 x1\nt2 = pointwise x0\n\
         t3 = einsum \"...->_, 3*b<+a, c; a => a, b, c, ..input..\" t2 x2\n",
    );
}

/// §3.6 rules 4 and 6: two open leaves with opposite flanks (`2,...` and `...,3`) both close to
/// the result `2,3`, whichever comes first. A careful trial of "the result takes the fewest
/// axes" did not re-check the inequality it resolved, so that choice was taken and failed.
#[test]
fn opposite_flank_leaves_close_to_the_same_result_in_either_order() {
    for text in [
        "tensor x: 2,...\ntensor y: ...,3\nr = pointwise x y\n",
        "tensor x: 2,...\ntensor y: ...,3\nr = pointwise y x\n",
    ] {
        expect_shapes(text, &[("x", "2,3"), ("y", "2,3"), ("r", "2,3")]);
    }
    let text = "tensor x: 2,...,4\ntensor y: ...,3,4\nr = pointwise x y\n";
    expect_shapes(text, &[("x", "2,3,4"), ("y", "2,3,4"), ("r", "2,3,4")]);
}

/// §3.3: `2*o` and `4*p` over one tensor: the finer `over` is the coarser one strided
/// (`o = 2*p`), so a consumer sizing `p` sizes everything. The equation used to wait until
/// closing guessed `o`, then failed (`size 2 is not divisible by the stride 4`).
#[test]
fn nested_strides_of_one_tensor_are_related() {
    let text = "tensor x\ntensor y: 3\nr = permute \"2*o => o\" x\n\
                s = permute \"4*p => p\" x\nt = pointwise s y\n";
    expect_shapes(text, &[("x", "12"), ("r", "6"), ("s", "3")]);
}

/// FORMAT.md: a parameter no operation uses, declared with nothing known, is an `unresolved`
/// error (OCANNL's test_param_shape_error); it used to be left unclosed, with no error.
#[test]
fn an_unused_open_parameter_is_unresolved() {
    expect_rejected("param w\n", ErrorCode::Unresolved);
    expect_shapes("tensor x\nparam p: 3\n", &[("x", ""), ("p", "3")]);
}

/// Three row variables linked in a cycle (`t3`'s, `t4`'s and `t0`'s input rows, through the
/// transpose, the pointwise step and the compose contraction), with the empty cap of `t6`'s
/// contraction: each variable passed the cap to its upper neighbour even when it had it
/// already, so it went around the cycle until the fuel ran out ("did not converge"). Found by
/// `einrow fuzz infer` (seed 2105327919); the expected shapes are the generator's witness.
#[test]
fn a_cap_known_already_is_not_passed_around_a_cycle() {
    let text = "tensor x0: 2|2\ntensor x1: 2|\nt0 = compose x0 x1\nt2 = transpose t0\n\
                t3 = pointwise t2\nt4 = compose t0 t3\nt6 = compose x0 t2\n";
    expect_shapes(
        text,
        &[("t0", "2|2"), ("t2", "2|2->"), ("t3", "2|2->"), ("t4", "2|2->2"), ("t6", "2|2->2")],
    );
}

/// Values past 2^53: the compose, the three-operand product and the contraction make sums of
/// about 1.3e19 from leaves in -3..=3, where f64 rounds. In one draw of `einrow fuzz infer`
/// (random seed 2078071772, `--time 60`), einrow's order of addition and the naive
/// reference's gave results one rounding apart (`1.25524238436e19` against
/// `1.2552423843599993e19`), which the execution check compared exactly. These 64 draws do
/// not hit that rounding with the old exact comparison; they pin that the program runs and
/// agrees. The tolerance itself is tested in `fuzzing::execution` with the failure's numbers.
#[test]
fn values_past_two_to_the_53_may_round_differently() {
    let text = "tensor x0: 1,h=2|h=5,6->\nt0 = compose x0 x0\n\
                t1 = einsum3 \"...|ab->;...|ac->;...|a0->...=>...|bc...\" t0 t0 t0\n\
                t3 = einsum \"a_|_b;ac|...=>abc\" t1 t1\n";
    let p = program(text);
    for seed in 0..64u32 {
        let data: Vec<u32> = (0..512).map(|i| seed.wrapping_mul(2_654_435_761) ^ i).collect();
        let compared =
            check_execution(&p, &mut Choices::new(&data)).unwrap_or_else(|f| panic!("{f}"));
        assert!(compared, "the program was not executed (draw {seed})");
    }
}

/// Fixed: the concatenation's flat equalities make its label `b` one dim in both operands, yet
/// the solution had `b` as `1!` in `t0` and as `1` in `x5`. `b` is also the valid convolution
/// `c<+b` of the einsum `t1`, solved backward from `x5`'s 1 once closing had bound its `over`
/// to `1!`: the kernel came out 1, but the axis takes its `over`'s basis, so it read `1!`. Now
/// closing gives such an `over` the solved size's basis, and a backward solution whose basis
/// differs is an error. Found by `einrow fuzz infer --open --seed 1137455446 --count 30000`.
#[test]
fn a_concatenation_label_is_one_dim_in_every_operand() {
    never_violates(
        "tensor x0\ntensor x1: ...\ntensor x2: ...|\ntensor x5: 1|1,1,1\n\
         t0 = pointwise x0 x1\n\
         t1 = einsum \"...|...->a, c<+b, _; b, d| => ..input..|a, b, c, d, ..batch..\" x0 x2\n\
         t4 = concat \"a|...->c0, b, c; a|...->c1, b, c => a|...->c0^c1, b, c\" t0 x5\n",
    );
}

/// The smaller program behind the one above: `x0`'s axis `c<+b` is one with `x5`'s `1`.
#[test]
fn a_convolution_solved_backward_keeps_the_basis_of_its_size() {
    let text = "tensor x0
tensor x2: ...|
tensor x5: 1|1,1,1
\
                t1 = einsum \"...|...->a, c<+b, _; b, d| => ..input..|a, b, c, d, ..batch..\" x0 x2\n\
                t4 = concat \"a|...->c0, b, c; a|...->c1, b, c => a|...->c0^c1, b, c\" x0 x5\n";
    never_violates(text);
    expect_shapes(text, &[("x0", "1|1!,1,1"), ("x5", "1|1,1,1"), ("t4", "1|2,1,1")]);
}

/// An axis over the broadcast top takes the top's basis (reference §3.3: `d = s*o` with the
/// basis of `over`), so `2*c` with `c = 1!` is not the user's `2`: rejected in either order,
/// and the message names the basis instead of reading `2 vs 2`.
#[test]
fn an_axis_over_the_broadcast_top_is_not_a_plain_size() {
    for text in [
        "tensor y: 1!\ntensor x: 2\nt = einsum \"c; 2*c => c\" y x\n",
        "tensor x: 2\ntensor y: 1!\nt = einsum \"2*c; c => c\" x y\n",
    ] {
        expect_rejected(text, ErrorCode::Mismatch);
    }
    let text = "tensor y: 1!\ntensor x: 2\nt = einsum \"c; 2*c => c\" y x\n";
    let outcome = check_program(&program(text)).unwrap_or_else(|f| panic!("{f}"));
    let Outcome::Rejected { message, .. } = outcome else { panic!("solved: {outcome:?}") };
    assert!(message.contains("bcast_if_1=2 vs 2"), "{message}");
    expect_shapes(
        "tensor x\ntensor y: 1!\nt = einsum \"2*c; c => c\" x y\n",
        &[("x", "bcast_if_1=2"), ("y", "1!"), ("t", "1!")],
    );
}
