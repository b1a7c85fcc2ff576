//! The conformance runner behind `einrow check`.
//!
//! A case file is one JSON object with a `cases` list; each case has a `kind` that selects the
//! code that runs it. A kind einrow does not implement fails with "unsupported kind". The
//! format of case files, the runner's contract and the error codes are described in
//! [`format`](mod@format).

mod bounded;
mod case;
pub mod compare;
mod einsum;
pub mod format;
mod infer;
mod parse;
mod program;
mod runner;
mod tensorstore;
mod vespa;
mod view;

pub use bounded::{read_case, MAX_CASE_VALUES};
pub use case::{CaseOutcome, CaseResult};
pub use runner::{collect_files, run_case, run_file, run_file_with, RunError, MAX_WALK_ENTRIES};
