//! `einsum_vjp` against central finite differences of `Σ c · einsum(x)` over the einsum cases
//! of the conformance suites (numpy's, and the upstream ones from numpy, opt_einsum, torch and
//! jax): every operand's gradient, with numpy's broadcasting, diagonals, ellipses and implicit
//! outputs. einsum is linear in each element of each operand, so the differences are exact up
//! to rounding.

#![cfg(feature = "kernel")]

use std::path::Path;

use einrow::code::{Coded, ErrorCode};
use einrow::project::einsum_vjp;
use einrow::tensor::Tensor;
use serde_json::Value;

/// The einsum cases of a suite file that succeed: (spec, shapes).
fn cases(path: &Path) -> Vec<(String, Vec<Vec<usize>>)> {
    let text = std::fs::read_to_string(path).expect("reads");
    let doc: Value = serde_json::from_str(&text).expect("parses");
    let list = doc.get("cases").and_then(Value::as_array).cloned().unwrap_or_default();
    list.iter()
        .filter(|c| c.get("kind").and_then(Value::as_str) == Some("einsum"))
        .filter(|c| c.get("expect").and_then(|e| e.get("error")).is_none())
        .filter_map(|c| {
            let spec = c.get("spec")?.as_str()?.to_string();
            let shapes = c
                .get("shapes")?
                .as_array()?
                .iter()
                .map(|s| {
                    s.as_array()
                        .map(|d| d.iter().filter_map(|x| x.as_u64()).map(|x| x as usize).collect())
                })
                .collect::<Option<Vec<Vec<usize>>>>()?;
            Some((spec, shapes))
        })
        .collect()
}

fn values(seed: usize, n: usize) -> Vec<f64> {
    (0..n).map(|i| (((i * 7 + seed * 13) % 11) as f64 - 5.0) / 4.0).collect()
}

fn tensor(shape: &[usize], data: Vec<f64>) -> Tensor {
    Tensor::from_vec(shape, data).expect("fits")
}

/// `Σ c · einsum(xs)`.
fn loss(spec: &str, shapes: &[Vec<usize>], xs: &[Vec<f64>], c: &[f64]) -> f64 {
    let ts: Vec<Tensor> = shapes.iter().zip(xs).map(|(s, x)| tensor(s, x.clone())).collect();
    let refs: Vec<&Tensor> = ts.iter().collect();
    let out = einrow::einsum(spec, &refs).expect("runs").to_f64_vec();
    out.iter().zip(c).map(|(o, c)| o * c).sum()
}

#[test]
fn vjp_matches_finite_differences_on_the_suites() {
    let mut files = vec![Path::new("tests/conformance/numpy-einsum.json").to_path_buf()];
    let upstream = Path::new("tests/data/cases/upstream");
    for entry in std::fs::read_dir(upstream).expect("the upstream suites") {
        files.push(entry.expect("an entry").path());
    }
    let mut checked = 0;
    for file in &files {
        for (spec, shapes) in cases(file) {
            let sizes: Vec<usize> = shapes.iter().map(|s| s.iter().product()).collect();
            if sizes.iter().sum::<usize>() > 400 {
                continue;
            }
            let xs: Vec<Vec<f64>> = sizes.iter().enumerate().map(|(k, &n)| values(k, n)).collect();
            let ts: Vec<Tensor> =
                shapes.iter().zip(&xs).map(|(s, x)| tensor(s, x.clone())).collect();
            let refs: Vec<&Tensor> = ts.iter().collect();
            let out = einrow::einsum(&spec, &refs).expect("the case succeeds");
            let c = values(99, out.numel());
            let ct = tensor(out.shape(), c.clone());
            let grads =
                einsum_vjp(&spec, &refs, &ct).unwrap_or_else(|e| panic!("{spec} {shapes:?}: {e}"));
            for (k, g) in grads.iter().enumerate() {
                assert_eq!(g.shape(), shapes[k].as_slice(), "{spec}");
                let g = g.to_f64_vec();
                for e in 0..sizes[k] {
                    let mut up = xs.clone();
                    up[k][e] += 0.5;
                    let mut down = xs.clone();
                    down[k][e] -= 0.5;
                    let want = loss(&spec, &shapes, &up, &c) - loss(&spec, &shapes, &down, &c);
                    assert!(
                        (g[e] - want).abs() <= 1e-9 * (1.0 + want.abs()),
                        "{spec} {shapes:?} operand {k} [{e}]: {} vs {want}",
                        g[e]
                    );
                }
            }
            checked += 1;
        }
    }
    assert!(checked >= 400, "only {checked} cases checked");
}

#[test]
fn bad_vjps_are_coded_errors() {
    let a = tensor(&[2, 3], vec![1.0; 6]);
    let wrong = tensor(&[3], vec![1.0; 3]);
    assert_eq!(einsum_vjp("ij->i", &[&a], &wrong).expect_err("shape").code(), ErrorCode::Elems);
    let ints = Tensor::from_vec(&[2], vec![1i32, 2]).expect("fits");
    let ct = tensor(&[], vec![1.0]);
    assert_eq!(einsum_vjp("i->", &[&ints], &ct).expect_err("ints").code(), ErrorCode::Type);
    assert_eq!(einsum_vjp("ij,jk->ik", &[&a], &ct).expect_err("arity").code(), ErrorCode::Arity);
    let f32s = Tensor::from_vec(&[2], vec![1.5f32, 2.0]).expect("fits");
    let g = einsum_vjp("i->", &[&f32s], &ct).expect("an f32 operand");
    assert_eq!((g[0].dtype(), g[0].to_f64_vec()), (einrow::tensor::DType::F32, vec![1.0, 1.0]));
}
