//! The conformance runner behind `einrow check`.
//!
//! A case file is one JSON object with a `cases` list; each case has a `kind` that selects the
//! code that runs it. A kind einrow does not implement fails with "unsupported kind". The
//! format of case files, the runner's contract and the error codes are described in
//! [`format`](mod@format).
//!
//! Without the `kernel` feature the runner is left out (its cases hold values); what stays is
//! [`format`](mod@format), which documents the shape strings and error codes every build
//! shares, the reading of an `infer` case as a program
//! ([`Program::from_case`](crate::infer::program::Program::from_case)) and the comparisons
//! of expected and actual JSON ([`compare`]).

#[cfg(feature = "kernel")]
mod bounded;
mod case;
pub mod compare;
#[cfg(feature = "kernel")]
mod einsum;
pub mod format;
#[cfg(feature = "kernel")]
mod infer;
#[cfg(feature = "kernel")]
mod parse;
mod program;
#[cfg(feature = "kernel")]
mod runner;
#[cfg(feature = "kernel")]
mod tensorstore;
#[cfg(feature = "kernel")]
mod vespa;
#[cfg(feature = "kernel")]
mod view;

#[cfg(feature = "kernel")]
pub use bounded::{read_case, MAX_CASE_VALUES};
pub use case::{CaseOutcome, CaseResult};
#[cfg(feature = "kernel")]
pub use runner::{collect_files, run_case, run_file, run_file_with, RunError, MAX_WALK_ENTRIES};
