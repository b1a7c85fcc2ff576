//! Property tests of shape inference: random well-formed programs are solved and the solution
//! passes the independent checker (and matches the forward model where that is determined);
//! solving is deterministic and independent of the order of independent steps; random and
//! malformed programs never make the solver panic.
#![cfg(feature = "fuzzing")]

use einrow::fuzzing::case_file::program_text;
use einrow::fuzzing::execution::check_execution;
use einrow::fuzzing::fit::{result_from_operands, spec_with_shapes};
use einrow::fuzzing::gen::{malformed_programs, programs, Choices, GenConfig, Generated};
use einrow::fuzzing::props::Outcome;
use einrow::fuzzing::props::{
    check_deterministic, check_generated, check_order_independent, check_program, fails_like,
    fully_declared,
};
use einrow::fuzzing::shrink::{shrink_program, Edits};
use einrow::fuzzing::specs::einsum_spec_ast;
use einrow::fuzzing::Failure;
use einrow::infer::program::{Decl, Program, Stmt};
use einrow::infer::OpKind;
use einrow::spec::ast::{AxisKind, EinsumSpec, RowKind};
use proptest::prelude::*;

/// The failure with the program shrunk (structural edits keep it satisfiable) and printed.
fn fail(f: Failure, g: &Generated) -> TestCaseError {
    let small =
        shrink_program(&g.program, Edits::Structural, 500, &mut |p| fails_like(f.kind, g, p));
    let again = check_generated(&Generated { program: small.clone(), ..g.clone() }).err();
    let f = again.filter(|a| a.kind == f.kind).unwrap_or(f);
    TestCaseError::fail(format!("{f}\n{}", program_text(&small)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn declared_programs_solve_and_check(g in programs(GenConfig::default())) {
        check_generated(&g).map_err(|f| fail(f, &g))?;
    }

    #[test]
    fn opened_programs_check(g in programs(GenConfig::opened())) {
        check_generated(&g).map_err(|f| fail(f, &g))?;
    }

    #[test]
    fn in_place_reads_agree_with_the_solution(g in programs(GenConfig::opened())) {
        let built = g.program.build();
        prop_assume!(built.result.is_ok());
        let graph = &built.graph;
        for t in graph.tensor_ids() {
            let mut pushed = Vec::new();
            let rows = graph.solved_shape(t, RowKind::ALL, &mut |s| pushed.push(s));
            match graph.dims(t) {
                Ok(dims) => {
                    let rows = rows.ok_or_else(|| TestCaseError::fail(format!("{t} not read")))?;
                    let all: Vec<_> = dims.iter().flatten().copied().collect();
                    prop_assert_eq!(&pushed, &all, "{}", program_text(&g.program));
                    let lens: Vec<usize> = rows.iter().map(|r| r.0).collect();
                    let want: Vec<usize> = dims.iter().map(Vec::len).collect();
                    prop_assert_eq!(lens, want);
                }
                Err(_) => prop_assert!(rows.is_none(), "{t} read but not solved"),
            }
        }
    }

    #[test]
    fn malformed_programs_never_panic(p in malformed_programs(6)) {
        check_program(&p).map_err(|f| TestCaseError::fail(format!("{f}\n{}", program_text(&p))))?;
    }

    #[test]
    fn solving_is_deterministic(g in programs(GenConfig::opened())) {
        check_deterministic(&g.program).map_err(|f| fail(f, &g))?;
    }

    #[test]
    fn order_of_independent_steps_does_not_matter(
        g in programs(GenConfig::default()),
        order in proptest::collection::vec(any::<u32>(), 0..32),
    ) {
        prop_assume!(fully_declared(&g.program) && !g.capped);
        check_order_independent(&g.program, &mut Choices::new(&order)).map_err(|f| fail(f, &g))?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn execution_matches_the_naive_reference(
        g in programs(GenConfig::default()),
        data in proptest::collection::vec(any::<u32>(), 0..512),
    ) {
        let run = |p: &Program| check_execution(p, &mut Choices::new(&data));
        if let Err(f) = run(&g.program) {
            let kind = f.kind;
            let small = shrink_program(&g.program, Edits::Structural, 300, &mut |p| run(p).is_err_and(|e| e.kind == kind));
            let f = run(&small).err().unwrap_or(f);
            return Err(TestCaseError::fail(format!("{f}\n{}", program_text(&small))));
        }
    }
}

/// Random einsum specs, half of them with results named only from their operands.
fn consistent_specs() -> impl Strategy<Value = EinsumSpec> {
    (einsum_spec_ast(), any::<bool>()).prop_map(|(mut spec, fix)| {
        if fix {
            result_from_operands(&mut spec);
        }
        spec
    })
}

/// Whether a spec has strided, convolution or concatenation axes (whose sizes the solver may
/// settle differently from the random fit, e.g. a discardable component as 0).
fn arithmetic(spec: &EinsumSpec) -> bool {
    spec.rhs.iter().chain([&spec.lhs]).any(|s| {
        s.rows().any(|(_, r)| {
            r.axes().any(|a| matches!(a.kind, AxisKind::Affine(_) | AxisKind::Concat(_)))
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1024))]

    /// Random specs (both lexer modes) on operands that fit them: no panic, a solution passes
    /// the checker, and where the result is determined (and no arithmetic axis), it is solved
    /// to it.
    #[test]
    fn random_specs_on_fitting_shapes((spec, fitted) in spec_with_shapes(consistent_specs())) {
        let Some((operands, result)) = fitted else { return Ok(()) };
        let op = match spec.rhs.len() {
            1 => OpKind::Permute,
            2 => OpKind::Einsum,
            _ => OpKind::Einsum3,
        };
        let decls = operands
            .iter()
            .enumerate()
            .map(|(i, s)| Decl { name: format!("x{i}"), shape: Some(s.to_string()), param: false, values: None, line: i })
            .collect();
        let args = (0..operands.len()).map(|i| format!("x{i}")).collect();
        let stmt = Stmt { op, out: "t".into(), args, spec: Some(spec.to_string()), accum: None, combine: None, line: 0 };
        let p = Program { decls, stmts: vec![stmt] };
        let outcome = check_program(&p).map_err(|f| TestCaseError::fail(format!("{f}\n{}", program_text(&p))))?;
        if let (Some(want), false) = (result, arithmetic(&spec)) {
            let Outcome::Solved(sol) = outcome else {
                return Err(TestCaseError::fail(format!("rejected: {outcome:?}\n{}", program_text(&p))));
            };
            let got = sol.get("t").cloned().unwrap_or_default();
            prop_assert!(want.same_flat(&got), "expected {}, solved {}\n{}", want, got, program_text(&p));
        }
    }
}
