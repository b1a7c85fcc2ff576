//! Spec text: strategies for labels specs, einsum specs (OCANNL syntax, both lexer modes) and
//! numpy subscripts, as trees that validate and as text (printed valid trees, and near-valid
//! text: a valid spec with one or two character edits), plus the round-trip property
//! `parse(print(parse(text))) == parse(text)` with no panic and error spans inside the input.

use std::panic::{catch_unwind, AssertUnwindSafe};

use proptest::prelude::*;
use smallvec::SmallVec;

use super::props::{panic_message, Failure, FailureKind};
use crate::spec::ast::{
    Affine, Axis, AxisKind, Coeff, ConcatPart, Conv, EinsumSpec, Ellipsis, LabelsSpec, Name,
    NumpySpec, Padding, Row, ShapeSpec,
};
use crate::spec::{parse_einsum, parse_labels, parse_numpy};
use crate::Span;

fn label(multichar: bool) -> BoxedStrategy<Name> {
    if multichar {
        "[a-m][a-z0-9_]{0,3}".prop_map(Name::from).boxed()
    } else {
        "[a-mA-M]".prop_map(Name::from).boxed()
    }
}

fn coeff() -> impl Strategy<Value = Coeff> {
    prop_oneof![4 => (1u64..5).prop_map(Coeff::Int), 1 => "[a-m]".prop_map(|s| Coeff::Name(s.into()))]
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
        6 => label(multichar).prop_map(AxisKind::Label),
        1 => Just(AxisKind::Placeholder),
        2 => (0u64..200).prop_map(AxisKind::Int),
    ];
    let kind = if multichar {
        prop_oneof![5 => simple, 1 => affine(), 1 => concat(allow_sizes)].boxed()
    } else {
        simple.boxed()
    };
    kind.prop_map(|kind| Axis { kind, span: Span::default() }).boxed()
}

fn row(multichar: bool, allow_sizes: bool) -> impl Strategy<Value = Row> {
    let axes = || proptest::collection::vec(axis(multichar, allow_sizes), 0..3);
    let var = if multichar { "[n-z][a-z0-9]{0,2}" } else { "[n-z]" };
    let ellipsis = proptest::option::of(proptest::option::of(var.prop_map(Name::from)));
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
        let (batch, input) = (batch.map(Box::new), input.map(Box::new));
        ShapeSpec { batch, input, output, span: Span::default() }
    })
}

/// Labels specs (one slot) that parse, in either lexer mode. Labels are `a`–`m`, row
/// variables `n`–`z` (a name used as both is an error, tested by the text strategies).
pub fn labels_spec_ast() -> BoxedStrategy<LabelsSpec> {
    any::<bool>()
        .prop_flat_map(|multichar| {
            shape(multichar, true).prop_map(move |shape| LabelsSpec { shape, multichar })
        })
        .boxed()
}

/// Einsum specs (one to three operand slots and a result slot) that parse, in either mode.
pub fn einsum_spec_ast() -> BoxedStrategy<EinsumSpec> {
    any::<bool>()
        .prop_flat_map(|multichar| {
            (proptest::collection::vec(shape(multichar, true), 1..4), shape(multichar, false))
                .prop_map(move |(rhs, lhs)| EinsumSpec { rhs, lhs, multichar })
        })
        .boxed()
}

fn numpy_term() -> impl Strategy<Value = Row> {
    let labels = || proptest::collection::vec("[a-fA-C]".prop_map(Name::from), 0..4);
    (labels(), any::<bool>(), labels()).prop_map(|(lead, dots, trail)| {
        let to_axes = |v: Vec<Name>| -> SmallVec<[Axis; 2]> {
            v.into_iter()
                .map(|l| Axis { kind: AxisKind::Label(l), span: Span::default() })
                .collect()
        };
        let ellipsis = dots.then(|| Ellipsis { name: None, span: Span::default() });
        match ellipsis {
            Some(_) => Row {
                leading: to_axes(lead),
                ellipsis,
                trailing: to_axes(trail),
                span: Span::default(),
            },
            None => Row { trailing: to_axes([lead, trail].concat()), ..Row::default() },
        }
    })
}

/// Numpy subscripts that parse: one to three terms and an optional output made of distinct
/// input labels (and `...` when chosen).
pub fn numpy_spec_ast() -> BoxedStrategy<NumpySpec> {
    (
        proptest::collection::vec(numpy_term(), 1..4),
        proptest::option::of((any::<u64>(), any::<bool>())),
    )
        .prop_map(|(inputs, out)| {
            let output = out.map(|(seed, dots)| {
                let mut labels: Vec<Name> = Vec::new();
                for a in inputs.iter().flat_map(Row::axes) {
                    if let AxisKind::Label(l) = &a.kind {
                        if !labels.contains(l) {
                            labels.push(l.clone());
                        }
                    }
                }
                let keep: Vec<Name> = labels
                    .into_iter()
                    .enumerate()
                    .filter(|(i, _)| seed >> (i % 64) & 1 == 1)
                    .map(|(_, l)| l)
                    .collect();
                let axes = keep
                    .into_iter()
                    .map(|l| Axis { kind: AxisKind::Label(l), span: Span::default() });
                let mut row = Row { trailing: axes.collect(), ..Row::default() };
                if dots {
                    row.leading = std::mem::take(&mut row.trailing);
                    row.ellipsis = Some(Ellipsis { name: None, span: Span::default() });
                }
                row
            });
            NumpySpec { inputs, output }
        })
        .boxed()
}

/// A valid text with a few random character edits (deletions, duplications, insertions of
/// spec punctuation, swaps): mostly invalid, sometimes valid in another way.
pub fn near_valid(valid: BoxedStrategy<String>) -> BoxedStrategy<String> {
    let edit = (
        0u8..4,
        any::<usize>(),
        prop::sample::select(vec![
            ",", "|", "->", "=>", ";", "...", "..", "_", "^", "*", "+", "=", "<", "0", "12", "a",
            "x", " ", "..r..",
        ]),
    );
    (valid, proptest::collection::vec(edit, 1..3))
        .prop_map(|(mut text, edits)| {
            for (op, at, token) in edits {
                let chars: Vec<char> = text.chars().collect();
                let i = if chars.is_empty() { 0 } else { at % chars.len() };
                let mut c = chars.clone();
                match op {
                    0 if !c.is_empty() => {
                        c.remove(i);
                    }
                    1 if !c.is_empty() => c.insert(i, c[i]),
                    2 if i + 1 < c.len() => c.swap(i, i + 1),
                    _ => {
                        for (j, t) in token.chars().enumerate() {
                            c.insert(i.min(c.len()) + j, t);
                        }
                    }
                }
                text = c.into_iter().collect();
            }
            text
        })
        .boxed()
}

/// Labels-spec text: printed valid trees, near-valid edits of them, and arbitrary short text.
pub fn labels_text() -> BoxedStrategy<String> {
    let valid = labels_spec_ast().prop_map(|s| s.to_string()).boxed();
    prop_oneof![3 => valid.clone(), 3 => near_valid(valid), 1 => "[ a-z0-9_,.|;=<>+*^&-]{0,24}"]
        .boxed()
}

/// Einsum-spec text: printed valid trees, near-valid edits of them, and arbitrary short text.
pub fn einsum_text() -> BoxedStrategy<String> {
    let valid = einsum_spec_ast().prop_map(|s| s.to_string()).boxed();
    prop_oneof![3 => valid.clone(), 3 => near_valid(valid), 1 => "[ a-z0-9_,.|;=<>+*^&-]{0,24}"]
        .boxed()
}

/// Numpy-subscript text: printed valid trees, near-valid edits of them, and arbitrary text.
pub fn numpy_text() -> BoxedStrategy<String> {
    let valid = numpy_spec_ast().prop_map(|s| s.to_string()).boxed();
    prop_oneof![3 => valid.clone(), 3 => near_valid(valid), 1 => "[ a-zA-Z.,>-]{0,16}"].boxed()
}

/// Which front end to exercise.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Front {
    /// OCANNL labels specs.
    Labels,
    /// OCANNL einsum specs.
    Einsum,
    /// numpy subscripts.
    Numpy,
}

/// Parses `text` with one front end: no panic, an error's span inside the text, and an
/// accepted spec prints to text that parses to the same tree and prints the same again.
pub fn check_spec_text(front: Front, text: &str) -> Result<(), Failure> {
    let run = catch_unwind(AssertUnwindSafe(|| match front {
        Front::Labels => round_trip(text, parse_labels, |s| s.without_spans()),
        Front::Einsum => round_trip(text, parse_einsum, |s| s.without_spans()),
        Front::Numpy => round_trip(text, parse_numpy, |s| s.without_spans()),
    }));
    match run {
        Ok(r) => r,
        Err(p) => Err(Failure::new(
            FailureKind::Panic,
            format!("{front:?} {text:?}: {}", panic_message(&*p)),
        )),
    }
}

fn round_trip<T: std::fmt::Display + PartialEq + std::fmt::Debug>(
    text: &str,
    parse: impl Fn(&str) -> Result<T, crate::spec::SpecError>,
    erase: impl Fn(&T) -> T,
) -> Result<(), Failure> {
    let fail = |m: String| Err(Failure::new(FailureKind::RoundTrip, format!("{text:?}: {m}")));
    let tree = match parse(text) {
        Ok(t) => t,
        Err(e) => {
            let s = e.span();
            if s.start > s.end || s.end as usize > text.len() {
                return fail(format!("error span {s:?} outside the text"));
            }
            return Ok(());
        }
    };
    let printed = tree.to_string();
    let again = match parse(&printed) {
        Ok(t) => t,
        Err(e) => return fail(format!("printed as {printed:?}, which does not parse: {e}")),
    };
    if erase(&again) != erase(&tree) {
        return fail(format!("printed as {printed:?}, which parses to another tree"));
    }
    if again.to_string() != printed {
        return fail(format!("printing is not stable: {printed:?} then {:?}", again.to_string()));
    }
    Ok(())
}
