//! Plans of operations of many operands: a plan holds what each of its parts reads, so its
//! size, and the work of deriving, compiling and running it, follow the operation's size; an
//! einsum path's report, likewise, is linear in the number of operands.
//! Sizes are asserted on structure (entries per part), never timed; `examples/hostile_scale.rs`
//! measures the speed.

#![cfg(feature = "kernel")]

use einrow::code::{Coded, ErrorCode};
use einrow::infer::Graph;
use einrow::kernel::RunOptions;
use einrow::numpy::{
    einsum, einsum_into, einsum_optimized, einsum_path, MemoryLimit, Optimize, PathOptions,
    PathReport, StridedMut, StridedRef, MAX_REMAINING_TERMS,
};
use einrow::project::{plan_einsum, CompiledGraph, Concrete, Index, PartOperand};
use einrow::tensor::Tensor;

/// `x0;x1;…=>x0^x1^…` over `n` operands.
fn concat_spec(n: usize) -> String {
    let labels: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    format!("{}=>{}", labels.join(";"), labels.join("^"))
}

/// Each part of a concatenation of n operands listed all n operands (`None` for the n-1 it
/// does not read): n² entries, gigabytes at n = 10k. A part now lists the operand it reads.
#[test]
fn a_concatenation_of_20k_operands_plans_compiles_and_runs_in_linear_size() {
    let n = 20_000;
    let sizes: Vec<u64> = (0..n as u64).map(|k| k % 3 + 1).collect();
    let operands: Vec<Concrete> = sizes.iter().map(|&s| Concrete::output(&[s])).collect();
    let plan = plan_einsum(&concat_spec(n), &operands.iter().collect::<Vec<_>>()).expect("plans");
    assert_eq!(plan.parts.len(), n);
    let mut offset = 0;
    for (k, part) in plan.parts.iter().enumerate() {
        assert!(part.reads().eq([k]), "part {k} reads operand {k} alone");
        assert_eq!(part.operand(k), Some(&[Index::Iter(0)][..]));
        let want = Index::Affine { terms: vec![(1, 0)], offset, padded: false };
        assert!(part.result == [want], "part {k} writes from offset {offset}");
        offset += sizes[k] as i64;
    }
    // One loop, one result axis, one operand of one axis: four entries per part.
    let entries: usize = plan.parts.iter().map(|p| p.entries()).sum();
    assert_eq!(entries, 4 * n);
    let json = plan.to_json();
    let listed: usize =
        (0..n).map(|k| json["parts"][k]["operands"].as_array().map_or(0, Vec::len)).sum();
    assert_eq!(listed, n, "the JSON lists one operand per part");
    assert_eq!(json["parts"][7]["operands"][0]["operand"], 7);
    assert_eq!(plan.to_string().lines().count(), n + 1, "one line per part after the fill");

    // Compiled and run: the result is the operands one after the other.
    let values: Vec<Vec<f64>> =
        sizes.iter().enumerate().map(|(k, &s)| vec![k as f64; s as usize]).collect();
    let inputs: Vec<&[f64]> = values.iter().map(Vec::as_slice).collect();
    let exe = plan.compile().expect("compiles");
    let mut out = vec![0.0; offset as usize];
    exe.run(&inputs, &mut out).expect("runs");
    assert!(out == values.concat(), "the concatenation of the operands");
}

/// The same concatenation over one leaf through a graph: compiled once and run.
#[test]
fn a_compiled_graph_concatenates_20k_operands() {
    let n = 20_000;
    let mut g = Graph::new();
    let t = g.declare("t", Some("1"), false).expect("declares");
    let c = g.concat(&concat_spec(n), &vec![t; n]).expect("adds");
    g.solve().expect("solves");
    let program = CompiledGraph::compile_defaults(&g).expect("compiles");
    assert_eq!(program.tensor_dims(c).expect("a tensor of g"), &[n as u64]);
    let (mut leaf, mut result) = (vec![2.5f32], vec![0.0f32; n]);
    program.run(&mut [&mut leaf, &mut result]).expect("runs");
    assert!(result.iter().all(|&v| v == 2.5), "every element is the leaf");
}

/// `x0;…;x(n-1);a0,…,a(n-1)=>x0^…^x(n-1),a0,…,a(n-1)`: each of the n parts reads the last
/// operand and writes the whole result row, n+1 axes each: n² index entries from a spec of
/// size n.
fn wide_spec(n: usize) -> (String, Vec<Concrete>) {
    let xs: Vec<String> = (0..n).map(|i| format!("x{i}")).collect();
    let a: Vec<String> = (0..n).map(|i| format!("a{i}")).collect();
    let (xs, a) = (xs.join(";"), a.join(","));
    let spec = format!("{xs};{a}=>{},{a}", xs.replace(';', "^"));
    let mut operands = vec![Concrete::output(&[1]); n];
    operands.push(Concrete::output(&vec![1; n]));
    (spec, operands)
}

/// Concatenation parts that each repeat a large share of the spec would make a plan of the
/// product of the two: past a bound linear in the operation's size, a `bounds` error.
#[test]
fn concatenation_parts_that_each_repeat_a_large_result_are_refused() {
    let (spec, operands) = wide_spec(100);
    let plan = plan_einsum(&spec, &operands.iter().collect::<Vec<_>>()).expect("plans");
    assert_eq!(plan.parts.len(), 100);
    assert!(plan.parts.iter().enumerate().all(|(k, p)| p.reads().eq([k, 100])));

    let (spec, operands) = wide_spec(3_000);
    let e = plan_einsum(&spec, &operands.iter().collect::<Vec<_>>()).unwrap_err();
    assert_eq!(e.code(), ErrorCode::Bounds, "{e}");
    assert!(e.to_string().contains("index entries"), "{e}");
}

/// A hand-made part must list its operands by increasing number, each among the plan's.
#[test]
fn a_part_reading_operands_out_of_order_does_not_compile() {
    let (a, b) = (Concrete::output(&[2]), Concrete::output(&[2]));
    let plan = plan_einsum("i;i=>i", &[&a, &b]).expect("plans");
    assert!(plan.parts[0].reads().eq([0, 1]));
    plan.compile().expect("compiles");
    let read = |operand| PartOperand::new(operand, vec![Index::Iter(0)]);
    for reads in [vec![read(1), read(0)], vec![read(0), read(0)], vec![read(0), read(2)]] {
        let mut bad = plan.clone();
        bad.parts[0].operands = reads;
        let e = bad.compile().unwrap_err();
        assert_eq!(e.code(), ErrorCode::Mismatch, "{e}");
    }
}

/// The `remaining` column of an einsum path's report listed every operand left at each step:
/// n² characters for n operands (400 MB for `einrow path` at n = 20k). Past
/// `MAX_REMAINING_TERMS` terms it shows the first and last ones around a count.
#[test]
fn the_path_report_of_an_einsum_of_many_operands_is_linear() {
    let report = |n: usize| {
        let spec = format!("{}->a", vec!["a"; n].join(","));
        let shapes = vec![&[2usize][..]; n];
        einsum_path(&spec, &shapes, &PathOptions::new(Optimize::Greedy)).expect("plans")
    };
    let small = report(MAX_REMAINING_TERMS);
    let first = &small.contractions()[0].remaining;
    assert_eq!(first, &format!("{}->a", vec!["a"; MAX_REMAINING_TERMS - 1].join(",")));

    let n = 5_000;
    let big = report(n);
    assert_eq!(big.contractions().len(), n - 1);
    let half = vec!["a"; MAX_REMAINING_TERMS / 2].join(",");
    let left = n - 1 - MAX_REMAINING_TERMS;
    assert_eq!(big.contractions()[0].remaining, format!("{half},[{left} more],{half}->a"));
    let text = big.to_string();
    assert!(text.len() < 300 * n, "{} characters for {n} operands", text.len());
    assert!(big.to_json().to_string().len() < 400 * n);
}

/// `n` operands of `family`'s subscripts over the 52 letters (longer lists repeat them):
/// `a,a,…->a`, a chain `ab,bc,…->`, or `a,b,c,…->` with every letter used kept.
fn numpy_family(family: &str, n: usize) -> (String, usize) {
    let letter =
        |i: usize| char::from(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"[i % 52]);
    let (terms, output, rank): (Vec<String>, String, usize) = match family {
        "same" => (vec!["a".into(); n], "a".into(), 1),
        "chain" => {
            ((0..n).map(|i| format!("{}{}", letter(i), letter(i + 1))).collect(), "".into(), 2)
        }
        _ => ((0..n).map(|i| letter(i).to_string()).collect(), (0..52).map(letter).collect(), 1),
    };
    (format!("{}->{output}", terms.join(",")), rank)
}

/// Asserts that `report` plans `n` operands in n-1 pairwise steps.
fn assert_pairwise(report: &PathReport, n: usize, what: &str) {
    let path = report.path();
    assert_eq!(path.len(), n - 1, "{what}: one pairwise step per operand but one");
    // Every step takes two positions within the list left, which shrinks by one.
    for (k, step) in path.iter().enumerate() {
        assert!(step.len() == 2 && step.iter().all(|&p| p < n - k), "{what} {k}");
    }
    // In SSA form every operand and every result but the last is taken once.
    let mut taken = vec![0u8; 2 * n - 1];
    for &id in report.ssa_path().iter().flatten() {
        taken[id] += 1;
    }
    assert!(taken[..2 * n - 2].iter().all(|&c| c == 1), "{what}");
    assert_eq!(report.contractions().len(), n - 1);
}

/// Each step of a numpy path removed its operands from a vector of those left and scanned
/// all of them for the labels still needed: O(n²) for n operands, about 19 s for 100k through
/// `einrow path`. The list is now a Fenwick tree over slots with per-label counts.
#[test]
fn numpy_paths_of_100k_operands_plan_in_n_log_n() {
    let n = 100_000;
    for (family, o) in
        [("same", Optimize::Auto), ("chain", Optimize::Greedy), ("disjoint", Optimize::Auto)]
    {
        let (spec, rank) = numpy_family(family, n);
        let shape = vec![1usize; rank];
        let shapes = vec![&shape[..]; n];
        let report = einsum_path(&spec, &shapes, &PathOptions::new(o)).expect("plans");
        assert_pairwise(&report, n, family);
    }
    // An explicit path of one step over all operands but one, then the last pair.
    let (spec, _) = numpy_family("same", n);
    let shapes = vec![&[1usize][..]; n];
    let path = vec![(0..n - 1).collect(), vec![0, 1]];
    let opts =
        PathOptions::new(Optimize::Explicit(path.clone())).memory_limit(MemoryLimit::Elements(1));
    let report = einsum_path(&spec, &shapes, &opts).expect("plans");
    assert_eq!(report.path(), &path[..]);
    assert_eq!(report.ssa_path()[1], vec![n - 1, n]);
    let mut repeated = path;
    repeated[0][n - 2] = 7;
    let e = einsum_path(&spec, &shapes, &PathOptions::new(Optimize::Explicit(repeated)));
    assert_eq!(e.unwrap_err().code(), ErrorCode::Value);
}

/// Greedy compared every pair of tensors sharing a summed label, as opt_einsum does: with
/// many operands of distinct label sets that was quadratic and worse (162 s at 32k operands).
/// Past `GREEDY_BUDGET` pairs each new tensor's partners are capped.
#[test]
fn greedy_paths_of_50k_distinct_label_sets_plan_in_n_log_n() {
    let n = 50_000;
    // Operand k has the letters of the set bits of k + 1 among 17, all summed away.
    let terms: Vec<String> = (1..=n)
        .map(|k| (0..17u8).filter(|b| k >> b & 1 == 1).map(|b| char::from(b'a' + b)).collect())
        .collect();
    let spec = format!("{}->", terms.join(","));
    let owned: Vec<Vec<usize>> = terms.iter().map(|t| vec![2; t.len()]).collect();
    let shapes: Vec<&[usize]> = owned.iter().map(Vec::as_slice).collect();
    for o in [Optimize::Greedy, Optimize::Auto] {
        let report = einsum_path(&spec, &shapes, &PathOptions::new(o.clone())).expect("plans");
        assert_pairwise(&report, n, o.name());
    }
}

/// Running such an einsum followed the same lists: the default order, a planned path and
/// a plan over strided arrays each contract 100k operands of one element.
#[test]
fn numpy_einsums_of_100k_operands_run_in_n_log_n() {
    let n: usize = 100_000;
    // Every third operand is -1: the product is (-1)^(number of them).
    let sign = if n.div_ceil(3) % 2 == 1 { -1.0 } else { 1.0 };
    let plus = Tensor::from_vec(&[1], vec![1.0f64]).expect("tensor");
    let minus = Tensor::from_vec(&[1], vec![-1.0f64]).expect("tensor");
    let ops: Vec<&Tensor> = (0..n).map(|k| if k % 3 == 0 { &minus } else { &plus }).collect();
    for family in ["same", "disjoint"] {
        let (spec, _) = numpy_family(family, n);
        let want = vec![sign];
        let r = einsum(&spec, &ops).expect("runs");
        assert_eq!(r.shape().iter().product::<usize>(), 1, "{family}");
        assert_eq!(r.to_f64_vec(), want, "{family}");
        let r = einsum_optimized(&spec, &ops, &PathOptions::default()).expect("runs");
        assert_eq!(r.to_f64_vec(), want, "{family}");
    }
    let (spec, _) = numpy_family("chain", n);
    let chain: Vec<Tensor> = (0..n)
        .map(|k| {
            Tensor::from_vec(&[1, 1], vec![if k % 3 == 0 { -1.0 } else { 1.0 }]).expect("tensor")
        })
        .collect();
    let refs: Vec<&Tensor> = chain.iter().collect();
    assert_eq!(einsum(&spec, &refs).expect("runs").to_f64_vec(), vec![sign]);
    let data: Vec<[f64; 1]> = (0..n).map(|k| [if k % 3 == 0 { -1.0 } else { 1.0 }]).collect();
    let inputs: Vec<StridedRef<'_, f64>> =
        data.iter().map(|d| StridedRef::contiguous(d, &[1, 1]).expect("view")).collect();
    let mut out = [0.0f64];
    let mut view = StridedMut::contiguous(&mut out, &[]).expect("view");
    let greedy = PathOptions::new(Optimize::Greedy);
    einsum_into(&spec, &inputs, &mut view, Some(&greedy), &RunOptions::default()).expect("runs");
    assert_eq!(out, [sign]);
}
