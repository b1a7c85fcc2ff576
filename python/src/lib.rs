//! `einrow` for Python: numpy's einsum over arrays read in place (`einsum`, `einsum_path`),
//! and einrow's shape engine for frameworks (`Graph`, `infer`, `parse`, plans compiled and
//! run on numpy arrays). The crate is the one source of truth; these bindings convert
//! arguments, map errors to Python exceptions, and release the GIL while the kernel runs.

mod arrays;
mod cache;
mod compiled_graph;
mod convert;
mod converting;
mod declare;
mod dispatch;
mod dtypes;
mod einsum;
mod errors;
mod expression;
mod expression_build;
mod expression_state;
mod fuzz;
mod graph;
mod graph_log;
mod handles;
mod keywords;
mod np;
mod operands;
mod order;
mod origin;
mod path;
mod plan;
mod program;
mod run;
mod scheme;
mod tensor;
mod threads;
mod training;
mod types;
mod vjp;

use pyo3::prelude::*;

#[pymodule]
fn _einrow(m: &Bound<'_, PyModule>) -> PyResult<()> {
    errors::register(m)?;
    m.add_function(wrap_pyfunction!(einsum::einsum, m)?)?;
    m.add_function(wrap_pyfunction!(vjp::einsum_vjp, m)?)?;
    m.add_function(wrap_pyfunction!(path::einsum_path, m)?)?;
    m.add_function(wrap_pyfunction!(expression::contract_expression, m)?)?;
    m.add_function(wrap_pyfunction!(program::infer, m)?)?;
    m.add_function(wrap_pyfunction!(program::parse, m)?)?;
    m.add_function(wrap_pyfunction!(threads::set_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(threads::get_num_threads, m)?)?;
    m.add_function(wrap_pyfunction!(fuzz::fuzz_draw, m)?)?;
    m.add_function(wrap_pyfunction!(fuzz::fuzz_mutate, m)?)?;
    m.add_function(wrap_pyfunction!(fuzz::fuzz_verdict, m)?)?;
    m.add_function(wrap_pyfunction!(fuzz::fuzz_evaluate, m)?)?;
    m.add_function(wrap_pyfunction!(origin::_remake, m)?)?;
    m.add_class::<graph::PyGraph>()?;
    m.add_class::<graph::PyTensor>()?;
    m.add_class::<handles::PyRowVar>()?;
    m.add_class::<handles::PyDim>()?;
    m.add_class::<scheme::PyScheme>()?;
    m.add_class::<scheme::PyInstance>()?;
    m.add_class::<compiled_graph::PyCompiledGraph>()?;
    m.add_class::<training::PyTraining>()?;
    m.add_class::<plan::PyPlan>()?;
    m.add_class::<plan::PyExecutable>()?;
    m.add_class::<expression::PyContractExpression>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
