//! Element types against numpy 2.4 (`tests/data/dtypes/numpy_dtypes.json`, written by
//! `gen_numpy_dtypes.py` beside it): every pair's promotion and einsum values, every triple's
//! promotion, ml_dtypes' bfloat16 promotions, and einsum cases that wrap narrow integers, round
//! float16 and reduce bools — each case also on gapped, reversed and transposed views of its
//! operands, along a planned path and in the sublist format.

#![cfg(feature = "kernel")]

use einrow::code::{Coded, ErrorCode};
use einrow::numpy::{einsum_optimized, einsum_sublist, PathOptions, Sublist};
use einrow::tensor::{result_type, Buffer, DType, Element, Layout, Tensor};
use half::{bf16, f16};
use serde_json::Value;

fn table() -> Value {
    serde_json::from_str(include_str!("data/dtypes/numpy_dtypes.json")).expect("valid JSON")
}

fn dtype(v: &Value) -> DType {
    let name = v.as_str().expect("a dtype name");
    DType::parse(name).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// A JSON value in `T`: bools and integers exactly, floats (or "inf", "-inf", "nan") rounded.
fn value<T: Element>(v: &Value) -> T {
    match v {
        Value::Bool(b) => T::from_i64(i64::from(*b)),
        Value::Number(n) if n.is_i64() => T::from_i64(n.as_i64().expect("i64")),
        Value::Number(n) => T::from_f64(n.as_f64().expect("f64")),
        Value::String(s) => T::from_f64(s.parse::<f64>().expect("inf or nan")),
        other => panic!("not a value: {other}"),
    }
}

/// The values as a row-major `T` tensor of `shape`, made a view by `layout`: the values
/// placed in a fresh buffer (with filler elsewhere) at the addresses that view reads.
fn typed<T: Element>(shape: &[usize], values: &[Value], view: View) -> Tensor {
    let data: Vec<T> = values.iter().map(value::<T>).collect();
    let n = data.len();
    let row_major = Layout::contiguous(shape).expect("shape").strides().to_vec();
    let filler = T::from_i64(77);
    let (layout, len) = match view {
        View::Contiguous => (Layout::contiguous(shape).expect("shape"), n),
        View::Gapped => {
            let strides: Vec<isize> = row_major.iter().map(|s| 2 * s).collect();
            (Layout::from_parts(shape, &strides, 1).expect("fits"), 2 * n + 1)
        }
        View::Reversed => {
            let strides: Vec<isize> = row_major.iter().map(|s| -s).collect();
            (Layout::from_parts(shape, &strides, n.saturating_sub(1)).expect("fits"), n)
        }
        View::Transposed => {
            // Column-major strides: the transpose of a row-major buffer of the reversed shape.
            let mut strides = vec![0isize; shape.len()];
            let mut pitch = 1isize;
            for (s, &d) in strides.iter_mut().zip(shape) {
                *s = pitch;
                pitch *= d.max(1) as isize;
            }
            (Layout::from_parts(shape, &strides, 0).expect("fits"), n)
        }
    };
    let mut buf = vec![filler; len.max(1)];
    let mut k = 0;
    layout.for_each_address(|a| {
        buf[a] = data[k];
        k += 1;
    });
    Tensor::from_parts(T::into_buffer(buf), layout).expect("view fits")
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum View {
    Contiguous,
    Gapped,
    Reversed,
    Transposed,
}

const VIEWS: [View; 4] = [View::Contiguous, View::Gapped, View::Reversed, View::Transposed];

fn tensor(dt: DType, shape: &[usize], values: &[Value], view: View) -> Tensor {
    match dt {
        DType::Bool => typed::<bool>(shape, values, view),
        DType::I8 => typed::<i8>(shape, values, view),
        DType::U8 => typed::<u8>(shape, values, view),
        DType::I16 => typed::<i16>(shape, values, view),
        DType::I32 => typed::<i32>(shape, values, view),
        DType::I64 => typed::<i64>(shape, values, view),
        DType::F16 => typed::<f16>(shape, values, view),
        DType::BF16 => typed::<bf16>(shape, values, view),
        DType::F32 => typed::<f32>(shape, values, view),
        DType::F64 => typed::<f64>(shape, values, view),
        other => panic!("no test constructor for {other:?}"),
    }
}

fn shape(v: &Value) -> Vec<usize> {
    v.as_array().expect("shape").iter().map(|d| d.as_u64().expect("size") as usize).collect()
}

/// Whether `got` holds exactly `want`'s dtype and values (integers compared as i64, bools as
/// bools, floats as f64 with NaN equal to NaN).
fn check(got: &Tensor, want: &Value, what: &str) {
    let dt = dtype(&want["dtype"]);
    assert_eq!(got.dtype(), dt, "{what}: dtype");
    assert_eq!(got.shape(), shape(&want["shape"]).as_slice(), "{what}: shape");
    let values = want["values"].as_array().expect("values");
    if dt == DType::Bool {
        let w: Vec<bool> = values.iter().map(value::<bool>).collect();
        assert_eq!(got.to_vec::<bool>(), w, "{what}");
    } else if dt.is_integer() {
        let w: Vec<i64> = values.iter().map(value::<i64>).collect();
        assert_eq!(got.to_vec::<i64>(), w, "{what}");
    } else {
        let w: Vec<f64> = values.iter().map(value::<f64>).collect();
        let g = got.to_f64_vec();
        let same = g.len() == w.len()
            && g.iter().zip(&w).all(|(a, b)| a == b || (a.is_nan() && b.is_nan()));
        assert!(same, "{what}: got {g:?}, want {w:?}");
    }
}

#[test]
fn every_pair_promotes_and_computes_as_numpy() {
    let t = table();
    let [x, y] = [0, 1].map(|k| t["pair_values"][k].as_array().expect("values").clone());
    let pairs = t["pairs"].as_array().expect("pairs");
    assert_eq!(pairs.len(), 81, "every ordered pair of the nine numpy types");
    for p in pairs {
        let (a, b, want) = (dtype(&p["a"]), dtype(&p["b"]), dtype(&p["result"]));
        let what = format!("{} × {}", a.numpy_name(), b.numpy_name());
        assert_eq!(a.result_type(b), want, "{what}");
        assert_eq!(result_type([a, b]), Some(want), "{what}");
        for view in [View::Contiguous, View::Gapped] {
            let (ta, tb) = (tensor(a, &[3], &x, view), tensor(b, &[3], &y, view));
            let dot = einrow::einsum("i,i->", &[&ta, &tb]).expect("dot");
            let dot_want =
                serde_json::json!({"dtype": want.numpy_name(), "shape": [], "values": p["dot"]});
            check(&dot, &dot_want, &format!("{what} dot, {view:?}"));
            let prod = einrow::einsum("i,i->i", &[&ta, &tb]).expect("product");
            let prod_want = serde_json::json!({"dtype": want.numpy_name(), "shape": [3], "values": p["product"]});
            check(&prod, &prod_want, &format!("{what} product, {view:?}"));
        }
    }
}

#[test]
fn every_triple_promotes_as_numpy() {
    let t = table();
    let triples = t["triples"].as_array().expect("triples");
    assert_eq!(triples.len(), 729);
    for tr in triples {
        let types: Vec<DType> = tr["types"].as_array().expect("types").iter().map(dtype).collect();
        assert_eq!(result_type(types.iter().copied()), Some(dtype(&tr["result"])), "{types:?}");
    }
}

/// ml_dtypes promotes bfloat16 with bool, int8, uint8, float32 and float64 (and itself) and
/// refuses the rest; einrow follows it where it promotes and otherwise takes the smallest
/// float holding both, as numpy does for float16.
#[test]
fn bfloat16_promotes_as_ml_dtypes_where_it_can() {
    let t = table();
    let rows = t["bfloat16"]["rows"].as_array().expect("the table was written with ml_dtypes");
    let mut refused = Vec::new();
    for r in rows {
        let other = dtype(&r["other"]);
        match &r["result"] {
            Value::Null => refused.push(other),
            want => assert_eq!(DType::BF16.result_type(other), dtype(want), "bfloat16 × {other:?}"),
        }
    }
    assert_eq!(refused, [DType::I16, DType::I32, DType::I64, DType::F16]);
    for (other, want) in [
        (DType::I16, DType::F32),
        (DType::I32, DType::F64),
        (DType::I64, DType::F64),
        (DType::F16, DType::F32),
    ] {
        assert_eq!(DType::BF16.result_type(other), want, "bfloat16 × {other:?}");
        assert_eq!(other.result_type(DType::BF16), want, "{other:?} × bfloat16");
    }
}

#[test]
fn einsum_cases_match_numpy_on_every_view() {
    let t = table();
    let cases = t["einsum"].as_array().expect("cases");
    assert!(cases.len() >= 20);
    let mut seen = std::collections::BTreeSet::new();
    for c in cases {
        let name = c["name"].as_str().expect("name");
        let spec = c["spec"].as_str().expect("spec");
        for view in VIEWS {
            let ops: Vec<Tensor> = c["operands"]
                .as_array()
                .expect("operands")
                .iter()
                .map(|o| {
                    let values = o["values"].as_array().expect("values");
                    tensor(dtype(&o["dtype"]), &shape(&o["shape"]), values, view)
                })
                .collect();
            let refs: Vec<&Tensor> = ops.iter().collect();
            for o in &ops {
                seen.insert((o.dtype(), view == View::Contiguous || o.layout().is_c_contiguous()));
            }
            let got = einrow::einsum(spec, &refs).unwrap_or_else(|e| panic!("{name}: {e}"));
            check(&got, &c["result"], &format!("{name} ({spec}), {view:?}"));
            let planned = einsum_optimized(spec, &refs, &PathOptions::default())
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            check(&planned, &c["result"], &format!("{name} ({spec}) along a path, {view:?}"));
            let listed =
                einsum_sublist(&refs, &sublist(spec)).unwrap_or_else(|e| panic!("{name}: {e}"));
            check(&listed, &c["result"], &format!("{name} ({spec}) as sublists, {view:?}"));
        }
    }
    // Every new type was read through a non-contiguous view somewhere.
    for d in [DType::Bool, DType::U8, DType::I16, DType::I32, DType::I64, DType::F16] {
        assert!(seen.contains(&(d, false)), "{d:?} never strided");
    }
}

/// The sublist form of explicit subscripts (`ij,jk->ik` is `[8, 9], [9, 10], [8, 10]`).
fn sublist(spec: &str) -> Sublist {
    let labels = |term: &str| term.bytes().map(|b| u32::from(b - b'a')).collect::<Vec<_>>();
    let (ins, out) = spec.split_once("->").expect("explicit output");
    ins.split(',').fold(Sublist::new(), |s, t| s.input(labels(t))).output(labels(out))
}

#[test]
fn views_keep_their_type_and_buffer() {
    let t = typed::<i32>(&[2, 3], &(0..6).map(Value::from).collect::<Vec<_>>(), View::Gapped);
    let v = einrow::einsum("ij->ji", &[&t]).expect("transpose");
    assert_eq!(v.dtype(), DType::I32);
    let (Buffer::I32(a), Buffer::I32(b)) = (t.buffer(), v.buffer()) else {
        panic!("int32 buffers")
    };
    assert!(std::sync::Arc::ptr_eq(a, b), "a transpose is a view of the same buffer");
    assert_eq!(v.to_vec::<i32>(), vec![0, 3, 1, 4, 2, 5]);
}

#[test]
fn empty_operands_give_zeros_of_the_result_type() {
    let a = Tensor::from_vec(&[2, 0], Vec::<u8>::new()).expect("empty");
    let b = Tensor::from_vec(&[0, 3], Vec::<i8>::new()).expect("empty");
    let r = einrow::einsum("ij,jk->ik", &[&a, &b]).expect("empty sum");
    assert_eq!((r.dtype(), r.to_vec::<i64>()), (DType::I16, vec![0; 6]));
    let t = Tensor::from_vec(&[0], Vec::<bool>::new()).expect("empty");
    let r = einrow::einsum("i->", &[&t]).expect("empty sum");
    assert_eq!((r.dtype(), r.to_vec::<bool>()), (DType::Bool, vec![false]));
}

#[test]
fn casts_between_every_pair_of_types_are_numpy_casts() {
    let values = [-129i64, -1, 0, 1, 127, 200, 255, 40_000, 1 << 31, (1 << 53) + 1];
    let src = Tensor::from_vec(&[values.len()], values.to_vec()).expect("int64");
    let wrapped = |bits: u32, signed: bool| -> Vec<i64> {
        values
            .iter()
            .map(|&v| {
                let low = (v as u64) & ((1u64 << bits) - 1);
                if signed && low >> (bits - 1) == 1 {
                    low as i64 - (1i64 << bits)
                } else {
                    low as i64
                }
            })
            .collect()
    };
    for (d, want) in [
        (DType::I8, wrapped(8, true)),
        (DType::U8, wrapped(8, false)),
        (DType::I16, wrapped(16, true)),
        (DType::I32, wrapped(32, true)),
        (DType::I64, values.to_vec()),
    ] {
        let c = src.astype(d);
        assert_eq!((c.dtype(), c.to_vec::<i64>()), (d, want), "int64 → {d:?}");
    }
    let b = src.astype(DType::Bool).to_vec::<bool>();
    assert_eq!(b, values.map(|v| v != 0).to_vec());
    let floats = Tensor::from_vec(&[3], vec![-2.7f64, 300.5, f64::NAN]).expect("f64");
    assert_eq!(floats.astype(DType::U8).to_vec::<u8>(), vec![254, 44, 0]);
    assert_eq!(floats.astype(DType::Bool).to_vec::<bool>(), vec![true, true, true]);
}

#[test]
fn bad_element_types_are_coded_errors() {
    for name in ["uint16", "complex256", "", "Int8", "float128"] {
        let err = DType::parse(name).expect_err(name);
        assert_eq!(err.code(), ErrorCode::Unsupported, "{name}: {err}");
        assert!(err.to_string().contains("int8"), "the message lists the types: {err}");
    }
    // Vespa has four cell types: the others are coded errors, not silent conversions.
    let t = Tensor::from_vec(&[2], vec![1i32, 2]).expect("int32");
    let err = einrow::formats::convert::to_vespa(&t, &["x".to_string()]).expect_err("int32");
    assert_eq!(err.code(), ErrorCode::Unsupported, "{err}");
    let z = Tensor::from_vec(&[2], vec![einrow::tensor::Complex64::new(1.0, 2.0); 2]).unwrap();
    let err = einrow::formats::convert::to_vespa(&z, &["x".to_string()]).expect_err("complex");
    assert_eq!(err.code(), ErrorCode::Unsupported, "{err}");
    // Vespa's own promotion stays Vespa's.
    assert_eq!(DType::I8.promote(DType::I8), DType::I8);
    assert_eq!(DType::I8.promote(DType::BF16), DType::BF16);
}

/// `einsum_into` runs in the compute types: int64 wraps and bool is OR of ANDs on strided,
/// reversed and broadcast operands, into a strided output.
#[test]
fn einsum_into_runs_in_int64_and_bool() {
    use einrow::kernel::RunOptions;
    use einrow::numpy::{einsum_into, StridedMut, StridedRef};
    let opts = RunOptions::default();
    let a = [i64::MAX, 3, 1 << 62, -1];
    // Reversed: reads [[-1, 2^62], [3, i64::MAX]].
    let m = StridedRef::new(&a, Layout::from_parts(&[2, 2], &[-2, -1], 3).unwrap()).unwrap();
    let two = [2i64];
    let v = StridedRef::new(&two, Layout::from_parts(&[2], &[0], 0).unwrap()).unwrap();
    let mut buf = [7i64; 4];
    let mut out = StridedMut::new(&mut buf, Layout::from_parts(&[2], &[2], 1).unwrap()).unwrap();
    einsum_into("ij,j->i", &[m, v], &mut out, None, &opts).expect("int64");
    let row = |x: i64, y: i64| x.wrapping_mul(2).wrapping_add(y.wrapping_mul(2));
    assert_eq!(buf, [7, row(-1, 1 << 62), 7, row(3, i64::MAX)]);

    let p = [true, false, false, true, true, false];
    let q = [false, true, true, true, false, false];
    // p as 2×3 through column-major strides: [[T, F, T], [F, T, F]]; q row-major 3×2.
    let pv = StridedRef::new(&p, Layout::from_parts(&[2, 3], &[1, 2], 0).unwrap()).unwrap();
    let qv = StridedRef::contiguous(&q, &[3, 2]).unwrap();
    let mut r = [true; 4];
    let mut out = StridedMut::contiguous(&mut r, &[2, 2]).unwrap();
    einsum_into("ij,jk->ik", &[pv, qv], &mut out, None, &opts).expect("bool");
    // Row 0 meets rows 0 and 2 of q ([F, T], [F, F]); row 1 meets row 1 ([T, T]).
    assert_eq!(r, [false, true, true, true]);
}
