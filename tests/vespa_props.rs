//! Property tests of the Vespa layer: printed literals and encoded JSON read back to the same
//! tensor for random tensors of every cell type, casts are idempotent, and no input panics.

#![cfg(feature = "kernel")]

use std::collections::BTreeMap;

use einrow::formats::vespa::{
    decode_json, encode_json, CellType, Dimension, EncodeOptions, Tensor, TensorKind, TensorType,
};
use einrow::Span;
use proptest::prelude::*;

const NAMES: [&str; 7] = ["a", "b", "x", "y", "z1", "_k", "B"];
const LABELS: [&str; 16] = [
    "a",
    "b",
    "key.1",
    "a b",
    "it's",
    "say \"hi\"",
    "",
    "-5",
    "007",
    "é",
    "日本",
    "x,y",
    "c}d",
    "tab\there",
    "$x",
    "@a",
];

#[derive(Clone, Debug)]
enum Kind {
    Mapped,
    Bound(u64),
    Unbound,
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![Just(Kind::Mapped), (1u64..4).prop_map(Kind::Bound), Just(Kind::Unbound)]
}

fn cell_type() -> impl Strategy<Value = CellType> {
    prop::sample::select(CellType::ALL.to_vec())
}

fn tensor_type() -> impl Strategy<Value = TensorType> {
    (
        cell_type(),
        prop::sample::subsequence(NAMES.to_vec(), 0..=3),
        prop::collection::vec(kind(), 3),
    )
        .prop_map(|(cell, names, kinds)| {
            let dims = names
                .iter()
                .zip(kinds)
                .map(|(n, k)| match k {
                    Kind::Mapped => Dimension::mapped(*n),
                    Kind::Bound(s) => Dimension::indexed(*n, Some(s)),
                    Kind::Unbound => Dimension::indexed(*n, None),
                })
                .collect();
            TensorType::new(cell, dims, Span::default()).expect("distinct names, valid sizes")
        })
}

fn value() -> impl Strategy<Value = f64> {
    prop_oneof![
        (-300i32..300).prop_map(f64::from),
        prop::num::f64::NORMAL | prop::num::f64::SUBNORMAL | prop::num::f64::ZERO,
        Just(f64::INFINITY),
        Just(f64::NEG_INFINITY),
        Just(f64::NAN),
        (-1e6f64..1e6),
    ]
}

/// A type and cells for it: per dimension a label (mapped) or an index (indexed).
fn tensor() -> impl Strategy<Value = Tensor> {
    tensor_type().prop_flat_map(|ty| {
        let address: Vec<BoxedStrategy<String>> = ty
            .dims()
            .iter()
            .map(|d| match (d.is_mapped(), d.size()) {
                (true, _) => prop::sample::select(LABELS.to_vec()).prop_map(str::to_string).boxed(),
                (false, Some(n)) => (0..n).prop_map(|i| i.to_string()).boxed(),
                (false, None) => (0u64..4).prop_map(|i| i.to_string()).boxed(),
            })
            .collect();
        let cells = prop::collection::vec((address, value()), 1..6);
        (Just(ty), cells).prop_map(|(ty, cells)| {
            let unique: BTreeMap<Vec<String>, f64> = cells.into_iter().collect();
            Tensor::from_cells(&ty, unique).expect("generated cells fit the type")
        })
    })
}

fn options() -> impl Strategy<Value = EncodeOptions> {
    (any::<bool>(), any::<bool>(), any::<bool>()).prop_map(
        |(short_form, direct_values, hex_dense)| EncodeOptions {
            short_form,
            direct_values,
            hex_dense,
        },
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn printed_literals_parse_back(t in tensor()) {
        let text = t.to_text();
        let back = Tensor::from_literal(&text, None);
        prop_assert!(back.is_ok(), "{text:?} does not parse: {:?}", back.err());
        let back = back.unwrap_or_else(|_| t.clone());
        prop_assert_eq!(&back, &t, "{}", text);
        prop_assert_eq!(back.to_text(), text);
        let general = t.to_text_general();
        prop_assert_eq!(Tensor::from_literal(&general, Some(t.tensor_type())).ok(), Some(t.clone()), "{}", general);
        prop_assert_eq!(t.cells().count(), t.len());
    }

    #[test]
    fn encoded_json_decodes_back(t in tensor(), options in options()) {
        // JSON has no infinities (Vespa writes null, read back as NaN); unbound dense types have
        // no short form Vespa reads back, nor has a mixed tensor with several mapped dimensions
        // written as bare blocks.
        prop_assume!(!t.tensor_type().has_unbound() || !options.short_form);
        let mapped = t.dims().iter().filter(|d| d.is_mapped()).count();
        prop_assume!(!(options.short_form && options.direct_values && t.kind() == TensorKind::Mixed && mapped > 1));
        let finite: Vec<(Vec<String>, f64)> =
            t.cells().map(|(a, v)| (a, if v.is_infinite() { 1.5 } else { v })).collect();
        let t = Tensor::from_cells(t.tensor_type(), finite).expect("same cells");
        let json = encode_json(&t, options).to_string();
        let back = decode_json(&json, Some(t.tensor_type()));
        prop_assert!(back.is_ok(), "{json} does not decode: {:?}", back.err());
        prop_assert_eq!(back.ok(), Some(t), "{}", json);
    }

    #[test]
    fn casts_narrow_once(t in tensor(), to in cell_type()) {
        let once = t.cast(to);
        prop_assert_eq!(once.cast(to), once.clone());
        prop_assert_eq!(Tensor::from_literal(&once.to_text(), None).ok(), Some(once));
    }

    #[test]
    fn literal_soup_never_panics(text in "[{}\\[\\]:,'\" \\tx-z0-9.eE+-]{0,30}", ty in prop::option::of(tensor_type())) {
        let _ = Tensor::from_literal(&text, ty.as_ref());
        let _ = Tensor::from_literal(&format!("tensor(x{{}},y[2]):{text}"), None);
        let _ = decode_json(&text, ty.as_ref());
    }

    #[test]
    fn arbitrary_text_never_panics(text in any::<String>(), ty in prop::option::of(tensor_type())) {
        let _ = TensorType::parse(&text);
        let _ = TensorType::parse(&format!("tensor({text})"));
        let _ = Tensor::from_literal(&text, ty.as_ref());
        let _ = decode_json(&text, ty.as_ref());
    }
}
