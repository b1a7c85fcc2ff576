//! The linear work budget of the program campaigns: inference must take time about linear in
//! the program. The work of building and solving a program is counted by the solver
//! ([`Graph::work`](crate::infer::Graph::work): constraints processed and copies made for
//! careful trials, the same on every run), and a program whose work exceeds a budget in
//! proportion to its text is a finding ([`FailureKind::Slow`]), shrunk and written like any
//! other; never a timed assertion, so a finding reproduces on any machine.

use std::panic::{catch_unwind, AssertUnwindSafe};

use super::case_file::program_text;
use super::props::{panic_message, Failure, FailureKind};
use crate::infer::program::Program;

/// The work a program may take: `per_byte` units per byte of its text, plus `base`.
///
/// The default leaves room for what linear inference does: one solve, a careful replay whose
/// trials are bounded by [`CAREFUL_COPIES`](crate::infer::CAREFUL_COPIES) copies of the solver,
/// and the replays of the search over open row lengths. The programs the generator draws take
/// at most about 25 units a byte (`examples/generated_scale.rs` reports the largest), ten
/// times below it; work that grows faster than the program crosses it as programs grow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WorkBudget {
    /// Units of work per byte of program text.
    pub per_byte: u64,
    /// Units of work any program may take.
    pub base: u64,
}

impl Default for WorkBudget {
    fn default() -> WorkBudget {
        WorkBudget { per_byte: 256, base: 1_000 }
    }
}

impl WorkBudget {
    /// The work allowed to a program of `bytes` bytes of text.
    pub fn allowed(&self, bytes: usize) -> u64 {
        self.per_byte.saturating_mul(bytes as u64).saturating_add(self.base)
    }
}

/// The work of building and solving `p` ([`Graph::work`](crate::infer::Graph::work)), and the
/// bytes of its text.
pub fn program_work(p: &Program) -> Result<(u64, usize), Failure> {
    let bytes = program_text(p).len();
    let work = catch_unwind(AssertUnwindSafe(|| p.build().graph.work()))
        .map_err(|payload| Failure::new(FailureKind::Panic, panic_message(&*payload)))?;
    Ok((work, bytes))
}

/// Builds and solves `p` and checks that its work is within `budget` for its size: else a
/// [`FailureKind::Slow`] failure saying by how much.
pub fn check_work(p: &Program, budget: WorkBudget) -> Result<(), Failure> {
    let (work, bytes) = program_work(p)?;
    let allowed = budget.allowed(bytes);
    if work <= allowed {
        return Ok(());
    }
    let statements = p.decls.len() + p.stmts.len();
    Err(Failure::new(
        FailureKind::Slow,
        format!(
            "inference did {work} units of work on a program of {statements} statements \
             ({bytes} bytes), over the linear budget of {allowed} ({} a byte, plus {})",
            budget.per_byte, budget.base
        ),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_is_linear_in_the_text() {
        let b = WorkBudget { per_byte: 3, base: 10 };
        assert_eq!((b.allowed(0), b.allowed(100)), (10, 310));
        assert_eq!(WorkBudget { per_byte: u64::MAX, base: 1 }.allowed(2), u64::MAX);
    }

    #[test]
    fn a_program_over_its_budget_is_a_slow_finding() {
        let p = Program::parse_text("tensor a: 2,3\ntensor b: 3,4\nc = compose b a\n").unwrap();
        let (work, bytes) = program_work(&p).unwrap();
        assert!(work > 0 && bytes > 0);
        assert_eq!(check_work(&p, WorkBudget::default()), Ok(()));
        let tight = WorkBudget { per_byte: 0, base: work - 1 };
        let f = check_work(&p, tight).unwrap_err();
        assert_eq!(f.kind, FailureKind::Slow);
        assert!(f.message.contains(&format!("{work} units of work")), "{f}");
        assert_eq!(check_work(&p, WorkBudget { per_byte: 0, base: work }), Ok(()));
    }
}
