//! The conformance runner behind `einrow check` (the contract of `tests/conformance/FORMAT.md`).
//!
//! A case file is one JSON object with a `cases` list; each case has a `kind` that selects the
//! module below that runs it. A kind einrow does not implement fails with "unsupported kind".

mod case;
pub mod compare;
mod einsum;
mod infer;
mod parse;
mod runner;
mod tensorstore;
mod vespa;
mod view;

pub use case::{CaseOutcome, CaseResult};
pub use runner::{collect_files, run_case, run_file, run_file_with, RunError, MAX_WALK_ENTRIES};
