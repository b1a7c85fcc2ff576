//! Property tests: the JSON normal form is a fixed point, reading what was written gives the
//! same value back, and no input (JSON or dimension expression) makes the layer panic.

use proptest::prelude::*;
use serde_json::{json, Value};

use super::*;

fn dim() -> impl Strategy<Value = Dim> {
    let lower = prop_oneof![
        (-100i64..100, any::<bool>()).prop_map(|(v, imp)| (v, imp)),
        any::<bool>().prop_map(|imp| (-INF_INDEX, imp)),
    ];
    let upper = prop_oneof![
        (0i64..6, any::<bool>()).prop_map(|(n, imp)| (Some(n), imp)),
        any::<bool>().prop_map(|imp| (None, imp)),
    ];
    (lower, upper).prop_map(|((lo, il), (size, iu))| {
        let interval = match size {
            Some(n) if lo != -INF_INDEX => Interval::sized(lo, n),
            Some(n) => Interval::half_open(lo, n),
            None => Interval::closed(lo, INF_INDEX),
        }
        .unwrap_or(Interval::INFINITE);
        Dim {
            bounds: OptInterval { interval, implicit_lower: il, implicit_upper: iu },
            label: String::new(),
        }
    })
}

fn domain() -> impl Strategy<Value = IndexDomain> {
    (proptest::collection::vec(dim(), 0..4), any::<bool>()).prop_map(|(mut dims, labeled)| {
        if labeled {
            for (i, d) in dims.iter_mut().enumerate() {
                d.label = ["x", "", "y", "z"][i].to_string();
            }
        }
        IndexDomain::new(dims).unwrap_or_default()
    })
}

/// A random output map valid for `d` (index arrays only over explicit finite dimensions).
fn output_map(d: &IndexDomain, seed: (u8, i64, i64, u64, bool)) -> OutputMap {
    let (kind, offset, stride, bits, bounded) = seed;
    let stride = if stride == 0 { 1 } else { stride };
    let rank = d.rank();
    match kind % 3 {
        0 => OutputMap::constant(offset),
        1 if rank > 0 => OutputMap::single(offset, stride, (bits as usize) % rank),
        2 => {
            let shape: Vec<usize> = d
                .dims()
                .iter()
                .enumerate()
                .map(|(i, x)| {
                    let usable = !x.is_implicit() && x.interval().is_bounded();
                    if usable && bits >> i & 1 == 1 {
                        x.interval().size() as usize
                    } else {
                        1
                    }
                })
                .collect();
            let Ok(array) =
                IndexArray::from_fn(shape, |p| Ok(p.iter().sum::<usize>() as i64 * 3 - offset))
            else {
                return OutputMap::constant(offset);
            };
            let first = array.data().first().copied().unwrap_or(0);
            let bounds = if bounded {
                Interval::closed(first + 1, first + 50).unwrap_or(Interval::INFINITE)
            } else {
                Interval::INFINITE
            };
            OutputMap::IndexArray { offset, stride, array, bounds }
        }
        _ => OutputMap::constant(offset),
    }
}

fn transform() -> impl Strategy<Value = IndexTransform> {
    let seeds = proptest::collection::vec(
        (any::<u8>(), -50i64..50, -3i64..4, any::<u64>(), any::<bool>()),
        0..4,
    );
    (domain(), seeds, any::<bool>()).prop_map(|(d, seeds, identity)| {
        if identity {
            return IndexTransform::identity(d);
        }
        let maps = seeds.into_iter().map(|s| output_map(&d, s)).collect();
        IndexTransform::new(d.clone(), maps).unwrap_or_else(|_| IndexTransform::identity(d))
    })
}

/// Arbitrary JSON built from the member names and value shapes the readers look at.
fn json_value() -> impl Strategy<Value = Value> {
    let keys = prop_oneof![
        Just("rank"),
        Just("inclusive_min"),
        Just("exclusive_max"),
        Just("shape"),
        Just("labels"),
        Just("input_rank"),
        Just("input_inclusive_min"),
        Just("input_shape"),
        Just("input_exclusive_max"),
        Just("input_inclusive_max"),
        Just("input_labels"),
        Just("output"),
        Just("offset"),
        Just("stride"),
        Just("input_dimension"),
        Just("index_array"),
        Just("index_array_bounds"),
    ];
    let leaf = prop_oneof![
        Just(json!(null)),
        any::<bool>().prop_map(Value::from),
        (-5i64..10).prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        Just(json!("-inf")),
        Just(json!("+inf")),
        Just(json!("x")),
        Just(json!(1.5)),
        Just(json!(4611686018427387904_i64)),
    ];
    leaf.prop_recursive(4, 48, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::from),
            proptest::collection::vec((keys.clone(), inner), 0..5).prop_map(|kv| {
                Value::Object(kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }),
        ]
    })
}

fn selector() -> impl Strategy<Value = Value> {
    prop_oneof![
        (-4i64..4).prop_map(Value::from),
        prop_oneof![Just("x"), Just("y"), Just("z"), Just("w")].prop_map(Value::from),
        Just(json!({"range": [null, null, -1]})),
        Just(json!({"range": [1, null, null]})),
    ]
}

fn op() -> impl Strategy<Value = Value> {
    let dims = proptest::collection::vec(selector(), 0..3);
    let small = || {
        prop_oneof![
            (-6i64..6).prop_map(Value::from),
            Just(json!(null)),
            Just(json!([1, -1])),
            edge().prop_map(Value::from),
        ]
    };
    let arrays = prop_oneof![
        Just(json!([[0, 1]])),
        Just(json!([[1], [0, 2]])),
        Just(json!([3, [[0], [1]]]))
    ];
    let name_and_member = prop_oneof![
        small().prop_map(|v| json!({"op": "translate_to", "origins": v})),
        small().prop_map(|v| json!({"op": "translate_by", "offsets": v})),
        small().prop_map(|v| json!({"op": "translate_backward_by", "offsets": v})),
        small().prop_map(|v| json!({"op": "stride", "strides": v})),
        small().prop_map(|v| json!({"op": "index_slice", "indices": v})),
        small().prop_map(|v| json!({"op": "transpose", "target": v})),
        (-3i64..3).prop_map(|v| json!({"op": "move_to", "target": v})),
        Just(json!({"op": "label", "labels": ["x", "q"]})),
        Just(json!({"op": "diagonal"})),
        Just(json!({"op": "newaxis"})),
        Just(json!({"op": "interval_slice", "intervals": {"start": 1, "stop": 3, "step": 2}})),
        Just(json!({"op": "interval_slice", "intervals": {"step": -1}})),
        Just(json!({"op": "mark_bounds_implicit", "lower": true, "upper": false})),
        Just(json!({"op": "mark_bounds_implicit", "lower": false})),
        arrays.clone().prop_map(|a| json!({"op": "oindex", "arrays": a})),
        arrays.prop_map(|a| json!({"op": "vindex", "arrays": a})),
    ];
    let general = (name_and_member, dims).prop_map(|(mut o, d)| {
        o["dims"] = Value::from(d);
        o
    });
    prop_oneof![general, array_op()]
}

/// `oindex`/`vindex` with as many selected dimensions as terms.
fn array_op() -> impl Strategy<Value = Value> {
    let term = prop_oneof![
        Just(json!([0, 1])),
        Just(json!([[1, 0]])),
        Just(json!([2])),
        Just(json!(0)),
        Just(json!([true, false])),
        Just(json!([])),
    ];
    let name = prop_oneof![Just("oindex"), Just("vindex")];
    (name, proptest::collection::vec((term, -3i64..3), 1..3)).prop_map(|(name, terms)| {
        let (arrays, dims): (Vec<Value>, Vec<Value>) =
            terms.into_iter().map(|(a, d)| (a, Value::from(d))).unzip();
        json!({"op": name, "dims": dims, "arrays": arrays})
    })
}

fn normalize(v: &Value) -> Option<Value> {
    IndexTransform::from_json(v).ok().map(|t| t.to_json())
}

proptest! {
    #[test]
    fn domain_round_trip(d in domain()) {
        let j = d.to_json();
        let back = IndexDomain::from_json(&j).unwrap();
        prop_assert_eq!(&back, &d);
        prop_assert_eq!(back.to_json(), j);
    }

    #[test]
    fn transform_round_trip(t in transform()) {
        let j = t.to_json();
        let back = IndexTransform::from_json(&j).unwrap();
        prop_assert_eq!(&back, &t, "{}", j);
        prop_assert_eq!(back.to_json(), j);
    }

    #[test]
    fn arbitrary_json_never_panics(v in json_value()) {
        if let Ok(d) = IndexDomain::from_json(&v) {
            let j = d.to_json();
            prop_assert_eq!(IndexDomain::from_json(&j).map(|x| x.to_json()).ok(), Some(j));
        }
        if let Some(j) = normalize(&v) {
            prop_assert_eq!(normalize(&j), Some(j));
        }
    }

    #[test]
    fn error_spans_point_at_the_offending_value(v in json_value(), pretty: bool) {
        let text = if pretty { serde_json::to_string_pretty(&v).unwrap() } else { v.to_string() };
        for e in [IndexDomain::from_json(&v).err(), IndexTransform::from_json(&v).err()].into_iter().flatten() {
            if let Some(expected) = v.pointer(e.path().as_str()) {
                let span = e.span_in(&text);
                prop_assert!(span.is_some(), "{} in {}", e.path(), text);
                let located: Value = serde_json::from_str(&text[span.unwrap().range()]).unwrap();
                prop_assert_eq!(&located, expected);
            }
        }
    }

    #[test]
    fn dimension_expressions_never_panic(t in transform(), ops in proptest::collection::vec(op(), 1..4)) {
        let mut t = t;
        for o in &ops {
            let Ok(e) = dim_expr_from_json(o, &JsonPath::root()) else { continue };
            let Ok(next) = t.apply(&e) else { continue };
            let j = next.to_json();
            prop_assert_eq!(normalize(&j), Some(j.clone()), "{}", o);
            t = next;
        }
    }

    #[test]
    fn alignment_never_panics(a in domain(), b in domain(), p: bool, tr: bool, br: bool) {
        let opts = AlignOptions { permute: p, translate: tr, broadcast: br };
        if let Ok(m) = align_dimensions_to(&a, &b, opts) {
            let t = align_domain_to(&a, &b, opts).unwrap();
            prop_assert_eq!(t.output_rank(), m.len());
            prop_assert_eq!(t.domain(), &b);
        }
    }
}

/// An integer drawn mostly from the edges of the index range and of `i64`.
fn edge() -> impl Strategy<Value = i64> {
    prop_oneof![
        -3i64..4,
        prop_oneof![
            Just(MAX_FINITE_INDEX),
            Just(INF_INDEX),
            Just(INF_INDEX + 1),
            Just(i64::MAX),
            Just(i64::MAX - 1),
            Just(i64::MIN),
        ]
        .prop_flat_map(|v| prop_oneof![Just(v), Just(v.saturating_neg())]),
    ]
}

/// A single-input or constant map of `rank` input dimensions with edge offset and stride.
fn edge_map(rank: usize) -> impl Strategy<Value = OutputMap> {
    (edge(), edge(), 0..rank.max(1), any::<bool>()).prop_map(move |(o, s, d, constant)| {
        if constant || rank == 0 {
            OutputMap::constant(o)
        } else {
            OutputMap::single(o, s, d)
        }
    })
}

/// `map` evaluated at `x` without overflow.
fn eval(map: &OutputMap, x: &[i64]) -> i128 {
    match *map {
        OutputMap::SingleInputDimension { offset, stride, input_dimension } => {
            i128::from(offset) + i128::from(stride) * i128::from(x[input_dimension])
        }
        _ => i128::from(map.offset()),
    }
}

proptest! {
    /// Composition never wraps: evaluated exactly, `compose(b_to_c, a_to_b)` at a point of its
    /// domain equals `b_to_c` at `a_to_b` of that point.
    #[test]
    fn composition_at_the_edges_never_wraps(
        origin in proptest::collection::vec(edge(), 1..3),
        inner in proptest::collection::vec(edge_map(2), 1..3),
        outer in proptest::collection::vec(edge_map(3), 0..3),
    ) {
        let dims = origin.iter().map(|&o| Dim::explicit(Interval::sized(o, 2).unwrap_or(Interval::closed(0, 1).unwrap())));
        let a = IndexDomain::new(dims.collect()).unwrap();
        let inner: Vec<OutputMap> = inner.into_iter().map(|m| match m {
            OutputMap::SingleInputDimension { input_dimension, .. } if input_dimension >= a.rank() => OutputMap::constant(m.offset()),
            m => m,
        }).collect();
        let b = IndexDomain::unbounded(inner.len()).unwrap();
        let outer: Vec<OutputMap> = outer.into_iter().map(|m| match m {
            OutputMap::SingleInputDimension { input_dimension, .. } if input_dimension >= b.rank() => OutputMap::constant(m.offset()),
            m => m,
        }).collect();
        let (Ok(a_to_b), Ok(b_to_c)) = (IndexTransform::new(a, inner), IndexTransform::new(b, outer)) else {
            return Ok(());
        };
        let Ok(a_to_c) = compose(&b_to_c, &a_to_b) else { return Ok(()) };
        let x = a_to_c.domain().origin();
        let y: Vec<i128> = a_to_b.output().iter().map(|m| eval(m, &x)).collect();
        for (c, (direct, outer)) in a_to_c.output().iter().zip(b_to_c.output()).enumerate() {
            let through = match *outer {
                OutputMap::SingleInputDimension { offset, stride, input_dimension } => {
                    i128::from(offset) + i128::from(stride) * y[input_dimension]
                }
                _ => i128::from(outer.offset()),
            };
            prop_assert_eq!(eval(direct, &x), through, "output {}", c);
        }
    }

    /// Translating by `k` and back gives the transform back (or an overflow error), whatever
    /// `k` and the offsets.
    #[test]
    fn translation_at_the_edges_round_trips(
        origin in edge(), k in edge(), map in edge_map(1), infinite: bool,
    ) {
        let interval = if infinite { Interval::INFINITE } else { Interval::sized(origin, 3).unwrap_or(Interval::INFINITE) };
        let Ok(t) = IndexTransform::new(IndexDomain::new(vec![Dim::explicit(interval)]).unwrap(), vec![map]) else {
            return Ok(());
        };
        let by = |op: DimOp| DimExpr::new(vec![DimSelector::Index(0)], op);
        let Ok(moved) = t.apply(&by(DimOp::TranslateBy(PerDim::All(Some(k))))) else { return Ok(()) };
        // As in TensorStore, `offset - shift·stride` is computed as a checked product and a
        // checked difference, so the way back can overflow in the product alone: then it is
        // an overflow error, never a different transform.
        match moved.apply(&by(DimOp::TranslateBackwardBy(PerDim::All(Some(k))))) {
            Ok(back) => prop_assert_eq!(back, t),
            Err(e) => prop_assert!(e.message().starts_with("Integer overflow"), "{}", e),
        }
    }
}
