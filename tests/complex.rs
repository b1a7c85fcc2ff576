//! Complex numbers through the kernel: einsum on complex64 and complex128 tensors (direct
//! loops and the `gemm` crate's complex products, strided and transposed operands, a planned
//! path), promotion with the real types as numpy's, and compiled plans (products and numpy's
//! order for maxima), each against a naive evaluation.

#![cfg(feature = "kernel")]

use einrow::kernel::RunOptions;
use einrow::numpy::{einsum, einsum_optimized, Optimize, PathOptions};
use einrow::project::{plan_einsum, Concrete, Executable};
use einrow::tensor::{Complex, Complex128, Complex64, DType, Element, Tensor};

/// Deterministic values with both parts non-zero.
fn values(n: usize, seed: u64) -> Vec<Complex128> {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        (x % 2001) as f64 / 1000.0 - 1.0
    };
    (0..n).map(|_| Complex::new(next(), next())).collect()
}

fn naive_matmul(
    a: &[Complex128],
    b: &[Complex128],
    m: usize,
    k: usize,
    n: usize,
) -> Vec<Complex128> {
    let mut out = vec![Complex128::default(); m * n];
    for i in 0..m {
        for j in 0..n {
            let mut s = Complex128::default();
            for p in 0..k {
                s = s + a[i * k + p] * b[p * n + j];
            }
            out[i * n + j] = s;
        }
    }
    out
}

fn close(got: &[Complex128], want: &[Complex128], tol: f64) {
    assert_eq!(got.len(), want.len());
    for (g, w) in got.iter().zip(want) {
        let err = ((g.re - w.re).powi(2) + (g.im - w.im).powi(2)).sqrt();
        let scale = (w.re.powi(2) + w.im.powi(2)).sqrt().max(1.0);
        assert!(err <= tol * scale, "{g:?} vs {w:?}");
    }
}

#[test]
fn complex128_products_small_and_large() {
    // Small products run by direct loops, large ones through the gemm crate's complex kernel.
    for &(m, k, n) in &[(3, 4, 5), (96, 80, 72), (1, 300, 1), (130, 2, 140)] {
        let (a, b) = (values(m * k, 1), values(k * n, 2));
        let ta = Tensor::from_vec(&[m, k], a.clone()).unwrap();
        let tb = Tensor::from_vec(&[k, n], b.clone()).unwrap();
        for threads in [1, 4] {
            let opts = RunOptions { threads, ..RunOptions::default() };
            let got = einrow::numpy::einsum_with("ij,jk->ik", &[&ta, &tb], &opts).unwrap();
            assert_eq!(got.dtype(), DType::C128);
            close(&got.to_vec::<Complex128>(), &naive_matmul(&a, &b, m, k, n), 1e-12);
        }
        // Transposed operands are read through their strides.
        let at = Tensor::from_vec(&[k, m], transpose(&a, m, k)).unwrap();
        let got = einsum("ji,jk->ik", &[&at, &tb]).unwrap();
        close(&got.to_vec::<Complex128>(), &naive_matmul(&a, &b, m, k, n), 1e-12);
    }
}

fn transpose(a: &[Complex128], m: usize, k: usize) -> Vec<Complex128> {
    let mut t = vec![Complex128::default(); m * k];
    for i in 0..m {
        for p in 0..k {
            t[p * m + i] = a[i * k + p];
        }
    }
    t
}

#[test]
fn complex64_is_computed_in_complex64() {
    let (m, k, n) = (70, 90, 60);
    let (a, b) = (values(m * k, 3), values(k * n, 4));
    let a32: Vec<Complex64> = a.iter().map(|z| z.cast()).collect();
    let b32: Vec<Complex64> = b.iter().map(|z| z.cast()).collect();
    let ta = Tensor::from_vec(&[m, k], a32.clone()).unwrap();
    let tb = Tensor::from_vec(&[k, n], b32.clone()).unwrap();
    let got = einsum("ij,jk->ik", &[&ta, &tb]).unwrap();
    assert_eq!(got.dtype(), DType::C64);
    let wide: Vec<Complex128> = got.to_vec::<Complex64>().iter().map(|z| z.cast()).collect();
    let a_back: Vec<Complex128> = a32.iter().map(|z| z.cast()).collect();
    let b_back: Vec<Complex128> = b32.iter().map(|z| z.cast()).collect();
    close(&wide, &naive_matmul(&a_back, &b_back, m, k, n), 1e-5);
}

#[test]
fn real_and_complex_operands_promote_as_numpy() {
    let re = Tensor::from_f64s(DType::F32, &[3], &[1.0, 2.0, 3.0]).unwrap();
    let z = Tensor::from_vec(&[3], vec![Complex64::new(0.0, 1.0); 3]).unwrap();
    let got = einsum("i,i->i", &[&re, &z]).unwrap();
    assert_eq!(got.dtype(), DType::C64);
    assert_eq!(got.to_vec::<Complex64>()[2], Complex64::new(0.0, 3.0));
    let i32s = Tensor::from_f64s(DType::I32, &[3], &[1.0, 2.0, 3.0]).unwrap();
    let got = einsum("i,i->", &[&i32s, &z]).unwrap();
    assert_eq!(got.dtype(), DType::C128, "int32 needs float64 parts");
    assert_eq!(got.to_vec::<Complex128>(), vec![Complex128::new(0.0, 6.0)]);
}

#[test]
fn a_planned_chain_of_complex_operands() {
    let shapes = [[4usize, 5], [5, 6], [6, 3], [3, 4]];
    let tensors: Vec<Tensor> = shapes
        .iter()
        .enumerate()
        .map(|(s, d)| Tensor::from_vec(d, values(d[0] * d[1], 10 + s as u64)).unwrap())
        .collect();
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let want = einsum("ab,bc,cd,de->ae", &refs).unwrap().to_vec::<Complex128>();
    for o in [Optimize::Greedy, Optimize::Optimal, Optimize::Dp] {
        let opts = PathOptions::new(o);
        let got = einsum_optimized("ab,bc,cd,de->ae", &refs, &opts).unwrap();
        close(&got.to_vec::<Complex128>(), &want, 1e-12);
    }
    // The trace of the product, against explicit loops.
    let (a, b) = (tensors[0].to_vec::<Complex128>(), tensors[1].to_vec::<Complex128>());
    let ab = naive_matmul(&a, &b, 4, 5, 6);
    let c = tensors[2].to_vec::<Complex128>();
    let abc = naive_matmul(&ab, &c, 4, 6, 3);
    let d = tensors[3].to_vec::<Complex128>();
    let abcd = naive_matmul(&abc, &d, 4, 3, 4);
    let trace = (0..4).fold(Complex128::default(), |s, i| s + abcd[i * 4 + i]);
    let got = einsum("ab,bc,cd,da->", &refs).unwrap().to_vec::<Complex128>();
    close(&got, &[trace], 1e-12);
}

#[test]
fn compiled_plans_on_complex_buffers() {
    let (x, w) = (values(6, 20), values(6, 21));
    let plan = plan_einsum("ij;jk=>ik", &[&Concrete::output(&[2, 3]), &Concrete::output(&[3, 2])])
        .unwrap();
    let exe = Executable::compile(&plan).unwrap();
    let mut out = vec![Complex128::default(); 4];
    exe.run(&[&x, &w], &mut out).unwrap();
    close(&out, &naive_matmul(&x, &w, 2, 3, 2), 1e-12);
    // A maximum in numpy's order: real parts first, then imaginary ones.
    let mut plan = plan_einsum("i=>", &[&Concrete::output(&[4])]).unwrap();
    plan.accum = einrow::kernel::Accum::Max;
    let exe = Executable::compile(&plan).unwrap();
    let v = [
        Complex64::new(1.0, 5.0),
        Complex64::new(2.0, -3.0),
        Complex64::new(2.0, -1.0),
        Complex64::new(-4.0, 9.0),
    ];
    let mut out = [Complex64::default()];
    exe.run(&[&v], &mut out).unwrap();
    assert_eq!(out[0], Complex64::new(2.0, -1.0));
    let nan = [Complex64::new(1.0, 0.0), Complex64::new(0.0, f32::NAN), v[0], v[1]];
    exe.run(&[&nan], &mut out).unwrap();
    assert!(out[0].is_nan(), "NaN in either part propagates");
}
