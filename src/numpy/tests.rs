//! einsum against a brute-force evaluation on random specs, shapes (with size-1 broadcasting
//! and ellipses) and strided operand views (transposed, reversed).

use proptest::prelude::*;

use super::*;
use crate::kernel::RunOptions;
use crate::spec::parse_numpy;
use crate::tensor::{DType, SliceSpec, Tensor};

#[derive(Clone, Debug)]
pub(super) struct Case {
    terms: Vec<(String, bool)>,
    output: Option<String>,
    sizes: [usize; 5],
    ellipsis: Vec<usize>,
    bcast: u32,
    pub(super) views: u32,
    gemm_min_work: usize,
}

pub(super) fn case() -> impl Strategy<Value = Case> {
    let term = ("[a-e]{0,3}", any::<bool>());
    (
        prop::collection::vec(term, 1..=4),
        prop::option::of("[a-e]{0,3}"),
        [1..4usize, 1..4usize, 0..4usize, 1..4usize, 2..4usize],
        prop::collection::vec(1..3usize, 0..=2),
        any::<u32>(),
        any::<u32>(),
        prop_oneof![Just(0usize), Just(4096)],
    )
        .prop_map(|(terms, output, sizes, ellipsis, bcast, views, gemm_min_work)| Case {
            terms,
            output,
            sizes,
            ellipsis,
            bcast,
            views,
            gemm_min_work,
        })
}

/// The spec text and operand shapes of a case (an output may mention labels no input has;
/// such cases are skipped as errors).
pub(super) fn build(c: &Case) -> (String, Vec<Vec<usize>>) {
    let mut shapes = Vec::new();
    let mut bit = 0;
    let mut text = Vec::new();
    for (term, ell) in &c.terms {
        let mut shape = Vec::new();
        if *ell {
            shape.extend(c.ellipsis.iter().copied());
        }
        for ch in term.chars() {
            let size = c.sizes[(ch as u8 - b'a') as usize];
            bit += 1;
            shape.push(if c.bcast >> (bit % 32) & 1 == 1 { 1 } else { size });
        }
        text.push(if *ell { format!("...{term}") } else { term.clone() });
        shapes.push(shape);
    }
    let mut spec = text.join(",");
    if let Some(out) = &c.output {
        let ell = c.terms.iter().any(|t| t.1);
        spec.push_str(&format!("->{}{out}", if ell { "..." } else { "" }));
    }
    (spec, shapes)
}

/// A view with the given values in row-major order: stored transposed and/or reversed.
pub(super) fn operand(shape: &[usize], values: &[f64], how: u32) -> Tensor {
    let rank = shape.len();
    if how & 1 == 1 && rank >= 2 {
        let rev: Vec<usize> = shape.iter().rev().copied().collect();
        let mut data = vec![0.0; values.len()];
        let t = Tensor::from_vec(&rev, (0..values.len()).map(|x| x as f64).collect())
            .unwrap()
            .transpose();
        for (k, pos) in t.to_f64_vec().into_iter().enumerate() {
            data[pos as usize] = values[k];
        }
        return Tensor::from_vec(&rev, data).unwrap().transpose();
    }
    if how & 2 == 2 && rank >= 1 {
        let flipped = Tensor::from_vec(shape, values.to_vec())
            .unwrap()
            .slice(0, SliceSpec::full(-1))
            .unwrap()
            .to_f64_vec();
        return Tensor::from_vec(shape, flipped).unwrap().slice(0, SliceSpec::full(-1)).unwrap();
    }
    Tensor::from_vec(shape, values.to_vec()).unwrap()
}

/// Brute force: every assignment of every label, products accumulated into the output.
pub(super) fn brute(an: &Analysis, inputs: &[Vec<f64>], shapes: &[Vec<usize>]) -> Vec<f64> {
    let out_shape = an.output_shape();
    let mut out = vec![0.0; out_shape.iter().product()];
    let n = an.sizes.len();
    let mut idx = vec![0usize; n];
    if an.sizes.contains(&0) {
        return out;
    }
    loop {
        let mut v = 1.0;
        for ((labels, data), shape) in an.operands.iter().zip(inputs).zip(shapes) {
            let mut flat = 0;
            for (&l, &s) in labels.iter().zip(shape) {
                flat = flat * s + if s == 1 { 0 } else { idx[l] };
            }
            v *= data[flat];
        }
        let mut flat = 0;
        for (&l, &s) in an.output.iter().zip(&out_shape) {
            flat = flat * s + idx[l];
        }
        out[flat] += v;
        let mut k = n;
        loop {
            if k == 0 {
                return out;
            }
            k -= 1;
            idx[k] += 1;
            if idx[k] < an.sizes[k] {
                break;
            }
            idx[k] = 0;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]
    #[test]
    fn einsum_matches_brute_force(c in case()) {
        let (spec, shapes) = build(&c);
        let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let Ok(parsed) = parse_numpy(&spec) else { return Ok(()) };
        let Ok(an) = analyze(&parsed, &refs) else { return Ok(()) };
        let inputs: Vec<Vec<f64>> = shapes
            .iter()
            .enumerate()
            .map(|(k, s)| (0..s.iter().product::<usize>()).map(|i| ((i * 7 + k * 3) % 5) as f64 - 2.0).collect())
            .collect();
        let tensors: Vec<Tensor> =
            shapes.iter().zip(&inputs).enumerate().map(|(k, (s, v))| operand(s, v, c.views >> (2 * k))).collect();
        let trefs: Vec<&Tensor> = tensors.iter().collect();
        let opts = RunOptions { threads: 1 + (c.views as usize & 1), gemm: true, min_parallel_points: 1, gemm_min_work: c.gemm_min_work };
        let got = einsum_with(&spec, &trefs, &opts).map_err(|e| TestCaseError::fail(format!("{spec}: {e}")))?;
        prop_assert_eq!(got.shape().to_vec(), an.output_shape());
        let want = brute(&an, &inputs, &shapes);
        prop_assert_eq!(got.to_f64_vec(), want.clone(), "{} {:?}", spec, shapes);
        // The same views in another storage type: results are the exact values rounded once
        // to that type (the float types compute in f32, the integers in wrapping i64; these
        // sums are exact there), or for bool the OR of ANDs.
        let dtype = OTHER_DTYPES[(c.views >> 20) as usize % OTHER_DTYPES.len()];
        let typed: Vec<Tensor> = tensors.iter().map(|t| retype(t, dtype)).collect();
        let trefs: Vec<&Tensor> = typed.iter().collect();
        let got = einsum_with(&spec, &trefs, &opts).map_err(|e| TestCaseError::fail(format!("{spec}: {e}")))?;
        prop_assert_eq!(got.dtype(), dtype);
        let want = expected_in(dtype, &want, || brute(&an, &truths(&inputs), &shapes));
        prop_assert_eq!(got.to_f64_vec(), want, "{} {:?} {:?}", spec, shapes, dtype);
    }
}

/// The f64 view `t` with its buffer converted to `dtype` (same layout: same strides).
pub(super) fn retype(t: &Tensor, dtype: DType) -> Tensor {
    let crate::tensor::Buffer::F64(v) = t.buffer() else { panic!("an f64 view") };
    let flat = Tensor::from_f64s(dtype, &[v.len()], v).expect("a flat buffer");
    Tensor::from_parts(flat.buffer().clone(), t.layout().clone()).expect("the same layout")
}

/// The storage types other than f64 the tests run in.
pub(super) const OTHER_DTYPES: [DType; 9] = [
    DType::F32,
    DType::BF16,
    DType::F16,
    DType::I8,
    DType::U8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::Bool,
];

/// The inputs as bools, then as 0 and 1.
pub(super) fn truths(inputs: &[Vec<f64>]) -> Vec<Vec<f64>> {
    inputs.iter().map(|v| v.iter().map(|&x| f64::from(u8::from(x != 0.0))).collect()).collect()
}

/// What einsum gives in `dtype` when the exact (f64) result is `exact`: it rounded (or
/// wrapped) once into `dtype`; for bool, whether the brute force over the inputs as 0 and 1
/// (`over_truths`) is positive — OR of ANDs.
pub(super) fn expected_in(
    dtype: DType,
    exact: &[f64],
    over_truths: impl FnOnce() -> Vec<f64>,
) -> Vec<f64> {
    if dtype == DType::Bool {
        over_truths().into_iter().map(|x| f64::from(u8::from(x > 0.0))).collect()
    } else {
        rounded(exact, dtype)
    }
}

/// `values` stored in `dtype` and read back.
pub(super) fn rounded(values: &[f64], dtype: DType) -> Vec<f64> {
    Tensor::from_f64s(dtype, &[values.len()], values).expect("a flat buffer").to_f64_vec()
}

/// Products, sums, copies and transposes at sizes around the parallel threshold, every dtype,
/// operands transposed and reversed, one and three threads: equal to the brute force.
#[test]
fn parallel_paths_in_every_dtype() {
    let specs =
        ["ij,ij->ij", "ij,jk->ik", "ij->", "ij,kj->ik", "bij,bjk->bik", "ij,ji->ij", "ij->j"];
    for n in [7usize, 8, 9, 15, 16, 17] {
        for spec in specs {
            let parsed = parse_numpy(spec).unwrap();
            let shapes: Vec<Vec<usize>> = parsed
                .inputs
                .iter()
                .map(|row| if row.len() == 3 { vec![3, n, n] } else { vec![n, n] })
                .collect();
            let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
            let an = analyze(&parsed, &refs).unwrap();
            let inputs: Vec<Vec<f64>> = shapes
                .iter()
                .enumerate()
                .map(|(k, s)| {
                    (0..s.iter().product::<usize>())
                        .map(|i| ((i * 7 + k * 3) % 5) as f64 - 2.0)
                        .collect()
                })
                .collect();
            let want = brute(&an, &inputs, &shapes);
            for how in [0u32, 1, 2] {
                let views: Vec<Tensor> =
                    shapes.iter().zip(&inputs).map(|(s, v)| operand(s, v, how)).collect();
                for dtype in std::iter::once(DType::F64).chain(OTHER_DTYPES) {
                    let want = expected_in(dtype, &want, || brute(&an, &truths(&inputs), &shapes));
                    let typed: Vec<Tensor> = views.iter().map(|t| retype(t, dtype)).collect();
                    let trefs: Vec<&Tensor> = typed.iter().collect();
                    for threads in [1, 3] {
                        let opts = RunOptions {
                            threads,
                            gemm: true,
                            min_parallel_points: 64,
                            gemm_min_work: 64,
                        };
                        let got = einsum_with(spec, &trefs, &opts).unwrap();
                        assert_eq!(
                            got.to_f64_vec(),
                            want,
                            "{spec} n {n} views {how} {dtype:?} {threads}"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn dtypes_promote_and_int8_wraps() {
    let a = Tensor::from_f64s(crate::tensor::DType::I8, &[2], &[100.0, 100.0]).unwrap();
    let r = einsum("i,i", &[&a, &a]).unwrap();
    assert_eq!(r.dtype(), crate::tensor::DType::I8);
    assert_eq!(r.to_f64_vec(), vec![((20000i32 as i8) as f64)]);
    let b = Tensor::from_f64s(crate::tensor::DType::BF16, &[2], &[1.5, 2.0]).unwrap();
    let c = Tensor::from_f64s(crate::tensor::DType::F32, &[2], &[2.0, 4.0]).unwrap();
    let r = einsum("i,i->i", &[&b, &c]).unwrap();
    assert_eq!((r.dtype(), r.to_f64_vec()), (crate::tensor::DType::F32, vec![3.0, 8.0]));
}

#[test]
fn views_share_the_buffer() {
    let a = Tensor::from_vec(&[3, 3], (0..9).map(|x| x as f64).collect()).unwrap();
    let d = einsum("ii->i", &[&a]).unwrap();
    assert_eq!((d.strides(), d.to_f64_vec()), (&[4isize][..], vec![0.0, 4.0, 8.0]));
    let t = einsum("ij->ji", &[&a]).unwrap();
    assert_eq!(t.strides(), &[1, 3]);
}

/// A contraction whose operands are empty along a huge axis is the sum over nothing: numpy
/// gives 0 at once. The pre-sum step used to allocate the huge intermediate and abort.
#[test]
fn empty_operands_over_huge_axes_give_the_empty_sum() {
    let big = 1usize << 59;
    let a = Tensor::from_vec(&[0, big], Vec::<f64>::new()).expect("an empty tensor");
    let b = Tensor::from_vec(&[big, 0], Vec::<f64>::new()).expect("an empty tensor");
    let r = crate::einsum("ij,jk->", &[&a, &b]).expect("the empty sum");
    assert_eq!((r.shape().to_vec(), r.to_f64_vec()), (vec![], vec![0.0]));
    let r = crate::einsum("ij,jk->i", &[&a, &b]).expect("an empty result");
    assert_eq!(r.shape(), &[0]);
}

/// numpy's iteration space holds at most 64 dimensions (output axes plus summed labels).
#[test]
fn more_than_64_iteration_dimensions_are_a_rank_error() {
    use crate::code::Coded;
    let at_limit: Vec<&[usize]> = vec![&[1; 62], &[1; 2]];
    assert_eq!(crate::numpy::einsum_shape("...a,...b->...", &at_limit).map(|s| s.len()), Ok(61));
    let over: Vec<&[usize]> = vec![&[1; 64], &[1; 2]];
    let e = crate::numpy::einsum_shape("...a,...b->...", &over).expect_err("65 dimensions");
    assert_eq!(e.code(), crate::code::ErrorCode::Rank);
}
