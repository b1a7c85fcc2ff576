//! The einsum benchmark cases shared by `benches/kernel.rs` (criterion) and
//! `examples/bench_einsum.rs` (driven by `benches/compare_numpy.py`).

use einrow::kernel::{Access, Accum, Combine, Init, Nest};
use einrow::tensor::{DType, Tensor};

/// One benchmark case.
pub struct BenchCase {
    /// Short name (also used by the numpy script).
    pub name: &'static str,
    /// numpy subscripts.
    pub spec: &'static str,
    /// Operand shapes.
    pub shapes: Vec<Vec<usize>>,
    /// Storage type of the operands.
    pub dtype: DType,
    /// Whether the result is copied to a contiguous tensor (for view results).
    pub copy: bool,
    /// Whether the case is a GEMM-shaped contraction.
    pub gemm: bool,
}

fn case(
    name: &'static str,
    spec: &'static str,
    shapes: &[&[usize]],
    dtype: DType,
    gemm: bool,
) -> BenchCase {
    BenchCase {
        name,
        spec,
        shapes: shapes.iter().map(|s| s.to_vec()).collect(),
        dtype,
        copy: false,
        gemm,
    }
}

/// Every case, in the order the report lists them.
pub fn cases() -> Vec<BenchCase> {
    use DType::{F32, F64};
    let n10: &[usize] = &[10, 10];
    vec![
        case("matmul512_f32", "ij,jk->ik", &[&[512, 512], &[512, 512]], F32, true),
        case("matmul512_f64", "ij,jk->ik", &[&[512, 512], &[512, 512]], F64, true),
        case("bmm64x128_f64", "bij,bjk->bik", &[&[64, 128, 128], &[64, 128, 128]], F64, true),
        case("tensordot100_f64", "ijk,jkl->il", &[&[100, 100, 100], &[100, 100, 100]], F64, true),
        case(
            "chain5_n10_f64",
            "pi,qj,ijkl,rk,sl->pqrs",
            &[n10, n10, &[10, 10, 10, 10], n10, n10],
            F64,
            false,
        ),
        case("sum3000x4000_f64", "ij->", &[&[3000, 4000]], F64, false),
        case("transpose4000_f64", "ij->ji", &[&[4000, 4000]], F64, false),
        BenchCase {
            copy: true,
            ..case("transpose4000_copy_f64", "ij->ji", &[&[4000, 4000]], F64, false)
        },
        case("hadamard1000_f64", "ij,ij->ij", &[&[1000, 1000], &[1000, 1000]], F64, false),
        case("trace1000_f64", "ii->", &[&[1000, 1000]], F64, false),
        case("matmul8_f64", "ij,jk->ik", &[&[8, 8], &[8, 8]], F64, false),
        case("outer_batch_small_f64", "bi,bj->bij", &[&[4, 16], &[4, 16]], F64, false),
    ]
}

/// Deterministic operands for a case: values `((i·7919 + k·104729) mod 1000)/500 − 1`.
pub fn operands(c: &BenchCase) -> Vec<Tensor> {
    c.shapes
        .iter()
        .enumerate()
        .map(|(k, s)| {
            let n: usize = s.iter().product();
            let v: Vec<f64> =
                (0..n).map(|i| ((i * 7919 + k * 104729) % 1000) as f64 / 500.0 - 1.0).collect();
            Tensor::from_f64s(c.dtype, s, &v).expect("benchmark operand")
        })
        .collect()
}

/// The GEMM microbenchmark: `C = A·B` for n×n f32 matrices as one kernel nest (dispatched to
/// GEMM), with its operands `A`, `B` and a zeroed `C`.
pub fn gemm_micro(n: usize) -> (Nest, Vec<f32>, Vec<f32>, Vec<f32>) {
    let a: Vec<f32> = (0..n * n).map(|i| (i % 17) as f32 / 17.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| (i % 13) as f32 / 13.0).collect();
    let s = n as isize;
    let nest = Nest {
        extents: vec![n, n, n],
        output: Access::new(0, vec![s, 0, 1]),
        inputs: vec![Access::new(0, vec![s, 1, 0]), Access::new(0, vec![0, s, 1])],
        accum: Accum::Add,
        combine: Combine::Mul,
        init: Init::Touched,
    };
    (nest, a, b, vec![0f32; n * n])
}
