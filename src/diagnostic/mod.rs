//! Diagnostics: errors and warnings with a code, a message, the place they point at, the
//! places that explain them, and hints; rendered as text for people or written as JSON for
//! tools (`--json` on `einrow parse`, `infer`, `run`, `check` and `path`).
//!
//! # Numbering
//!
//! Everywhere einrow counts, it counts as numpy does: operands from 0 (`operand 0` is the
//! first), axes of a row from 0 at the left (`axis 0`) or from -1 at the right (`axis -1` is
//! the last). Lines of a program count from 1, as editors show them. Spans are byte offsets
//! into the text they come with, `[start, end)`.
//!
//! # Text
//!
//! For the program `t.ein`
//!
//! ```text
//! tensor a
//! tensor src: 3
//! tensor other: 4
//! b = pointwise a src
//! c = pointwise_un b
//! d = einsum "i; i => i" c other
//! ```
//!
//! `einrow infer t.ein` prints
//!
//! ```text
//! error[mismatch]: dimension mismatch: `i` is 3 in `c` but 4 in `other`
//!   --> t.ein:6
//!   | d = einsum "i; i => i" c other
//!   |             ^ 3
//!   |                ^ 4
//!   = 3 comes from `src` (declared at line 2 as `3`), through `b` (line 4), `c` (line 5)
//!   = 4 comes from `other` (declared at line 3 as `4`)
//! ```
//!
//! The first line is the severity, the [code](crate::ErrorCode) and the message; `-->` names
//! the file and line; the source follows with carets under the primary place (and under related
//! places in the same text, with their notes); notes are `=` lines (for a size conflict, where
//! each size came from), and when there are none each other related place is one; hints are
//! `= help:` lines. `einrow infer --explain` (and `einrow run`) prints the related places as a
//! numbered list instead, each with its own line of source and carets: the chain of
//! declarations and steps that carried each size to the conflict
//! ([`Diagnostic::render_text`]).
//!
//! # JSON
//!
//! One diagnostic is one JSON object ([`Diagnostic::write_json`]):
//!
//! ```json
//! {
//!   "code": "mismatch",
//!   "severity": "error",
//!   "message": "dimension mismatch: `i` is 3 in `c` but 4 in `other`",
//!   "primary": {"file": "t.ein", "line": 6, "text": "d = einsum \"i; i => i\" c other",
//!               "span": [12, 13], "tensor": "c", "size": "3", "note": "3"},
//!   "related": [
//!     {"file": "t.ein", "line": 6, "text": "d = einsum \"i; i => i\" c other", "span": [15, 16],
//!      "tensor": "other", "size": "4", "note": "4"},
//!     {"file": "t.ein", "line": 2, "text": "tensor src: 3", "span": [12, 13],
//!      "tensor": "src", "size": "3", "note": "3 is written here, as `src`'s output axis 0"},
//!     {"file": "t.ein", "line": 4, "text": "b = pointwise a src", "span": [16, 19],
//!      "tensor": "b", "size": "3",
//!      "note": "`b`'s output axis -1 gets 3 from `src`'s output axis 0"},
//!     {"file": "t.ein", "line": 5, "text": "c = pointwise_un b", "span": [17, 18],
//!      "tensor": "c", "size": "3",
//!      "note": "`c`'s output axis -1 gets 3 from `b`'s output axis -1"},
//!     {"file": "t.ein", "line": 3, "text": "tensor other: 4", "span": [14, 15],
//!      "tensor": "other", "size": "4", "note": "4 is written here, as `other`'s output axis 0"}
//!   ],
//!   "notes": ["3 comes from `src` (declared at line 2 as `3`), through `b` (line 4), `c` (line 5)",
//!             "4 comes from `other` (declared at line 3 as `4`)"],
//!   "help": []
//! }
//! ```
//!
//! | key | value |
//! |---|---|
//! | `code` | the [error code](crate::check::format#error-codes) (`syntax`, `arity`, `name`, `label`, `mismatch`, …); a warning has the code its error would have |
//! | `severity` | `"error"` or `"warning"` |
//! | `message` | one sentence |
//! | `primary` | a location, or `null` when the diagnostic has no place |
//! | `related` | locations that explain it, in order; for a size conflict: the other sizes' carets at the conflict, then for each size where it was declared (or set, by `set_dim`) and each step that carried it, toward the conflict |
//! | `notes` | short lines summing up the related places (where each size came from, both operands' shapes) |
//! | `help` | hints, possibly none |
//!
//! A location ([`Location::write_json`]) has any of these keys, each left out when unknown:
//! `file`; `line` (from 1); `text` (the source line, or a spec given alone); `span` (`[start,
//! end]`, bytes into `text`); `tensor` (a tensor's name); `size` (a size or shape as a shape
//! string writes it: `3`, `rgb=3`, `1!`, `2|4->3`); `note`.
//!
//! # The documents of `--json`
//!
//! Each command with `--json` writes JSON lines on standard output (and nothing on standard
//! error); the exit status is as without `--json`.
//!
//! | command | lines |
//! |---|---|
//! | `einrow parse --json` | one: the spec's ROWS structure of the [case format](crate::check::format) with `"diagnostics"` added when there are warnings; `{"diagnostics": [...]}` when the spec does not parse |
//! | `einrow infer --json` | one: `{"ok": bool, "tensors": [{"name", "shape"}, ...], "diagnostics": [...]}`; `tensors` lists every name's shape when `ok` and is empty otherwise |
//! | `einrow run --json` | one: `{"ok": true, "shape": [...], "values": NESTED, "plan": ..., "timing": {"runs", "best_ms", "median_ms"}, "diagnostics": [...]}`; `values` left out with `--no-values`, `plan` only with `--plan` (an OCANNL spec's loops; for numpy subscripts `{"path": REPORT, "steps": [{"einsum", "flops", "size", "loops"}]}`), `timing` (and no result) only with `--bench`; with `--named`, `"type"` and Vespa's tensor JSON as `values` instead of `shape`; `{"ok": false, "diagnostics": [...]}` on an error |
//! | `einrow check --json` | one per case, `{"file", "id", "kind", "pass", "detail"}`; one per unreadable file, `{"file", "diagnostics": [...]}`; then `{"summary": {"passed", "failed", "unreadable"}}` |
//! | `einrow path --json` | the table, then the report as one object; `{"ok": false, "diagnostics": [...]}` on an error |
//!
//! Results are streamed: a program of a million tensors is written tensor by tensor, never
//! built as one JSON tree.

mod json;
mod lint;
mod model;
mod render;
mod source;
mod suggest;

pub use json::{write_json_list, write_json_str};
pub use lint::{Level, Lint};
pub use model::{Diagnostic, Location, Role, Severity};
pub use render::{render, Label};
pub use source::Source;
pub use suggest::{closest, edit_distance, relative_distance, MAX_RELATIVE_DISTANCE};
