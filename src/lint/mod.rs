//! Front-end checks with hints, before anything is solved: errors stated with what was
//! probably meant (an unknown tensor or op with the closest name, an operand count with the
//! count expected, a `,` where `;` separates operand slots), and warnings (lints) about input
//! that works but probably does not say what was meant (a name defined twice, a result label
//! no operand has). `einrow parse`, `infer` and `run` print them; each lint has a name and a
//! [level](LintLevels) set on the command line or in a program.
//!
//! Locations point into the text the user wrote: a spec given alone, or a program's line
//! ([`Source`](crate::diagnostic::Source)); the [diagnostic](crate::diagnostic) model says how they print.

mod levels;
mod program;
mod spec;

pub use levels::{LintLevels, ALL_LINTS};
pub use program::{check_program, MAX_LISTED};
pub use spec::{einsum_lints, numpy_lints, slot_count, MAX_COMMAS_SHOWN, MAX_LABEL_LINTS};
