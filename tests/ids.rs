//! Tensor and step ids belong to the graph that made them: used on another graph, or past the
//! tensors or steps a scheme or compiled graph has, every lookup is a `name` error — never a
//! silent reference to another tensor, an empty answer or a panic.

use einrow::code::{Coded, ErrorCode};
use einrow::infer::{Graph, InferError, ShapeBuilder};
use einrow::project::{derive_plan, Compute, ProjectError};
use einrow::spec::ast::RowKind;

/// Two graphs of the same shape: ids of one have the same indices as the other's.
fn twins() -> (Graph, Graph) {
    let build = || {
        let mut g = Graph::new();
        let x = g.input("x", &ShapeBuilder::new().batch([2]).output([3])).expect("declares");
        let w = g.parameter("w", &ShapeBuilder::new().input([3]).output([4])).expect("declares");
        g.compose(w, x).expect("adds");
        g.solve().expect("solves");
        g
    };
    (build(), build())
}

fn code<T: std::fmt::Debug>(r: Result<T, InferError>) -> ErrorCode {
    r.expect_err("an id of another graph").code()
}

fn project_code<T: std::fmt::Debug>(r: Result<T, ProjectError>) -> ErrorCode {
    r.expect_err("an id of another graph").code()
}

#[test]
fn ids_of_another_graph_are_name_errors_everywhere() {
    let (mut g, other) = twins();
    let foreign: Vec<_> = other.tensor_ids().collect();
    let foreign_step = other.step_ids().next().expect("a step");
    let t = foreign[2];
    assert_eq!(code(g.name(t)), ErrorCode::Name);
    assert_eq!(code(g.tensor(t)), ErrorCode::Name);
    assert_eq!(code(g.shape(t)), ErrorCode::Name);
    assert_eq!(code(g.dims(t)), ErrorCode::Name);
    assert_eq!(code(g.sizes(t)), ErrorCode::Name);
    assert_eq!(code(g.shape_string(t)), ErrorCode::Name);
    assert_eq!(code(g.producer(t)), ErrorCode::Name);
    assert_eq!(code(g.set_name(t, "y")), ErrorCode::Name);
    assert_eq!(code(g.row_of(foreign[0], RowKind::Batch)), ErrorCode::Name);
    assert_eq!(code(g.total_elems(t, 8)), ErrorCode::Name);
    assert_eq!(code(g.equal_shapes(foreign[0], foreign[0])), ErrorCode::Name);
    assert_eq!(code(g.pointwise(&[t])), ErrorCode::Name);
    assert_eq!(code(g.step_labels(foreign_step)), ErrorCode::Name);
    let plan =
        derive_plan(&g, foreign_step, Compute::default_for(einrow::infer::OpKind::Compose, 2), 0);
    assert_eq!(project_code(plan), ErrorCode::Name);
    assert!(g.solved_shape(t, RowKind::ALL, &mut |_| {}).is_none());
    // Nothing was added or renamed by the refused calls.
    assert_eq!((g.tensor_count(), g.steps().len()), (3, 1));
    let own: Vec<_> = g.tensor_ids().collect();
    assert_eq!(g.name(own[2]).expect("its own").as_str(), "t2");
    let message = g.name(t).expect_err("foreign").to_string();
    assert!(message.contains("another graph"), "{message}");
}

#[cfg(feature = "kernel")]
#[test]
fn compiled_graphs_check_ids() {
    let (g, other) = twins();
    let foreign: Vec<_> = other.tensor_ids().collect();
    let foreign_step = other.step_ids().next().expect("a step");
    let program = einrow::project::CompiledGraph::compile_defaults(&g).expect("compiles");
    assert_eq!(project_code(program.tensor_dims(foreign[2])), ErrorCode::Name);
    assert_eq!(project_code(program.tensor_len(foreign[2])), ErrorCode::Name);
    assert_eq!(project_code(program.executable(foreign_step)), ErrorCode::Name);
    let own: Vec<_> = program.tensor_ids().collect();
    assert_eq!(program.tensor_dims(own[2]).expect("its own"), &[2, 4]);
    assert!(program.executable(program.step_ids().next().expect("a step")).is_ok());
}

#[test]
fn schemes_and_instances_check_ids() {
    let (_, other) = twins();
    let foreign: Vec<_> = other.tensor_ids().collect();
    let foreign_step = other.step_ids().next().expect("a step");
    let mut g = Graph::new();
    let batch = g.row_var("batch");
    let x = g.input("x", &ShapeBuilder::new().batch_var(batch).output([3])).expect("declares");
    let y = g.pointwise(&[x]).expect("adds");
    let scheme = g.solve_scheme(&[batch]).expect("solves");
    let inst = scheme.instantiate(&[&[5]]).expect("instantiates");
    assert_eq!(scheme.shape_string(y).expect("its own"), "..batch..|3");
    assert_eq!(code(scheme.shape_string(foreign[1])), ErrorCode::Name);
    assert_eq!(code(scheme.name(foreign[1])), ErrorCode::Name);
    assert_eq!(code(inst.sizes(foreign[1])), ErrorCode::Name);
    assert_eq!(code(inst.memory_dims(foreign[1])), ErrorCode::Name);
    assert_eq!(code(inst.label_sizes(foreign_step)), ErrorCode::Name);
    // A tensor added after the scheme was solved: a graph id the scheme does not have.
    let z = g.pointwise(&[y]).expect("adds");
    assert_eq!(code(scheme.shape_string(z)), ErrorCode::Name);
    assert_eq!(code(inst.sizes(z)), ErrorCode::Name);
    assert_eq!(inst.sizes(y).expect("its own").batch, [5]);
}

/// A graph rebuilt from its record (a failed step is undone) keeps its identity: ids given
/// out before the failure stay valid.
#[test]
fn ids_survive_an_undone_step() {
    let mut g = Graph::new();
    let a = g.declare("a", Some("2,3"), false).expect("declares");
    let b = g.declare("b", Some("4,5"), false).expect("declares");
    g.einsum("ij;jk=>ik", &[a, b]).expect_err("3 against 4");
    assert_eq!(g.name(a).expect("still ours").as_str(), "a");
    let c = g.einsum("ij;kj=>ik", &[a, a]).expect("adds");
    g.solve().expect("solves");
    assert_eq!(g.shape_string(c).expect("ours"), "2,2");
}
