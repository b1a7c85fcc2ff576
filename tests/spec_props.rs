//! Property tests of the parsing stage: `parse(print(ast)) == ast` (modulo spans) for random
//! trees, and no input makes a front end panic or report a span outside the input.

use einrow::spec::ast::{
    Affine, Axis, AxisKind, Coeff, ConcatPart, Conv, EinsumSpec, Ellipsis, LabelsSpec, Name,
    Padding, Row, ShapeSpec,
};
use einrow::spec::{parse_einsum, parse_labels, parse_numpy};
use einrow::Span;
use proptest::prelude::*;
use smallvec::SmallVec;

fn label(multichar: bool) -> BoxedStrategy<Name> {
    if multichar {
        "[a-m][a-z0-9_]{0,3}".prop_map(|s| s.into()).boxed()
    } else {
        "[a-mA-M]".prop_map(|s| s.into()).boxed()
    }
}

fn coeff() -> impl Strategy<Value = Coeff> {
    prop_oneof![(1u64..5).prop_map(Coeff::Int), "[a-m]".prop_map(|s| Coeff::Name(s.into()))]
}

fn affine() -> impl Strategy<Value = AxisKind> {
    let padding =
        prop_oneof![Just(Padding::Unspecified), Just(Padding::Same), Just(Padding::Valid)];
    let conv = (coeff(), label(true), padding).prop_map(|(dilation, kernel, padding)| Conv {
        dilation,
        kernel,
        padding,
        kernel_span: Span::default(),
    });
    (coeff(), label(true), 0u64..3, proptest::option::of(conv)).prop_map(
        |(stride, over, offset, conv)| {
            // Without a kernel the stride is always written, so any stride prints back.
            AxisKind::Affine(Box::new(Affine {
                stride,
                over,
                over_span: Span::default(),
                offset,
                conv,
            }))
        },
    )
}

fn concat(allow_sizes: bool) -> impl Strategy<Value = AxisKind> {
    let part = prop_oneof![
        label(true).prop_map(ConcatPart::Label),
        (0u64..9).prop_map(move |n| if allow_sizes {
            ConcatPart::Size(n)
        } else {
            ConcatPart::Label(format!("c{n}").into())
        }),
    ];
    proptest::collection::vec(part, 2..4).prop_map(AxisKind::Concat)
}

fn axis(multichar: bool, allow_sizes: bool) -> BoxedStrategy<Axis> {
    let simple = prop_oneof![
        label(multichar).prop_map(AxisKind::Label),
        Just(AxisKind::Placeholder),
        (0u64..200).prop_map(AxisKind::Int),
    ];
    let kind = if multichar {
        prop_oneof![4 => simple, 1 => affine(), 1 => concat(allow_sizes)].boxed()
    } else {
        simple.boxed()
    };
    kind.prop_map(|kind| Axis { kind, span: Span::default() }).boxed()
}

fn row(multichar: bool, allow_sizes: bool) -> impl Strategy<Value = Row> {
    let axes = || proptest::collection::vec(axis(multichar, allow_sizes), 0..3);
    let var = if multichar { "[n-z][a-z0-9]{0,2}" } else { "[n-z]" };
    let ellipsis = proptest::option::of(proptest::option::of(var.prop_map(|s| s.into())));
    (axes(), ellipsis, axes()).prop_map(|(lead, ellipsis, trail)| {
        let ellipsis = ellipsis.map(|name| Ellipsis { name, span: Span::default() });
        let (leading, trailing) = match ellipsis {
            Some(_) => (SmallVec::from_vec(lead), SmallVec::from_vec(trail)),
            None => (SmallVec::new(), SmallVec::from_vec([lead, trail].concat())),
        };
        Row { leading, ellipsis, trailing, span: Span::default() }
    })
}

fn shape(multichar: bool, allow_sizes: bool) -> impl Strategy<Value = ShapeSpec> {
    let opt_row = || proptest::option::of(row(multichar, allow_sizes));
    (opt_row(), opt_row(), row(multichar, allow_sizes)).prop_map(|(batch, input, output)| {
        ShapeSpec { batch, input, output, span: Span::default() }
    })
}

fn einsum_spec() -> impl Strategy<Value = EinsumSpec> {
    any::<bool>().prop_flat_map(|multichar| {
        (proptest::collection::vec(shape(multichar, true), 1..4), shape(multichar, false))
            .prop_map(move |(rhs, lhs)| EinsumSpec { rhs, lhs, multichar })
    })
}

fn labels_spec() -> impl Strategy<Value = LabelsSpec> {
    any::<bool>().prop_flat_map(|multichar| {
        shape(multichar, true).prop_map(move |shape| LabelsSpec { shape, multichar })
    })
}

fn spans_inside(text: &str, span: Span) -> bool {
    span.start <= span.end && span.end as usize <= text.len()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn einsum_print_parse_round_trip(spec in einsum_spec()) {
        let text = spec.to_string();
        let parsed = parse_einsum(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
        prop_assert_eq!(parsed.without_spans(), spec, "text {:?}", text);
    }

    #[test]
    fn labels_print_parse_round_trip(spec in labels_spec()) {
        let text = spec.to_string();
        let parsed = parse_labels(&text).map_err(|e| TestCaseError::fail(format!("{text:?}: {e}")))?;
        prop_assert_eq!(parsed.without_spans(), spec, "text {:?}", text);
    }

    #[test]
    fn no_panic_and_spans_inside(text in "[ a-z0-9_,.|;=<>+*^&-]{0,24}|\\PC{0,12}") {
        let errors = [parse_labels(&text).err(), parse_einsum(&text).err(), parse_numpy(&text).err()];
        for e in errors.into_iter().flatten() {
            prop_assert!(spans_inside(&text, e.span()), "{:?}: span {:?}", text, e.span());
        }
    }
}
