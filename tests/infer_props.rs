//! Property tests of shape inference: random well-formed programs are solved and the solution
//! passes the independent checker (and matches the forward model where that is determined);
//! solving is deterministic and independent of the order of independent steps; random and
//! malformed programs never make the solver panic.
#![cfg(feature = "fuzzing")]

use einrow::fuzzing::case_file::program_text;
use einrow::fuzzing::execution::check_execution;
use einrow::fuzzing::gen::{malformed_programs, programs, Choices, GenConfig, Generated};
use einrow::fuzzing::props::{
    check_deterministic, check_generated, check_order_independent, check_program, fails_like,
    fully_declared,
};
use einrow::fuzzing::shrink::{shrink_program, Edits};
use einrow::fuzzing::Failure;
use einrow::infer::program::Program;
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
