//! numpy's implicit output (subscripts without `->`): the ellipsis, then the labels that occur
//! exactly once, in ASCII order. Every label's occurrences were counted by scanning all the
//! subscripts again (quadratic: `a,a,…,a` of 40k operands took 0.4 s to analyse where the same
//! einsum with `->` took 0.09 s); they are counted in one pass. The large cases below finish
//! only because of that; `examples/einsum_scale.rs` and `einrow infer` measure the speed, never
//! timed here. The property checks the rule on random subscripts, through the parser's
//! [`NumpySpec::implicit_output`], numpy's shape analysis and shape inference alike.

use einrow::infer::program::Program;
use einrow::infer::{Graph, OpKind, ShapeBuilder};
use einrow::numpy::einsum_shape;
use einrow::spec::ast::NumpySpec;
use einrow::spec::parse_numpy;
use proptest::prelude::*;

/// Operands in the large cases: a quadratic count would be 10^11 comparisons.
const MANY: usize = 300_000;

/// `a,a,…,a` and the same with two labels written once among them, by every entry that reads
/// numpy subscripts without running them: the parser, numpy's shape analysis, inference.
#[test]
fn the_implicit_output_of_many_operands_is_counted_in_one_pass() {
    let mut terms = vec!["a"; MANY];
    let spec = parse_numpy(&terms.join(",")).expect("parses");
    assert_eq!(spec.implicit_output(), Vec::<char>::new());
    let shapes = vec![&[3usize][..]; MANY];
    assert_eq!(einsum_shape(&terms.join(","), &shapes).expect("analyses"), Vec::<usize>::new());

    // `b` and `C` occur once: the output is `Cb` (uppercase first).
    (terms[MANY / 2], terms[MANY - 1]) = ("b", "C");
    let text = terms.join(",");
    assert_eq!(parse_numpy(&text).expect("parses").implicit_output(), ['C', 'b']);
    let mut shapes = vec![&[3usize][..]; MANY];
    (shapes[MANY / 2], shapes[MANY - 1]) = (&[4], &[5]);
    assert_eq!(einsum_shape(&text, &shapes).expect("analyses"), [5, 4]);

    // Inference: one numpy step over 100k operands (each a name in the program text), the
    // last of which, `y`, has the label `b` written once.
    let n = MANY / 3;
    let mut terms = vec!["a"; n];
    terms[n - 1] = "ab";
    let mut args = vec!["x"; n];
    args[n - 1] = "y";
    let program = format!(
        "tensor x: 3\ntensor y: 3,7\nz = numpy \"{}\" {}\n",
        terms.join(","),
        args.join(" ")
    );
    let built = Program::parse_text(&program).expect("parses").build();
    built.result.map_err(|(e, _)| e.to_string()).expect("solves");
    let g = built.graph;
    let z = built.names.iter().find(|(name, _)| name == "z").expect("z is defined").1;
    assert_eq!(g.shape_string(z).expect("solved"), "7");
}

/// Terms over `a`, `b`, `A`, `B` (sizes 2, 3, 4, 5: each size names its label), some with an
/// ellipsis of up to two dims.
fn implicit_cases() -> impl Strategy<Value = Vec<(String, bool)>> {
    prop::collection::vec(("[abAB]{0,4}", any::<bool>()), 1..=5)
}

fn size(c: char) -> usize {
    match c {
        'a' => 2,
        'b' => 3,
        'A' => 4,
        _ => 5,
    }
}

/// The rule as numpy's documentation states it, written plainly: the letters that occur
/// exactly once, sorted.
fn once_sorted(terms: &[(String, bool)]) -> Vec<char> {
    let all: Vec<char> = terms.iter().flat_map(|(t, _)| t.chars()).collect();
    let mut once: Vec<char> =
        all.iter().copied().filter(|c| all.iter().filter(|d| *d == c).count() == 1).collect();
    once.sort_unstable();
    once
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn the_implicit_output_is_the_labels_written_once_in_ascii_order(terms in implicit_cases()) {
        // Ellipsis dims: right-aligned, the widest term's two dims are 6 and 7.
        let ell = [6usize, 7];
        let text: Vec<String> = terms.iter().map(|(t, e)| if *e { format!("...{t}") } else { t.clone() }).collect();
        let text = text.join(",");
        let shapes: Vec<Vec<usize>> = terms
            .iter()
            .enumerate()
            .map(|(k, (t, e))| {
                let dims = if *e { &ell[k % 3 / 2..] } else { &ell[..0] };
                dims.iter().copied().chain(t.chars().map(size)).collect()
            })
            .collect();
        let once = once_sorted(&terms);
        let spec: NumpySpec = parse_numpy(&text).expect("parses");
        prop_assert_eq!(spec.implicit_output(), once.clone());

        // numpy's analysis: the widest ellipsis, then the labels written once.
        let widest = terms.iter().enumerate().filter(|(_, (_, e))| *e).map(|(k, _)| 2 - k % 3 / 2).max().unwrap_or(0);
        let want: Vec<usize> = ell[2 - widest..].iter().copied().chain(once.iter().map(|&c| size(c))).collect();
        let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        prop_assert_eq!(einsum_shape(&text, &refs).expect("analyses"), want.clone());

        // Inference of the same step over declared operands.
        let mut g = Graph::new();
        let args: Vec<_> = shapes
            .iter()
            .enumerate()
            .map(|(k, s)| g.input(&format!("x{k}"), &ShapeBuilder::new().output(s.iter().map(|&d| d as u64))).expect("declares"))
            .collect();
        let z = g.add_step(OpKind::Numpy, &args, Some(&text)).expect("infers");
        g.solve().expect("solves");
        let got = g.shape_string(z).expect("solved");
        let want_text = want.iter().map(usize::to_string).collect::<Vec<_>>().join(",");
        prop_assert_eq!(got, want_text);
    }
}
