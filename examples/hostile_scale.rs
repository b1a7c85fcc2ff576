//! Scale benchmark of shape inference on the shapes of hostile inputs: each class builds a
//! program of `n` elements (steps, labels or operands) through the graph API, solves it, and
//! reports the time per element and the peak memory of the process. Linear behaviour shows as
//! a flat time per element from one size to the next.
//!
//! ```text
//! cargo run --profile bench --example hostile_scale -- 10000 100000 1000000
//! cargo run --profile bench --example hostile_scale -- --class concat-chain 100000
//! ```
//!
//! Classes (every leaf of unknown shape unless said otherwise):
//! * `affine-chain`: `n` permutes `2*o=>o`, the last one's axis tied to a size-0 leaf (so that
//!   the sizes, `2^k · 0`, stay in range);
//! * `conv-chain`: `n` valid convolutions `1*o<+k;k=>o` over one kernel of size 1;
//! * `spec-labels`: one permute reversing `n` labels;
//! * `einsum-labels`: one einsum `l;l=>l` of `n` labels over a declared leaf;
//! * `concat-chain`: `n` concatenations `a;b=>a^b` of the previous result and one leaf;
//! * `concat-labels`: one permute of a concatenation of `n` labels;
//! * `concat-operands`: one concatenation of `n` operands;
//! * `self-concat`: `n` steps alternating `a;b=>a^b` of a tensor with itself and `2*o=>o`;
//! * `spec-plan`: the plan (`plan_einsum`, no graph) of an einsum reversing `n` labels of two
//!   operands of size-1 axes;
//! * `concat-plan`: the plan (`plan_einsum`, no graph) of a concatenation of `n` operands of
//!   size 1, compiled and run: one part per operand, reading that operand alone;
//! * `spec-lints`: the checks before a program is built (`check_program`) of one permute of
//!   `n` labels whose result adds `n` labels no operand has (warned of in a bounded number of
//!   diagnostics).
//!
//! Each size and class runs in a child process of its own (re-executing this binary), so that
//! every peak-memory figure belongs to one run.

use std::process::Command;
use std::time::Instant;

use einrow::diagnostic::Source;
use einrow::ids::TensorId;
use einrow::infer::program::Program;
use einrow::infer::Graph;
use einrow::lint::{check_program, MAX_LABEL_LINTS};
use einrow::project::{plan_einsum, run_plan, Concrete};

#[path = "../benches/support/peak.rs"]
mod peak;

const CLASSES: [&str; 11] = [
    "affine-chain",
    "conv-chain",
    "spec-labels",
    "einsum-labels",
    "concat-chain",
    "concat-labels",
    "concat-operands",
    "self-concat",
    "spec-plan",
    "concat-plan",
    "spec-lints",
];

fn main() {
    let mut args = std::env::args().skip(1);
    let (mut sizes, mut classes, mut one) = (Vec::new(), Vec::new(), false);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--class" => classes.extend(args.next()),
            "--one" => one = true,
            _ => match a.parse::<usize>() {
                Ok(n) => sizes.push(n),
                Err(_) => {
                    eprintln!("usage: hostile_scale [--class NAME]... [SIZE ...]");
                    std::process::exit(2);
                }
            },
        }
    }
    if one {
        if let (Some(class), [n]) = (classes.first(), &sizes[..]) {
            run_one(class, *n);
            return;
        }
    }
    let sizes = if sizes.is_empty() { vec![10_000, 100_000, 1_000_000] } else { sizes };
    let classes: Vec<String> =
        if classes.is_empty() { CLASSES.iter().map(|c| c.to_string()).collect() } else { classes };
    let exe = std::env::current_exe().expect("the benchmark knows its own path");
    println!(
        "{:<16} {:>9} {:>10} {:>12} {:>9}",
        "class", "n", "total ms", "ns/element", "peak MiB"
    );
    for class in &classes {
        for n in &sizes {
            let out = Command::new(&exe)
                .args(["--one", "--class", class, &n.to_string()])
                .output()
                .expect("child runs");
            print!("{}", String::from_utf8_lossy(&out.stdout));
            if !out.status.success() {
                eprintln!("{class} {n}: {}", String::from_utf8_lossy(&out.stderr));
            }
        }
    }
}

/// Builds and solves one program (or plans or checks one spec); prints one table row.
fn run_one(class: &str, n: usize) {
    let start = Instant::now();
    match class {
        "spec-plan" => spec_plan(n),
        "concat-plan" => concat_plan(n),
        "spec-lints" => spec_lints(n),
        _ => {
            let mut g = Graph::new();
            let (name, want) = build(&mut g, class, n);
            g.solve().expect("the program solves");
            let got = g.shape_string(name).expect("the checked tensor is solved");
            assert_eq!(got, want, "unexpected shape");
        }
    }
    let total = start.elapsed();
    println!(
        "{class:<16} {n:>9} {:>10.1} {:>12.1} {:>9.1}",
        total.as_secs_f64() * 1e3,
        total.as_secs_f64() * 1e9 / n as f64,
        peak::peak_mib()
    );
}

/// `n` labels `{prefix}0`, `{prefix}1`, …
fn labels(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix}{i}")).collect()
}

/// The plan of `l;l=>rev(l)` for `n` labels: one loop per label.
fn spec_plan(n: usize) {
    let l = labels("a", n);
    let r: Vec<String> = l.iter().rev().cloned().collect();
    let x = Concrete::output(&vec![1; n]);
    let plan = plan_einsum(&format!("{};{}=>{}", l.join(","), l.join(","), r.join(",")), &[&x, &x])
        .expect("plans");
    assert_eq!(plan.parts[0].loops.len(), n, "one loop per label");
}

/// The plan of `x0;…=>x0^…` over `n` operands of size 1, compiled and run.
fn concat_plan(n: usize) {
    let l = labels("x", n);
    let x = Concrete::output(&[1]);
    let plan =
        plan_einsum(&format!("{}=>{}", l.join(";"), l.join("^")), &vec![&x; n]).expect("plans");
    assert!(plan.parts.iter().enumerate().all(|(k, p)| p.reads().eq([k])), "one read per part");
    let values: Vec<f64> = (0..n).map(|k| k as f64).collect();
    let inputs: Vec<&[f64]> = values.chunks(1).collect();
    assert!(run_plan(&plan, &inputs).expect("runs") == values, "the operands in order");
}

/// The checks of `y = permute "l=>rev(l),b" x` for `n` labels `l` and `n` labels `b`.
fn spec_lints(n: usize) {
    let l = labels("a", n);
    let r: Vec<String> = l.iter().rev().cloned().collect();
    let b = labels("b", n);
    let text =
        format!("tensor x\ny = permute \"{}=>{},{}\" x\n", l.join(","), r.join(","), b.join(","));
    let program = Program::parse_text(&text).expect("parses");
    let found = check_program(&program, Some(&Source::new(&text)));
    assert_eq!(found.len(), MAX_LABEL_LINTS + 1, "a bounded number of warnings");
}

/// Builds the program of a class; returns a tensor to check and its expected shape.
fn build(g: &mut Graph, class: &str, n: usize) -> (TensorId, String) {
    let labels = |prefix: &str| labels(prefix, n);
    let unknown = |g: &mut Graph, name: &str| g.declare(name, None, false).expect("declares");
    let declared = |g: &mut Graph, name: &str, shape: &str| {
        g.declare(name, Some(shape), false).expect("declares")
    };
    match class {
        "affine-chain" => {
            let mut t = unknown(g, "x");
            let zero = declared(g, "zero", "0");
            for _ in 0..n {
                t = g.permute("2*o=>o", t).expect("adds");
            }
            g.einsum("a;a=>a", &[t, zero]).expect("adds");
            (t, "0".into())
        }
        "conv-chain" => {
            let mut t = unknown(g, "x");
            let w = declared(g, "w", "1");
            for _ in 0..n {
                t = g.einsum("1*o<+k;k=>o", &[t, w]).expect("adds");
            }
            (t, "1!".into())
        }
        "spec-labels" => {
            let x = unknown(g, "x");
            let l = labels("a");
            let r: Vec<String> = l.iter().rev().cloned().collect();
            let y = g.permute(&format!("{}=>{}", l.join(","), r.join(",")), x).expect("adds");
            (y, vec!["1!"; n].join(","))
        }
        "einsum-labels" => {
            let sizes = vec!["2"; n].join(",");
            let x = declared(g, "x", &sizes);
            let u = unknown(g, "u");
            let l = labels("a").join(",");
            g.einsum(&format!("{l};{l}=>{l}"), &[x, u]).expect("adds");
            (u, sizes)
        }
        "concat-chain" => {
            let mut t = unknown(g, "x");
            let z = unknown(g, "z");
            for _ in 0..n {
                t = g.concat("a;b=>a^b", &[t, z]).expect("adds");
            }
            (t, (n + 1).to_string())
        }
        "concat-labels" => {
            let t = unknown(g, "t");
            let c = labels("a").join("^");
            let y = g.permute(&format!("{c}=>{c}"), t).expect("adds");
            (y, n.to_string())
        }
        "concat-operands" => {
            let t = unknown(g, "t");
            let l = labels("x");
            let spec = format!("{}=>{}", l.join(";"), l.join("^"));
            let y = g.concat(&spec, &vec![t; n]).expect("adds");
            (y, n.to_string())
        }
        "self-concat" => {
            let mut t = unknown(g, "x");
            for i in 0..n {
                t = if i % 2 == 0 {
                    g.concat("a;b=>a^b", &[t, t]).expect("adds")
                } else {
                    g.permute("2*o=>o", t).expect("adds")
                };
            }
            let want = if n % 2 == 1 { "2" } else { "1" };
            (t, want.into())
        }
        other => {
            eprintln!("unknown class `{other}` (one of {})", CLASSES.join(", "));
            std::process::exit(2);
        }
    }
}
