//! Scale benchmark of numpy einsums of many operands: plans (and runs, on operands of size 1)
//! an einsum of `n` operands through the library, and reports the time per operand and the
//! peak memory of the process. Linear behaviour shows as a flat time per operand from one size
//! to the next.
//!
//! ```text
//! cargo run --release --example einsum_scale -- 10000 100000
//! cargo run --release --example einsum_scale -- --family chain --action path-greedy 1000000
//! ```
//!
//! Families of subscripts (labels are the 52 letters, so longer lists repeat them):
//! * `same`: `a,a,…,a->a`; `same-sum`: the same summed away (`->`);
//! * `chain`: `ab,bc,cd,…->` around the 52 letters;
//! * `disjoint`: `a,b,c,…` (no label shared within 52 operands), output every letter used;
//! * `subsets`: operand `k` has the letters of the set bits of `k + 1` among 17, summed
//!   away: up to 131071 distinct label sets, which greedy (as opt_einsum's) compares pairwise.
//!
//! Actions: `path-greedy` and `path-auto` (`einsum_path`, the report included), `einsum`
//! (the default greedy order, run) and `optimized` (`einsum_optimized` along `auto`, run).
//!
//! Each size, family and action runs in a child process of its own (re-executing this
//! binary), so that every peak-memory figure belongs to one run.

use std::process::Command;
use std::time::Instant;

use einrow::numpy::{einsum, einsum_optimized, einsum_path, Optimize, PathOptions};
use einrow::tensor::Tensor;

#[path = "../benches/support/peak.rs"]
mod peak;

const FAMILIES: [&str; 5] = ["same", "same-sum", "chain", "disjoint", "subsets"];
const ACTIONS: [&str; 4] = ["path-greedy", "path-auto", "einsum", "optimized"];
const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut sizes, mut families, mut actions, mut one) = (vec![], vec![], vec![], false);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--family" => families.extend(args.next()),
            "--action" => actions.extend(args.next()),
            "--one" => one = true,
            _ => match a.parse::<usize>() {
                Ok(n) => sizes.push(n),
                Err(_) => {
                    eprintln!("usage: einsum_scale [--family F]... [--action A]... [SIZE ...]");
                    std::process::exit(2);
                }
            },
        }
    }
    if let (true, [f], [a], [n]) = (one, &families[..], &actions[..], &sizes[..]) {
        return run_one(f, a, *n);
    }
    let or_all = |v: Vec<String>, all: &[&str]| {
        if v.is_empty() {
            all.iter().map(|s| s.to_string()).collect()
        } else {
            v
        }
    };
    let sizes = if sizes.is_empty() { vec![10_000, 100_000] } else { sizes };
    let (families, actions) = (or_all(families, &FAMILIES), or_all(actions, &ACTIONS));
    let exe = std::env::current_exe().expect("the benchmark knows its own path");
    println!(
        "{:<9} {:<12} {:>9} {:>10} {:>11} {:>9}",
        "family", "action", "n", "ms", "ns/op", "MiB"
    );
    for f in &families {
        for a in &actions {
            for n in &sizes {
                let out = Command::new(&exe)
                    .args(["--one", "--family", f, "--action", a, &n.to_string()])
                    .output()
                    .expect("child runs");
                print!("{}", String::from_utf8_lossy(&out.stdout));
                if !out.status.success() {
                    eprintln!("{f} {a} {n}: {}", String::from_utf8_lossy(&out.stderr));
                }
            }
        }
    }
}

/// The subscripts of `family` over `n` operands.
fn subscripts(family: &str, n: usize) -> String {
    let letter = |i: usize| char::from(LETTERS[i % LETTERS.len()]);
    let (terms, output): (Vec<String>, String) = match family {
        "same" => (vec!["a".into(); n], "a".into()),
        "same-sum" => (vec!["a".into(); n], String::new()),
        "chain" => ((0..n).map(|i| format!("{}{}", letter(i), letter(i + 1))).collect(), "".into()),
        "disjoint" => {
            ((0..n).map(|i| letter(i).to_string()).collect(), (0..n.min(52)).map(letter).collect())
        }
        "subsets" => {
            let set = |k: usize| (0..17).filter(|b| (k + 1) >> b & 1 == 1).map(letter).collect();
            ((0..n).map(set).collect(), String::new())
        }
        other => panic!("unknown family {other}"),
    };
    format!("{}->{output}", terms.join(","))
}

/// Plans or runs one einsum; prints one table row.
fn run_one(family: &str, action: &str, n: usize) {
    let spec = subscripts(family, n);
    let ranks: Vec<usize> =
        spec.split("->").next().unwrap_or("").split(',').map(str::len).collect();
    let ones: Vec<Vec<usize>> = ranks.iter().map(|&r| vec![1; r]).collect();
    let start = Instant::now();
    match action {
        "path-greedy" | "path-auto" => {
            let shapes: Vec<&[usize]> = ones.iter().map(Vec::as_slice).collect();
            let o = if action == "path-greedy" { Optimize::Greedy } else { Optimize::Auto };
            let report = einsum_path(&spec, &shapes, &PathOptions::new(o)).expect("plans");
            assert_eq!(report.path().len(), n.max(2) - 1, "one step per operand but one");
        }
        "einsum" | "optimized" => {
            let tensors: Vec<Tensor> = ones
                .iter()
                .map(|s| Tensor::from_vec(s, vec![1.0f64]).expect("a tensor of one element"))
                .collect();
            let ops: Vec<&Tensor> = tensors.iter().collect();
            let r = if action == "einsum" {
                einsum(&spec, &ops)
            } else {
                einsum_optimized(&spec, &ops, &PathOptions::default())
            };
            let r = r.expect("runs");
            assert!(r.to_f64_vec().iter().all(|&x| x == 1.0), "a product of ones");
        }
        other => panic!("unknown action {other}"),
    }
    let t = start.elapsed().as_secs_f64();
    println!(
        "{family:<9} {action:<12} {n:>9} {:>10.1} {:>11.1} {:>9.1}",
        t * 1e3,
        t * 1e9 / n as f64,
        peak::peak_mib()
    );
}
