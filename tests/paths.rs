//! Contraction paths against opt_einsum 3.4 and numpy 2.4 (`tests/data/paths/opt_einsum.json`,
//! written by `gen_opt_einsum.py` from opt_einsum's own test expressions and random ones):
//! naive FLOP counts equal both; greedy paths equal opt_einsum's; `optimal` equals the least
//! count over every pairwise path (tried one by one up to 6 operands) and is never above
//! opt_einsum's 'optimal' (which misses the least in a few cases);
//! `dp` and `auto` are never above opt_einsum's; every recorded path costs, as an explicit
//! path, what opt_einsum and numpy report; and every path runs like the naive evaluation.

use einrow::numpy::{einsum_path, Optimize, PathOptions, PathReport};
use serde_json::Value;

struct Case {
    name: String,
    subscripts: String,
    shapes: Vec<Vec<usize>>,
    oe: Value,
    numpy: Option<Value>,
}

fn cases() -> Vec<Case> {
    let text = include_str!("data/paths/opt_einsum.json");
    let doc: Value = serde_json::from_str(text).expect("the golden table is JSON");
    let list = doc["cases"].as_array().expect("cases");
    list.iter()
        .map(|c| Case {
            name: c["name"].as_str().expect("name").to_string(),
            subscripts: c["subscripts"].as_str().expect("subscripts").to_string(),
            shapes: c["shapes"]
                .as_array()
                .expect("shapes")
                .iter()
                .map(|s| {
                    s.as_array()
                        .expect("shape")
                        .iter()
                        .map(|d| d.as_u64().expect("size") as usize)
                        .collect()
                })
                .collect(),
            oe: c["opt_einsum"].clone(),
            numpy: c.get("numpy").cloned(),
        })
        .collect()
}

fn count(v: &Value) -> u128 {
    v.as_str().and_then(|s| s.parse().ok()).expect("a count as a decimal string")
}

fn path_of(v: &Value) -> Vec<Vec<usize>> {
    v.as_array()
        .expect("path")
        .iter()
        .map(|s| {
            s.as_array().expect("step").iter().map(|p| p.as_u64().expect("pos") as usize).collect()
        })
        .collect()
}

impl Case {
    fn report(&self, optimize: Optimize) -> PathReport {
        let shapes: Vec<&[usize]> = self.shapes.iter().map(Vec::as_slice).collect();
        einsum_path(&self.subscripts, &shapes, &PathOptions::new(optimize))
            .unwrap_or_else(|e| panic!("{}: {e}", self.name))
    }

    fn operands(&self) -> usize {
        self.shapes.len()
    }
}

#[test]
fn naive_flops_equal_opt_einsum_and_numpy() {
    let (mut compared, mut with_numpy) = (0, 0);
    for case in cases() {
        let r = case.report(Optimize::Auto);
        assert_eq!(r.naive_flops(), count(&case.oe["naive_flops"]), "{}", case.name);
        if let Some(np) = &case.numpy {
            let printed: f64 =
                np["printed_naive_flops"].as_str().and_then(|s| s.parse().ok()).expect("naive");
            let ours: f64 = format!("{:.3e}", r.naive_flops() as f64).parse().expect("float");
            assert_eq!(ours, printed, "{}", case.name);
            with_numpy += 1;
        }
        compared += 1;
    }
    assert!(compared > 300 && with_numpy > 100, "{compared} cases, {with_numpy} with numpy's");
}

#[test]
fn greedy_equals_opt_einsum_greedy() {
    let mut n = 0;
    for case in cases().iter().filter(|c| c.operands() >= 3) {
        let r = case.report(Optimize::Greedy);
        let theirs = &case.oe["greedy"];
        assert_eq!(r.path(), path_of(&theirs["path"]), "{}", case.name);
        assert_eq!(r.opt_flops(), count(&theirs["flops"]), "{}", case.name);
        assert_eq!(r.largest_intermediate(), count(&theirs["largest"]), "{}", case.name);
        n += 1;
    }
    assert!(n > 250, "{n} cases");
}

#[test]
fn optimal_is_the_least_count_of_every_pairwise_path() {
    let (mut checked, mut equal, mut lower) = (0, 0, Vec::new());
    for case in cases().iter().filter(|c| c.operands() >= 3 && c.oe.get("optimal").is_some()) {
        let r = case.report(Optimize::Optimal);
        // Up to 6 operands the table has the least count over all pairwise paths.
        if let Some(least) = case.oe.get("exhaustive_flops") {
            assert_eq!(r.opt_flops(), count(least), "{}", case.name);
            checked += 1;
        }
        let theirs = count(&case.oe["optimal"]["flops"]);
        assert!(r.opt_flops() <= theirs, "{}: {} > {theirs}", case.name, r.opt_flops());
        if r.opt_flops() == theirs {
            equal += 1;
        } else {
            lower.push(case.name.clone());
        }
    }
    eprintln!(
        "optimal: {checked} equal to the exhaustive least count; against opt_einsum's optimal \
         {equal} equal, {} lower: {lower:?}",
        lower.len()
    );
    assert!(checked > 150 && equal > 150, "{checked} {equal}");
}

/// Checks `optimize` is never above opt_einsum's `key` strategy on 3 or more operands;
/// returns how many are equal and how many lower.
fn never_above(key: &str, optimize: Optimize) -> (usize, usize) {
    let (mut equal, mut lower) = (0, 0);
    for case in cases().iter().filter(|c| c.operands() >= 3) {
        let r = case.report(optimize.clone());
        let theirs = count(&case.oe[key]["flops"]);
        assert!(r.opt_flops() <= theirs, "{} {key}: {} > {theirs}", case.name, r.opt_flops());
        if r.opt_flops() == theirs {
            equal += 1;
        } else {
            lower += 1;
        }
    }
    assert!(equal + lower > 250, "{key}: only {} cases compared", equal + lower);
    (equal, lower)
}

#[test]
fn dp_is_never_above_opt_einsum_dp() {
    let (equal, lower) = never_above("dp", Optimize::Dp);
    eprintln!("dp: {equal} equal to opt_einsum's, {lower} lower");
}

#[test]
fn auto_is_never_above_opt_einsum_auto() {
    let (equal, lower) = never_above("auto", Optimize::Auto);
    eprintln!("auto: {equal} equal to opt_einsum's auto, {lower} lower, 0 higher");
}

#[test]
fn recorded_paths_cost_what_opt_einsum_and_numpy_report() {
    let (mut theirs_compared, mut numpy_compared) = (0, 0);
    for case in cases() {
        for strategy in ["greedy", "dp", "auto", "optimal"] {
            let Some(theirs) = case.oe.get(strategy) else { continue };
            let r = case.report(Optimize::Explicit(path_of(&theirs["path"])));
            assert_eq!(r.opt_flops(), count(&theirs["flops"]), "{} {strategy}", case.name);
            assert_eq!(
                r.largest_intermediate(),
                count(&theirs["largest"]),
                "{} {strategy}",
                case.name
            );
            theirs_compared += 1;
        }
        if let Some(np) = &case.numpy {
            let r = case.report(Optimize::Explicit(path_of(&np["path"])));
            assert_eq!(r.opt_flops(), count(&np["path_flops"]), "{} numpy", case.name);
            let printed: f64 =
                np["printed_opt_flops"].as_str().and_then(|s| s.parse().ok()).expect("opt");
            let ours: f64 = format!("{:.3e}", (r.opt_flops() + 1) as f64).parse().expect("float");
            assert_eq!(ours, printed, "{} numpy", case.name);
            numpy_compared += 1;
        }
    }
    assert!(theirs_compared > 1000 && numpy_compared > 100, "{theirs_compared} {numpy_compared}");
}

/// Deterministic operand values in [-1, 1).
#[cfg(feature = "fuzzing")]
fn values(n: usize, seed: &mut u64) -> Vec<f64> {
    (0..n)
        .map(|_| {
            *seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (*seed >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
        })
        .collect()
}

#[cfg(feature = "fuzzing")]
#[test]
fn every_path_runs_like_the_naive_evaluation() {
    use einrow::fuzzing::numpy::naive_einsum;
    use einrow::numpy::einsum_optimized;
    use einrow::tensor::Tensor;
    let mut ran = 0;
    let mut seed = 7u64;
    for case in cases() {
        // The naive loop visits every combination of label values (about the naive count).
        if case.report(Optimize::Auto).naive_flops() > 4_000_000 {
            continue;
        }
        let data: Vec<Vec<f64>> =
            case.shapes.iter().map(|s| values(s.iter().product(), &mut seed)).collect();
        let tensors: Vec<Tensor> = case
            .shapes
            .iter()
            .zip(&data)
            .map(|(s, d)| Tensor::from_vec(s, d.clone()).expect("tensor"))
            .collect();
        let refs: Vec<&Tensor> = tensors.iter().collect();
        let (shape, want) = naive_einsum(&case.subscripts, &case.shapes, &data).expect("naive");
        let mut paths: Vec<Optimize> =
            vec![Optimize::Greedy, Optimize::Optimal, Optimize::Dp, Optimize::Auto];
        for strategy in ["greedy", "dp", "auto", "optimal"] {
            if let Some(theirs) = case.oe.get(strategy) {
                paths.push(Optimize::Explicit(path_of(&theirs["path"])));
            }
        }
        if let Some(np) = &case.numpy {
            paths.push(Optimize::Explicit(path_of(&np["path"])));
        }
        for optimize in paths {
            let label = format!("{} {optimize}", case.name);
            let got = einsum_optimized(&case.subscripts, &refs, &PathOptions::new(optimize))
                .unwrap_or_else(|e| panic!("{label}: {e}"));
            assert_eq!(got.shape(), shape.as_slice(), "{label}");
            for (g, w) in got.to_f64_vec().iter().zip(&want) {
                assert!((g - w).abs() <= 1e-9 * (1.0 + w.abs()), "{label}: {g} vs {w}");
            }
        }
        ran += 1;
    }
    assert!(ran > 150, "{ran} cases ran");
}

#[test]
fn bad_paths_and_limits_are_coded_errors() {
    use einrow::numpy::{EinsumError, MemoryLimit, PathError};
    use einrow::{Coded, ErrorCode};
    let shapes: [&[usize]; 3] = [&[2, 2], &[2, 5], &[5, 2]];
    let code = |path: Vec<Vec<usize>>| {
        let opts = PathOptions::new(Optimize::Explicit(path));
        einsum_path("ij,jk,kl->il", &shapes, &opts).map(|_| ()).map_err(|e| e.code())
    };
    assert_eq!(code(vec![vec![1, 2], vec![0, 1]]), Ok(()));
    assert_eq!(code(vec![vec![0, 3], vec![0, 1]]), Err(ErrorCode::Bounds));
    assert_eq!(code(vec![vec![0, 1]]), Err(ErrorCode::Arity));
    assert_eq!(code(vec![vec![1, 1], vec![0, 1]]), Err(ErrorCode::Value));
    assert_eq!(code(vec![]), Err(ErrorCode::Arity));
    // Memory limits: an explicit path over it, dp finding nothing within it, zero.
    let limited = |o: Optimize, n: u64| PathOptions::new(o).memory_limit(MemoryLimit::Elements(n));
    let explicit = Optimize::Explicit(vec![vec![0, 1], vec![0, 1]]);
    let e = einsum_path("ij,jk,kl->il", &shapes, &limited(explicit, 9)).expect_err("over");
    assert!(matches!(
        e,
        EinsumError::Path(PathError::IntermediateTooLarge { step: 0, size: 10, .. })
    ));
    let e = einsum_path("ij,jk,kl->il", &shapes, &limited(Optimize::Dp, 3)).expect_err("dp");
    assert_eq!(e.code(), ErrorCode::Elems);
    let e = einsum_path("ij,jk,kl->il", &shapes, &limited(Optimize::Auto, 0)).expect_err("zero");
    assert_eq!(e.code(), ErrorCode::Value);
    // Under a limit optimal and greedy end with one step over the rest (opt_einsum's rule).
    let r = einsum_path("ij,jk,kl->il", &shapes, &limited(Optimize::Optimal, 3)).expect("path");
    assert_eq!(r.path(), &[vec![0, 1, 2]]);
}

#[cfg(feature = "kernel")]
#[test]
fn running_checks_the_path_and_sublist_labels() {
    use einrow::numpy::{einsum_optimized, einsum_sublist, EinsumError, PathError, Sublist};
    use einrow::tensor::Tensor;
    use einrow::{Coded, ErrorCode};
    // Running checks the path too, also where no contraction is needed (a view, an empty
    // operand).
    let a = Tensor::from_vec(&[2, 2], vec![1.0f64; 4]).expect("tensor");
    let bad = PathOptions::new(Optimize::Explicit(vec![vec![0, 1]]));
    let e = einsum_optimized("ij->ji", &[&a], &bad).expect_err("one operand");
    assert!(
        matches!(e, EinsumError::Path(PathError::Position { step: 0, position: 1, .. })),
        "{e}"
    );
    let empty = Tensor::from_vec(&[0, 2], Vec::<f64>::new()).expect("tensor");
    let e = einsum_optimized("ij,jk,kl->il", &[&empty, &a, &a], &bad).expect_err("incomplete");
    assert_eq!(e.code(), ErrorCode::Arity);
    // Sublist labels outside 0..=51.
    let sub = Sublist::new().input([0, 52]);
    let e = einsum_sublist(&[&a], &sub).expect_err("label 52");
    assert_eq!(e.code(), ErrorCode::Bounds);
}

#[cfg(feature = "cli")]
#[test]
fn the_path_command_prints_the_report_and_json() {
    use std::process::Command;
    let run = |args: &[&str]| {
        let out = Command::new(env!("CARGO_BIN_EXE_einrow"))
            .arg("path")
            .args(args)
            .output()
            .expect("run");
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (ok, stdout, _) =
        run(&["ij,jk,kl->il", "2,2", "2,5", "5,2", "--optimize", "optimal", "--json"]);
    assert!(ok);
    assert_eq!(stdout.lines().count(), 1, "--json prints only the document: {stdout}");
    let doc: Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!((doc["version"].as_u64(), &doc["ok"]), (Some(1), &Value::Bool(true)));
    let last = &doc["report"];
    assert_eq!(last["path"], serde_json::json!([[1, 2], [0, 1]]));
    assert_eq!((last["opt_flops"].as_u64(), last["naive_flops"].as_u64()), (Some(56), Some(120)));
    let (ok, _, stderr) =
        run(&["ij,jk,kl->il", "2,2", "2,5", "5,2", "--optimize", "[[0,1],[1,2]]"]);
    let (_, table, _) = run(&["ij,jk,kl->il", "2,2", "2,5", "5,2", "--optimize", "optimal"]);
    assert!(table.contains("Optimized FLOP count:  5.600e+01"), "{table}");
    assert!(!ok);
    assert!(stderr.starts_with("error[bounds]: step 1"), "{stderr}");
    assert!(stderr.contains("  | [[0,1],[1,2]]\n  |        ^^^^^"), "{stderr}");
    let (ok, _, stderr) = run(&["ij,jk->ik", "2,x", "3,2"]);
    assert!(!ok && stderr.starts_with("error[syntax]"), "{stderr}");
    let (ok, _, stderr) = run(&["ij,jk->ik", "2,3", "4,2"]);
    assert!(!ok && stderr.starts_with("error[mismatch]"), "{stderr}");
    let (ok, stdout, _) = run(&["a,->a", "3", "", "--memory-limit", "max_input"]);
    assert!(ok, "{stdout}");
}
