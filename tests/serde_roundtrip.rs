//! The `serde` feature: plans, gradient plans, schemes and compiled graphs written as JSON and
//! read back are the same objects (compiled graphs compute the same values on the same
//! buffers), with sizes 0, 1 and 2^62 among those drawn; and corrupt data read back is an
//! error, never a panic or an object that fails later.

#![cfg(feature = "serde")]

use einrow::ids::TensorId;
use einrow::infer::{Graph, InferError, Scheme, ShapeBuilder};
use einrow::project::{
    plan_einsum, CompiledGraph, Compute, Concrete, GradientPlan, IndexPlan, Training,
};
use proptest::prelude::*;
use serde_json::{json, Value};

#[path = "support/noise.rs"]
mod noise;

const HUGE: u64 = 1 << 62;

/// Sizes with the edges: 0, 1, 2 and 2^62 as often as ordinary ones.
fn size() -> impl Strategy<Value = u64> {
    prop_oneof![Just(0), Just(1), Just(2), 3u64..5, Just(HUGE)]
}

/// Einsum specs with their operands' shapes over the sizes `a`, `b`, `c`.
const SPECS: &[(&str, &[&str])] = &[
    ("ij;jk=>ik", &["a,b", "b,c"]),
    ("ii=>i", &["a,a"]),
    ("ij=>", &["a,b"]),
    ("i=>ii", &["a"]),
    ("ij=>i0", &["a,b"]),
    ("a;b=>a^b", &["a", "b"]),
    ("2*o<+k; k => o", &["a", "c"]),
    ("o=+k; k => o", &["a", "b"]),
    ("i;i;i=>i", &["a", "a", "a"]),
    ("bij;bjk=>bik", &["c,a,b", "c,b,a"]),
];

fn dims(shape: &str, s: [u64; 3]) -> Vec<u64> {
    let of = |c: &str| match c {
        "a" => s[0],
        "b" => s[1],
        _ => s[2],
    };
    shape.split(',').map(of).collect()
}

fn plan_for(which: usize, s: [u64; 3]) -> Option<IndexPlan> {
    let (spec, shapes) = SPECS[which];
    let ops: Vec<Concrete> = shapes.iter().map(|sh| Concrete::output(&dims(sh, s))).collect();
    plan_einsum(spec, &ops.iter().collect::<Vec<_>>()).ok()
}

fn round_trip<T: serde::Serialize + serde::de::DeserializeOwned>(x: &T) -> T {
    let text = serde_json::to_string(x).expect("serialises");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("reads back: {e}\n{text}"))
}

/// An MLP-like graph over inputs `batch`, features `i` and outputs `o`: its loss and
/// parameters.
fn mlp(
    g: &mut Graph,
    batch: &ShapeBuilder,
    [i, o]: [u64; 2],
) -> Result<(TensorId, [TensorId; 2]), InferError> {
    let x = g.input("x", batch)?;
    let w = g.parameter("w", &ShapeBuilder::new().input([i]).output([o]))?;
    let bias = g.parameter("bias", &ShapeBuilder::new().output([o]))?;
    let y = g.compose(w, x)?;
    let y = g.pointwise(&[y, bias])?;
    let s = g.einsum("...|o; ...|o => ...|", &[y, y])?;
    Ok((g.pointwise(&[s])?, [w, bias]))
}

fn train(g: &mut Graph, loss: TensorId, params: &[TensorId]) -> Option<Training> {
    let steps = g.steps().to_vec();
    let compute = |s: einrow::ids::StepId| {
        let s = &steps[s.index()];
        Compute::default_for(s.op, s.args.len())
    };
    Training::compile(g, loss, params, &compute).ok()
}

/// A training step and its copy read back are the same: the same form, buffers, and
/// gradients and loss from the same leaves (`lens`: each tensor's buffer length).
fn check_training(train: &Training, lens: &[usize], seed: u64) {
    let back: Training = round_trip(train);
    assert_eq!(serde_json::to_value(&back).ok(), serde_json::to_value(train).ok());
    let sizes = |t: &Training| (t.arena_len(), t.unplanned_len(), t.executable_count());
    assert_eq!(sizes(&back), sizes(train));
    let ids = |t: &Training| -> Vec<usize> {
        let ends = t.leaves().iter().chain(t.params()).copied().chain([t.loss()]);
        ends.map(|x| x.index()).collect()
    };
    assert_eq!(ids(&back), ids(train));
    let total = lens.iter().try_fold(0usize, |n, &k| n.checked_add(k));
    if total.is_none_or(|n| n > 1 << 16) {
        return;
    }
    let leaves: Vec<Vec<f64>> =
        train.leaves().iter().map(|t| values(seed ^ t.index() as u64, lens[t.index()])).collect();
    let run = |t: &Training| -> Option<(Vec<Vec<f64>>, Vec<f64>)> {
        let mut ws = t.workspace::<f64>().ok()?;
        let mut grads: Vec<Vec<f64>> =
            t.params().iter().map(|p| vec![0.0; lens[p.index()]]).collect();
        let refs: Vec<&[f64]> = leaves.iter().map(|v| &v[..]).collect();
        let mut outs: Vec<&mut [f64]> = grads.iter_mut().map(|g| &mut g[..]).collect();
        t.run(&mut ws, &refs, &mut outs, &mut ()).ok()?;
        let loss = ws.value(t, t.loss()).ok()?.to_vec();
        Some((grads, loss))
    };
    assert_eq!(run(train), run(&back));
}

/// A deterministic value stream.
fn values(seed: u64, n: usize) -> Vec<f64> {
    noise::xorshift(seed).take(n).map(|x| (x % 17) as f64 - 8.0).collect()
}

/// Runs two compiled graphs on copies of the same leaf values (when small enough) and
/// compares every buffer.
fn same_outputs(a: &CompiledGraph, b: &CompiledGraph, seed: u64) {
    assert_eq!(a.tensor_count(), b.tensor_count());
    let lens: Option<Vec<usize>> = a.tensor_ids().map(|t| a.tensor_len(t).ok()).collect();
    let total = lens.as_ref().and_then(|l| l.iter().try_fold(0usize, |n, &k| n.checked_add(k)));
    let (Some(lens), Some(..=65536)) = (lens, total) else { return };
    let mut xs: Vec<Vec<f64>> =
        lens.iter().enumerate().map(|(k, &n)| values(seed ^ k as u64, n)).collect();
    let mut ys = xs.clone();
    let ra = a.run(&mut xs.iter_mut().map(|v| &mut v[..]).collect::<Vec<_>>());
    let rb = b.run(&mut ys.iter_mut().map(|v| &mut v[..]).collect::<Vec<_>>());
    assert_eq!(ra.is_ok(), rb.is_ok());
    assert_eq!(xs, ys);
}

/// A compiled graph and its copy read back are the same: the same form, plans and outputs.
fn check_graph(program: &CompiledGraph, seed: u64) {
    let back: CompiledGraph = round_trip(program);
    assert_eq!(serde_json::to_value(&back).ok(), serde_json::to_value(program).ok());
    for (s, t) in program.step_ids().zip(back.step_ids()) {
        assert_eq!(program.plan(s).ok(), back.plan(t).ok());
    }
    for (s, t) in program.tensor_ids().zip(back.tensor_ids()) {
        assert_eq!(program.tensor_dims(s).ok(), back.tensor_dims(t).ok());
    }
    same_outputs(program, &back, seed);
}

/// A scheme and its copy read back are the same: the same form, shapes, leaves, warnings,
/// and instances with the same plans and outputs.
fn check_scheme(scheme: &Scheme, batch: &[u64], seed: u64) {
    let back: Scheme = round_trip(scheme);
    assert_eq!(serde_json::to_value(&back).ok(), serde_json::to_value(scheme).ok());
    for (s, t) in scheme.tensor_ids().zip(back.tensor_ids()) {
        assert_eq!(scheme.sym_shape(s).ok(), back.sym_shape(t).ok());
        assert_eq!(scheme.shape_string(s).ok(), back.shape_string(t).ok());
        assert_eq!(scheme.name(s).ok(), back.name(t).ok());
    }
    let leaves = |s: &Scheme| -> Vec<_> {
        s.leaves().into_iter().map(|(t, l, shape)| (t.index(), l, shape)).collect()
    };
    assert_eq!(leaves(scheme), leaves(&back));
    let warnings =
        |s: &Scheme| -> Vec<String> { s.warnings().iter().map(|w| w.to_string()).collect() };
    assert_eq!(warnings(scheme), warnings(&back));
    let (a, b) = (scheme.instantiate(&[batch]), back.instantiate(&[batch]));
    assert_eq!(a.as_ref().err().map(|e| e.to_string()), b.as_ref().err().map(|e| e.to_string()));
    let (Ok(a), Ok(b)) = (a, b) else { return };
    let (ca, cb) = (
        CompiledGraph::compile_instance_defaults(&a),
        CompiledGraph::compile_instance_defaults(&b),
    );
    assert_eq!(ca.is_ok(), cb.is_ok());
    if let (Ok(ca), Ok(cb)) = (ca, cb) {
        for (s, t) in ca.step_ids().zip(cb.step_ids()) {
            assert_eq!(ca.plan(s).ok(), cb.plan(t).ok());
        }
        same_outputs(&ca, &cb, seed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn plans_and_gradient_plans_round_trip(which in 0..SPECS.len(), s in [size(), size(), size()]) {
        let Some(plan) = plan_for(which, s) else { return Ok(()) };
        prop_assert_eq!(&round_trip(&plan), &plan);
        for k in 0..plan.operand_dims.len() {
            if let Ok(grad) = plan.gradient(k) {
                prop_assert_eq!(&round_trip(&grad), &grad);
            }
        }
    }

    #[test]
    fn compiled_graphs_round_trip(b in size(), i in size(), o in size(), seed in any::<u64>()) {
        let mut g = Graph::new();
        let Ok((loss, params)) = mlp(&mut g, &ShapeBuilder::new().batch([b]).output([i]), [i, o]) else {
            return Ok(());
        };
        if g.solve().is_err() {
            return Ok(());
        }
        if let Ok(program) = CompiledGraph::compile_defaults(&g) {
            check_graph(&program, seed);
            if let Some(t) = train(&mut g, loss, &params) {
                let lens: Vec<usize> = program.tensor_ids().map(|t| program.tensor_len(t).unwrap_or(usize::MAX)).collect();
                check_training(&t, &lens, seed);
            }
        }
    }

    #[test]
    fn schemes_round_trip(i in size(), o in size(), batch in proptest::collection::vec(size(), 0..3), seed in any::<u64>()) {
        let mut g = Graph::new();
        let v = g.row_var("batch");
        if mlp(&mut g, &ShapeBuilder::new().batch_var(v).output([i]), [i, o]).is_err() {
            return Ok(());
        }
        if let Ok(scheme) = g.solve_scheme(&[v]) {
            check_scheme(&scheme, &batch, seed);
        }
    }
}

#[cfg(feature = "fuzzing")]
proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    /// Generated programs of every operation (sizes near 2^62 among the extremes).
    #[test]
    fn compiled_graphs_of_generated_programs_round_trip(
        generated in einrow::fuzzing::programs(einrow::fuzzing::GenConfig { extreme_rate: 3, ..Default::default() }),
        seed in any::<u64>(),
    ) {
        let built = generated.program.build();
        if built.result.is_err() {
            return Ok(());
        }
        if let Ok(program) = CompiledGraph::compile_defaults(&built.graph) {
            check_graph(&program, seed);
        }
    }
}

/// Every number in a JSON value, by its path.
fn number_paths(v: &Value, at: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
    match v {
        Value::Number(_) => out.push(at.clone()),
        Value::Array(xs) => xs.iter().enumerate().for_each(|(i, x)| {
            at.push(json!(i));
            number_paths(x, at, out);
            at.pop();
        }),
        Value::Object(m) => m.iter().for_each(|(k, x)| {
            at.push(json!(k));
            number_paths(x, at, out);
            at.pop();
        }),
        _ => {}
    }
}

fn set_at(v: &mut Value, path: &[Value], to: Value) {
    let mut place = v;
    for p in path {
        place = match p {
            Value::String(k) => &mut place[k.as_str()],
            _ => &mut place[p.as_u64().unwrap_or(0) as usize],
        };
    }
    *place = to;
}

/// The JSON of `x` with the number at path `k` (modulo their count) set to `to`.
fn corrupt<T: serde::Serialize>(x: &T, k: usize, to: u64) -> Value {
    let mut v = serde_json::to_value(x).expect("serialises");
    let mut paths = Vec::new();
    number_paths(&v, &mut Vec::new(), &mut paths);
    if let Some(path) = paths.get(k % paths.len().max(1)) {
        set_at(&mut v, path, json!(to));
    }
    v
}

fn corrupt_size() -> impl Strategy<Value = u64> {
    prop_oneof![0u64..4, Just(HUGE), Just(HUGE + 1), Just(u32::MAX as u64), Just(u64::MAX)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any one number changed: reading back gives an error or an object whose uses give
    /// errors, never a panic.
    #[test]
    fn corrupt_numbers_never_panic(which in 0..SPECS.len(), k in any::<usize>(), to in corrupt_size(), seed in any::<u64>()) {
        if let Some(plan) = plan_for(which, [2, 3, 2]) {
            if let Ok(p) = serde_json::from_value::<IndexPlan>(corrupt(&plan, k, to)) {
                let _ = (p.to_string(), p.gradients(), p.compile());
            }
            if let Ok(grad) = plan.gradient(0) {
                let _ = serde_json::from_value::<GradientPlan>(corrupt(&grad, k, to));
            }
        }
        let mut g = Graph::new();
        let v = g.row_var("batch");
        mlp(&mut g, &ShapeBuilder::new().batch_var(v).output([3]), [3, 2]).expect("builds");
        let scheme = g.solve_scheme(&[v]).expect("a scheme");
        if let Ok(s) = serde_json::from_value::<Scheme>(corrupt(&scheme, k, to)) {
            exercise(&s, &[2], seed);
        }
        let conv = conv_scheme().expect("a scheme");
        if let Ok(s) = serde_json::from_value::<Scheme>(corrupt(&conv, k, to)) {
            exercise(&s, &[6], seed);
        }
        let inst = scheme.instantiate(&[&[2]]).expect("an instance");
        let program = CompiledGraph::compile_instance_defaults(&inst).expect("compiles");
        if let Ok(p) = serde_json::from_value::<CompiledGraph>(corrupt(&program, k, to)) {
            same_outputs(&p, &p, seed);
        }
        let (mut g, loss, params) = small_mlp();
        let t = train(&mut g, loss, &params).expect("a training step");
        if let Ok(t) = serde_json::from_value::<Training>(corrupt(&t, k, to)) {
            let lens: Vec<usize> = program.tensor_ids().map(|t| program.tensor_len(t).unwrap_or(0)).collect();
            if t.leaves().len() == 3 && t.params().len() == 2 {
                check_training(&t, &lens, seed);
            }
        }
    }
}

/// Uses a scheme read back from corrupt data: whatever it holds, errors but no panic.
fn exercise(s: &Scheme, batch: &[u64], seed: u64) {
    for t in s.tensor_ids() {
        let _ = (s.sym_shape(t), s.shape_string(t), s.name(t));
    }
    let _ = (s.leaves(), s.warnings().iter().map(|w| w.to_string()).collect::<Vec<_>>());
    if let Ok(inst) = s.instantiate(&[batch]) {
        if let Ok(program) = CompiledGraph::compile_instance_defaults(&inst) {
            same_outputs(&program, &program, seed);
        }
    }
}

fn matmul() -> IndexPlan {
    plan_einsum("ij;jk=>ik", &[&Concrete::output(&[2, 3]), &Concrete::output(&[3, 4])])
        .expect("plans")
}

#[track_caller]
fn rejected<T: serde::de::DeserializeOwned>(v: Value, says: &str) {
    match serde_json::from_value::<T>(v) {
        Ok(_) => panic!("corrupt data was read back"),
        Err(e) => assert!(e.to_string().contains(says), "{e}"),
    }
}

/// `v` with one edit.
fn edit(v: &Value, f: impl FnOnce(&mut Value)) -> Value {
    let mut w = v.clone();
    f(&mut w);
    w
}

#[test]
fn plans_whose_indices_overrun_their_axes_or_sizes_pass_2_62_are_rejected() {
    let v = serde_json::to_value(matmul()).expect("serialises");
    rejected::<IndexPlan>(edit(&v, |w| w["parts"][0]["loops"][0]["size"] = json!(5)), "size 2");
    rejected::<IndexPlan>(edit(&v, |w| w["result_dims"] = json!([2, 5])), "size 5");
    rejected::<IndexPlan>(edit(&v, |w| w["operand_dims"][0][0] = json!(HUGE + 1)), "above 2^62");
}

#[test]
fn a_plan_indexing_missing_loops_or_operands_is_rejected() {
    let v = serde_json::to_value(matmul()).expect("serialises");
    rejected::<IndexPlan>(
        edit(&v, |w| w["parts"][0]["result"][0] = json!({"iter": 7})),
        "over 3 loops",
    );
    let operand = |w: &mut Value| w["parts"][0]["operands"][1]["operand"] = json!(2);
    rejected::<IndexPlan>(edit(&v, operand), "out of order or range");
    let index = |w: &mut Value| w["parts"][0]["operands"][0]["index"] = json!([{"iter": 0}]);
    rejected::<IndexPlan>(edit(&v, index), "axis indices for 2 axes");
    rejected::<IndexPlan>(edit(&v, |w| w["bijective"] = json!(true)), "each result element once");
}

#[test]
fn a_gradient_plan_with_other_inputs_is_rejected() {
    let grad = matmul().gradient(1).expect("a gradient");
    let v = serde_json::to_value(&grad).expect("serialises");
    rejected::<GradientPlan>(edit(&v, |w| w["inputs"] = json!(["Cotangent"])), "lists 1 inputs");
    let swapped = |w: &mut Value| w["inputs"] = json!([{"Operand": 0}, "Cotangent"]);
    rejected::<GradientPlan>(edit(&v, swapped), "gradient input 0");
}

fn small_mlp() -> (Graph, TensorId, [TensorId; 2]) {
    let mut g = Graph::new();
    let (loss, params) =
        mlp(&mut g, &ShapeBuilder::new().batch([2]).output([3]), [3, 2]).expect("builds");
    g.solve().expect("solves");
    (g, loss, params)
}

#[test]
fn a_training_step_whose_ends_are_not_its_graphs_is_rejected() {
    let (mut g, loss, params) = small_mlp();
    let t = train(&mut g, loss, &params).expect("a training step");
    let v = serde_json::to_value(&t).expect("serialises");
    rejected::<Training>(edit(&v, |w| w["loss"] = json!(99)), "the loss is tensor 99");
    rejected::<Training>(edit(&v, |w| w["params"] = json!([3])), "parameter 3 is not a leaf");
    rejected::<Training>(edit(&v, |w| w["graph"]["steps"][0]["plan"] = json!(7)), "names plan 7");
}

#[test]
fn a_compiled_graph_whose_plans_do_not_chain_is_rejected() {
    let program = CompiledGraph::compile_defaults(&small_mlp().0).expect("compiles");
    let v = serde_json::to_value(&program).expect("serialises");
    rejected::<CompiledGraph>(
        edit(&v, |w| w["dims"][0] = json!([2, 4])),
        "not a leaf or earlier result of its plan's sizes",
    );
    rejected::<CompiledGraph>(edit(&v, |w| w["steps"][0]["plan"] = json!(99)), "names plan 99");
    let swapped = |w: &mut Value| w["steps"].as_array_mut().expect("steps").swap(0, 1);
    rejected::<CompiledGraph>(edit(&v, swapped), "reads tensor");
    rejected::<CompiledGraph>(
        edit(&v, |w| w["steps"][1]["out"] = w["steps"][0]["out"].clone()),
        "writes tensor",
    );
    rejected::<CompiledGraph>(edit(&v, |w| w["dims"][1] = json!([HUGE + 1])), "above 2^62");
}

#[test]
fn a_scheme_whose_forms_do_not_fit_is_rejected() {
    let mut g = Graph::new();
    let v = g.row_var("batch");
    mlp(&mut g, &ShapeBuilder::new().batch_var(v).output([3]), [3, 2]).expect("builds");
    let scheme = g.solve_scheme(&[v]).expect("a scheme");
    let v = serde_json::to_value(&scheme).expect("serialises");
    rejected::<Scheme>(edit(&v, |w| w["items"][0] = json!({"Var": 5})), "over 1 variables");
    rejected::<Scheme>(
        edit(&v, |w| w["tensors"][0]["rows"][0] = json!([u32::MAX, 2, 0])),
        "rows are not within the items",
    );
    rejected::<Scheme>(
        edit(&v, |w| w["steps"][0]["args"][0] = json!(1000)),
        "does not fit the scheme's tensors",
    );
    let step = v["steps"].as_array().expect("steps").iter().position(|s| !s["spec"].is_null());
    let step = step.expect("a spec step");
    let garbage = edit(&v, |w| w["steps"][step]["spec"]["text"] = json!("ij;;=>("));
    assert!(serde_json::from_value::<Scheme>(garbage).is_err());
    rejected::<Scheme>(
        edit(&v, |w| w["steps"][step]["spec"]["labels"] = json!([])),
        "labels do not match",
    );
    rejected::<Scheme>(edit(&v, |w| w["vars"][0]["min"] = json!(HUGE + 1)), "needs at least");
    let renamed = |w: &mut Value| w["steps"][step]["spec"]["labels"][0] = json!("zz");
    rejected::<Scheme>(edit(&v, renamed), "has no label `zz`");
}

/// A scheme with an axis computed from its variable (a convolution over the batch), a fixed
/// index into the variable's axis, and a parameter that takes the batch (a warning).
fn conv_scheme() -> Result<Scheme, InferError> {
    let mut g = Graph::new();
    let v = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(v).output([3]))?;
    let k = g.input("k", &ShapeBuilder::array([2]))?;
    let y = g.einsum("s<+j|i; j => s|i", &[x, k])?;
    g.permute("4|i => i", x)?;
    let b = g.parameter("b", &ShapeBuilder::unknown())?;
    g.pointwise(&[y, b])?;
    g.solve_scheme(&[v])
}

#[test]
fn schemes_with_computed_axes_fixed_indices_and_warnings_round_trip() {
    let scheme = conv_scheme().expect("a scheme");
    let v = serde_json::to_value(&scheme).expect("serialises");
    assert!(v["items"].as_array().expect("items").iter().any(|i| i.get("Affine").is_some()), "{v}");
    assert_eq!(v["vars"][0]["rank_fixed"], json!(true));
    assert!(!scheme.warnings().is_empty());
    for batch in [[5], [6], [4], [0], [HUGE]] {
        check_scheme(&scheme, &batch, 7);
    }
    let back: Scheme = round_trip(&scheme);
    assert_eq!(back.min_size(0), scheme.min_size(0));
    assert!(back.is_rank_fixed(0));
    rejected::<Scheme>(edit(&v, |w| w["vars"][0]["rank_fixed"] = json!(false)), "Affine");
}
