//! Einsum converted piece by piece: any cut of the labels gives the values of the whole
//! einsum, and no operand or result is converted whole.

use proptest::prelude::*;

use super::any_strided::{AnyStridedMut, AnyStridedRef};
use super::converting::einsum_converting_in_blocks;
use super::tests::{brute, build, case, expected_in, operand, retype, truths, OTHER_DTYPES};
use super::*;
use crate::spec::parse_numpy;
use crate::tensor::{DType, Tensor};

/// `einsum` of `tensors` into a fresh result of `dtype` and `shape`, in pieces of `block`.
fn in_blocks(
    spec: &str,
    tensors: &[Tensor],
    dtype: DType,
    shape: &[usize],
    block: usize,
) -> Vec<f64> {
    let inputs: Vec<AnyStridedRef<'_>> =
        tensors.iter().map(|t| AnyStridedRef::of_tensor(t).expect("a storage type")).collect();
    let n: usize = shape.iter().product();
    let mut out = Tensor::zeros(DType::F64, shape).expect("small").to_f64_vec();
    let mut typed: Vec<i64> = vec![0; n];
    let compute = dtype.compute_dtype();
    if compute == DType::I64 && dtype != DType::I64 {
        let mut view: AnyStridedMut<'_> =
            StridedMut::contiguous(&mut typed, shape).expect("fits").into();
        einsum_converting_in_blocks(spec, &inputs, &mut view, compute, block).expect("runs");
        // The result in int64, cast to `dtype` as numpy casts.
        let t = Tensor::from_vec(shape, typed).expect("fits");
        return t.astype(dtype).to_f64_vec();
    }
    let mut view: AnyStridedMut<'_> = StridedMut::contiguous(&mut out, shape).expect("fits").into();
    einsum_converting_in_blocks(spec, &inputs, &mut view, DType::F64, block).expect("runs");
    let t = Tensor::from_vec(shape, out).expect("fits");
    t.astype(dtype).to_f64_vec()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]
    /// Cut into pieces of 1 to 8 elements, an einsum of integer or bool operands gives the
    /// brute force's values (computed exactly, then cast as numpy casts).
    #[test]
    fn any_cut_gives_the_whole_einsums_values(c in case(), block in 1usize..9) {
        let (spec, shapes) = build(&c);
        let refs: Vec<&[usize]> = shapes.iter().map(Vec::as_slice).collect();
        let Ok(parsed) = parse_numpy(&spec) else { return Ok(()) };
        let Ok(an) = analyze(&parsed, &refs) else { return Ok(()) };
        let inputs: Vec<Vec<f64>> = shapes
            .iter()
            .enumerate()
            .map(|(k, s)| (0..s.iter().product::<usize>()).map(|i| ((i * 7 + k * 3) % 5) as f64 - 2.0).collect())
            .collect();
        let views: Vec<Tensor> =
            shapes.iter().zip(&inputs).enumerate().map(|(k, (s, v))| operand(s, v, c.views >> (2 * k))).collect();
        let dtype = OTHER_DTYPES[(c.views >> 20) as usize % OTHER_DTYPES.len()];
        let typed: Vec<Tensor> = views.iter().map(|t| retype(t, dtype)).collect();
        let exact = brute(&an, &inputs, &shapes);
        let want = expected_in(dtype, &exact, || brute(&an, &truths(&inputs), &shapes));
        let got = in_blocks(&spec, &typed, dtype, &an.output_shape(), block);
        prop_assert_eq!(got, want, "{} {:?} {:?} block {}", spec, shapes, dtype, block);
    }
}

/// A broadcast int8 view of one element and 2^40 + 5 elements: converted, the broadcast is
/// one element (the whole view would be 8 TB in int64).
#[test]
fn a_broadcast_operand_is_converted_as_one_element() {
    let one = Tensor::from_vec(&[1], vec![3i8]).expect("one element");
    let n = (1usize << 40) + 5;
    let wide = one.broadcast_to(&[n]).expect("a broadcast view");
    let r = einsum("i->", &[&wide]).expect("sums");
    assert_eq!(
        (r.dtype(), r.to_vec::<i8>()),
        (DType::I8, vec![(3u64.wrapping_mul(n as u64) % 256) as u8 as i8])
    );
}
