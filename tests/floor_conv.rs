//! PyTorch-style convolutions `S*o~P+D*k`: the output size is
//! `floor((T + 2P - D(k-1) - 1) / S) + 1` for every stride, dilation, padding, kernel and input
//! size (the exact-cover rule `<+` stays the default), and the plan computes PyTorch's
//! zero-padded cross-correlation.

#![cfg(feature = "kernel")]

use einrow::code::{Coded, ErrorCode};
use einrow::infer::{Graph, OpKind};
use einrow::project::{derive_plan, run_plan, Compute};
use proptest::prelude::*;

/// PyTorch's output size, `None` when the input is shorter than the window.
fn torch_size(t: u64, k: u64, s: u64, d: u64, p: u64) -> Option<u64> {
    let window = d * (k - 1) + 1;
    (t + 2 * p).checked_sub(window).map(|r| r / s + 1)
}

proptest! {
    #[test]
    fn sizes_and_values_are_pytorchs(t in 1u64..13, k in 1u64..5, s in 1u64..4, d in 1u64..3, p in 0u64..3) {
        let spec = format!("{s}*o~{p}+{d}*k; k => o");
        let mut g = Graph::new();
        let x = g.declare("x", Some(&t.to_string()), false).expect("declares");
        let w = g.declare("w", Some(&k.to_string()), false).expect("declares");
        let added = g.einsum(&spec, &[x, w]).and_then(|y| g.solve().map(|_| y));
        let Some(want) = torch_size(t, k, s, d, p) else {
            prop_assert_eq!(added.expect_err("the input is shorter than the window").code(), ErrorCode::Mismatch);
            return Ok(());
        };
        let y = added.expect("solves");
        prop_assert_eq!(g.sizes(y).expect("solved").output, vec![want]);
        let step = g.producer(y).expect("ours").expect("a result");
        let plan = derive_plan(&g, step, Compute::default_for(OpKind::Einsum, 2), 0).expect("plans");
        let xs: Vec<f64> = (0..t).map(|i| (i * 7 % 5) as f64 - 2.0).collect();
        let ws: Vec<f64> = (0..k).map(|i| (i * 3 % 4) as f64 - 1.0).collect();
        let got = run_plan(&plan, &[&xs, &ws]).expect("runs");
        let naive: Vec<f64> = (0..want)
            .map(|o| {
                (0..k)
                    .map(|j| {
                        let i = (o * s + j * d) as i64 - p as i64;
                        let v = if i < 0 || i >= t as i64 { 0.0 } else { xs[i as usize] };
                        v * ws[j as usize]
                    })
                    .sum()
            })
            .collect();
        prop_assert_eq!(got, naive);
    }
}

/// The example PyTorch floors and the exact rule refuses: T = 10, stride 2, kernel 3.
#[test]
fn floor_mode_where_exact_cover_refuses() {
    let mut g = Graph::new();
    let x = g.declare("x", Some("10"), false).expect("declares");
    let k = g.declare("k", Some("3"), false).expect("declares");
    let y = g.einsum("2*o~+k; k => o", &[x, k]).expect("adds");
    g.solve().expect("solves");
    assert_eq!(g.shape_string(y).expect("ours"), "4");
    let e = g.einsum("2*o<+k; k => o", &[x, k]).expect_err("exact cover");
    assert_eq!(e.code(), ErrorCode::Mismatch);
    let printed = einrow::spec::parse_einsum("2*o~1+3*k; k => o").expect("parses").to_string();
    assert_eq!(printed, "2*o~1+3*k; k => o");
}
