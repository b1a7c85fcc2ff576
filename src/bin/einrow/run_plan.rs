//! `einrow run --plan` for numpy subscripts: the contraction path (numpy's `einsum_path`
//! report, with FLOP counts and the largest intermediate) and, for each contraction, its loop
//! nest with its FLOPs and result size.

use std::collections::HashMap;
use std::fmt;

use einrow::numpy::{einsum_path, EinsumError, PathOptions, PathReport};
use serde_json::{json, Value};

/// The plan of a numpy einsum: the path and each contraction's loops.
pub struct NumpyPlan {
    report: PathReport,
    /// Per contraction: its subscripts, FLOPs, result size and loop nest.
    steps: Vec<(String, u128, u128, String)>,
}

impl NumpyPlan {
    /// Plans `spec` on operands of `shapes` with the path options `opts`.
    pub fn new(spec: &str, shapes: &[&[usize]], opts: &PathOptions) -> Result<Self, EinsumError> {
        let report = einsum_path(spec, shapes, opts)?;
        let loops = loops(&report, shapes);
        let steps = report
            .contractions()
            .iter()
            .zip(loops)
            .map(|(c, l)| (c.einsum.clone(), c.flops, c.size, l))
            .collect();
        Ok(NumpyPlan { report, steps })
    }

    /// The plan as JSON: `path` (the report of `einrow path --json`) and `steps`, each with
    /// `einsum`, `flops`, `size` and `loops`.
    pub fn to_json(&self) -> Value {
        let steps: Vec<Value> = self
            .steps
            .iter()
            .map(|(e, flops, size, l)| {
                json!({"einsum": e, "flops": number(*flops), "size": number(*size), "loops": l})
            })
            .collect();
        json!({"path": self.report.to_json(), "steps": steps})
    }
}

fn number(x: u128) -> Value {
    u64::try_from(x).map_or_else(|_| json!(x as f64), |n| json!(n))
}

impl fmt::Display for NumpyPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "{}", self.report)?;
        for (k, (einsum, flops, size, l)) in self.steps.iter().enumerate() {
            writeln!(f, "step {k}: {einsum} ({flops} FLOPs, result of {size} elements)")?;
            writeln!(f, "  {l}")?;
        }
        Ok(())
    }
}

/// Each label's size: its largest size over the operands (1 broadcasts; 0 against 1 is 0).
fn label_sizes(equation: &str, shapes: &[&[usize]]) -> HashMap<char, usize> {
    let inputs = equation.split_once("->").map_or(equation, |(i, _)| i);
    let mut sizes: HashMap<char, usize> = HashMap::new();
    for (term, shape) in inputs.split(',').zip(shapes) {
        for (c, &n) in term.chars().zip(shape.iter()) {
            let e = sizes.entry(c).or_insert(n);
            if *e == 1 {
                *e = n;
            }
        }
    }
    sizes
}

/// The loop nest of each contraction: operands `x0`, `x1`, … (intermediates `t0`, `t1`, …,
/// the last result `out`); a broadcast axis of size 1 is indexed at 0.
fn loops(report: &PathReport, shapes: &[&[usize]]) -> Vec<String> {
    let sizes = label_sizes(report.equation(), shapes);
    let size = |c: char| sizes.get(&c).copied().unwrap_or(1);
    // Every tensor by its SSA id: operands, then each step's result.
    let mut list: Vec<(String, Vec<usize>)> =
        shapes.iter().enumerate().map(|(i, s)| (format!("x{i}"), s.to_vec())).collect();
    let steps = report.contractions();
    let mut out = Vec::with_capacity(steps.len());
    for ((k, c), ids) in steps.iter().enumerate().zip(report.ssa_path()) {
        let (ins, keep) = c.einsum.split_once("->").unwrap_or((c.einsum.as_str(), ""));
        // The subscripts list the operands by decreasing position, so by decreasing id.
        let mut order = ids;
        order.sort_unstable_by(|a, b| b.cmp(a));
        let mut labels: Vec<char> = keep.chars().collect();
        for ch in ins.chars().filter(|&ch| ch != ',') {
            if !labels.contains(&ch) {
                labels.push(ch);
            }
        }
        let head: Vec<String> =
            labels.iter().map(|&ch| format!("{ch} in 0..{}", size(ch))).collect();
        let args: Vec<String> = ins
            .split(',')
            .zip(order.iter().filter_map(|&p| list.get(p)))
            .map(|(term, (name, dims))| {
                let idx: Vec<String> = term
                    .chars()
                    .zip(dims)
                    .map(
                        |(ch, &d)| {
                            if d == 1 && size(ch) != 1 {
                                "0".into()
                            } else {
                                ch.to_string()
                            }
                        },
                    )
                    .collect();
                format!("{name}[{}]", idx.join(", "))
            })
            .collect();
        let name = if k + 1 == steps.len() { "out".to_string() } else { format!("t{k}") };
        let keep_idx: Vec<String> = keep.chars().map(String::from).collect();
        let head =
            if head.is_empty() { String::new() } else { format!("for {}: ", head.join(", ")) };
        // One operand and nothing summed: the step is a view of its operand (no loop runs).
        let view = order.len() == 1 && ins.chars().all(|ch| keep.contains(ch));
        out.push(if view {
            format!("{name}[{}] = {} (a view: no copy)", keep_idx.join(", "), args.join(""))
        } else {
            format!("{head}{name}[{}] += {}", keep_idx.join(", "), args.join(" * "))
        });
        list.push((name, keep.chars().map(size).collect()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use einrow::numpy::Optimize;

    #[test]
    fn loops_follow_the_path_and_index_broadcast_axes_at_zero() {
        let shapes: [&[usize]; 3] = [&[2, 3], &[3, 4], &[4, 5]];
        let plan = NumpyPlan::new("ij,jk,kl->il", &shapes, &PathOptions::new(Optimize::Greedy))
            .expect("plans");
        let shown = plan.to_string();
        assert!(shown.contains("Optimized FLOP count"), "{shown}");
        // Greedy contracts the second and third operands first (a 3x5 intermediate).
        assert!(shown.contains("step 0: kl,jk->jl (120 FLOPs, result of 15 elements)"), "{shown}");
        assert!(
            shown.contains("for j in 0..3, l in 0..5, k in 0..4: t0[j, l] += x2[k, l] * x1[j, k]"),
            "{shown}"
        );
        assert!(
            shown.contains("for i in 0..2, l in 0..5, j in 0..3: out[i, l] += t0[j, l] * x0[i, j]"),
            "{shown}"
        );
        let one: [&[usize]; 2] = [&[2, 1], &[3]];
        let plan = NumpyPlan::new("ij,j->i", &one, &PathOptions::default()).expect("plans");
        assert!(plan.to_string().contains("out[i] += x1[j] * x0[i, 0]"), "{plan}");
        assert_eq!(plan.to_json()["steps"][0]["size"], 2);
    }
}
