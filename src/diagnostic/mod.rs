//! Diagnostics: errors and warnings with a code, a message, the place they point at, the
//! places that explain them, and hints; rendered as text for people or written as JSON for
//! tools (`--json` on `einrow parse`, `infer`, `run`, `check` and `path`).
//!
//! # Numbering
//!
//! Everywhere einrow counts, it counts as numpy does: operands from 0 (`operand 0` is the
//! first), axes of a row from 0 at the left (`axis 0`) or from -1 at the right (`axis -1` is
//! the last). Lines of a program count from 1, as editors show them, and so do columns,
//! counted in characters. Spans are byte offsets into the text they come with,
//! `[start, end)`; in JSON each end also has its line and column.
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
//!   --> t.ein:6:13
//!   | d = einsum "i; i => i" c other
//!   |             ^ 3
//!   |                ^ 4
//!   = 3 comes from `src` (declared at line 2 as `3`), through `b` (line 4), `c` (line 5)
//!   = 4 comes from `other` (declared at line 3 as `4`)
//! ```
//!
//! The first line is the severity, the [code](crate::ErrorCode) and the message; `-->` names
//! the file, line and column; the source follows with carets under the primary place (and under related
//! places in the same text, with their notes); notes are `=` lines (for a size conflict, where
//! each size came from), and when there are none each other related place is one; hints are
//! `= help:` lines. `einrow infer --explain` (and `einrow run`) prints the related places as a
//! numbered list instead, each with its own line of source and carets: the chain of
//! declarations and steps that carried each size to the conflict
//! ([`Diagnostic::render_text`]).
//!
//! # JSON
//!
//! Every command with `--json` (`einrow parse`, `infer`, `run`, `path`, `check`) writes one
//! JSON document on one line of standard output, nothing on standard error, and exits with
//! the status it has without `--json`. Every document has the same envelope; the schema is
//! `docs/diagnostics.schema.json` in the repository (JSON Schema 2020-12), and a test checks
//! every command's output against it.
//!
//! | key | value |
//! |---|---|
//! | `version` | `1`, the version of this layout ([`JSON_VERSION`]): it changes when a key changes meaning or goes away |
//! | `command` | `"parse"`, `"infer"`, `"run"`, `"path"` or `"check"` |
//! | the command's own keys | below |
//! | `ok` | whether the command succeeded (its exit status is 0) |
//! | `diagnostics` | every error and warning, in order, each an object as below |
//!
//! | command | its own keys |
//! |---|---|
//! | `parse` | `spec`: the spec's ROWS structure of the [case format](crate::check::format) (numpy subscripts: `inputs`, `output`), `null` on an error |
//! | `infer` | `tensors`: `[{"name", "shape"}, ...]`, every name's shape when `ok`, empty otherwise |
//! | `run` | `shape` and `values` (nested arrays; left out with `--no-values`), or with `--named` `type` and Vespa's tensor JSON as `values`; `plan` with `--plan` (an OCANNL spec's loops; for numpy subscripts `{"path": REPORT, "steps": [{"einsum", "flops", "size", "loops"}]}`); `timing` (`{"runs", "best_ms", "median_ms"}`, and no result) with `--bench`; none of these on an error |
//! | `path` | `report`: numpy's `einsum_path` report (`path`, `opt_flops`, `naive_flops`, …), `null` on an error; the human table is not printed |
//! | `check` | `cases`: one `{"file", "id", "kind", "pass", "detail"}` per case run, in order; `summary`: `{"passed", "failed", "unreadable"}`; a file that cannot be read (`io`) or is no case file (`syntax`) is a diagnostic at that file |
//!
//! Results are streamed: a program of a million tensors is written tensor by tensor, and
//! `check`'s cases as they run, never built as one JSON tree.
//!
//! One diagnostic is one JSON object ([`Diagnostic::write_json`]); every key is always
//! present, `null` (or empty) when there is nothing to say:
//!
//! ```json
//! {
//!   "code": "mismatch", "severity": "error", "lint": null,
//!   "message": "dimension mismatch: `i` is 3 in `c` but 4 in `other`",
//!   "primary": {"file": "t.ein", "line": 6, "text": "d = einsum \"i; i => i\" c other",
//!               "span": {"start": {"line": 6, "column": 13, "byte": 12},
//!                        "end": {"line": 6, "column": 14, "byte": 13}},
//!               "pointer": null, "tensor": "c", "size": "3", "note": "3", "role": "conflict"},
//!   "related": [
//!     {"file": "t.ein", "line": 6, "span": {...}, "tensor": "other", "size": "4", "note": "4",
//!      "role": "conflict", ...},
//!     {"file": "t.ein", "line": 2, "text": "tensor src: 3", "span": {...}, "tensor": "src",
//!      "size": "3", "note": "3 is written here, as `src`'s output axis 0", "role": "origin", ...},
//!     {"file": "t.ein", "line": 4, "text": "b = pointwise a src", "span": {...}, "tensor": "b",
//!      "size": "3", "note": "`b`'s output axis -1 gets 3 from `src`'s output axis 0",
//!      "role": "via", ...},
//!     ...
//!   ],
//!   "notes": ["3 comes from `src` (declared at line 2 as `3`), through `b` (line 4), `c` (line 5)",
//!             "4 comes from `other` (declared at line 3 as `4`)"],
//!   "help": []
//! }
//! ```
//!
//! | key | value |
//! |---|---|
//! | `code` | the [error code](crate::check::format#error-codes) (`syntax`, `arity`, `name`, `label`, `mismatch`, …), or for a lint's warning the lint's name (`redefined-tensor`, `unsized-label`, …: [`Lint`]); `einrow explain CODE` describes each |
//! | `severity` | `"error"` or `"warning"` (a denied lint is an error) |
//! | `message` | one sentence |
//! | `lint` | the lint's name for a lint's diagnostic, else `null` |
//! | `primary` | a location (its `role` is `conflict` for a side of a conflict, else `primary`), or `null` when the diagnostic has no place |
//! | `related` | locations that explain it, in order, each positioned (a line, a span or a pointer) and tagged with its `role`: `conflict` (the other side's caret at the conflict), `origin` (a declaration or setting that writes a size, a first definition), `via` (a step that carried or computed it), `also` (another place of the same slip) |
//! | `notes` | short lines summing up the related places (where each size came from, both operands' shapes) |
//! | `help` | hints, possibly none |
//!
//! A location ([`Location`]) has the keys `file`; `line` (from 1); `text` (the source line, or
//! a spec given alone); `span` (`{"start", "end"}`, each a [`Position`]: `line` from 1,
//! `column` from 1 counted in characters, `byte` offset into `text`); `pointer` (a JSON pointer
//! into a JSON input, `/steps/3`, for an `infer` case's places); `tensor`; `size` (a size or
//! shape as a shape string writes it: `3`, `rgb=3`, `1!`, `2|4->3`); `note`; `role`.
//!
//! # Short messages
//!
//! `--message-format short` prints each diagnostic on one line, as compilers do for editors
//! and CI ([`Diagnostic::render_short`]): `t.ein:6:13: error[mismatch]: dimension mismatch: …`.
//!
//! # Rendering
//!
//! The renderer is written here rather than taken from a crate (annotate-snippets,
//! codespan-reporting): it is about 200 lines, quotes one line per place (a program's
//! statements are one line each), draws tabs to their stops ([`drawn`]) so carets stand under
//! what they mark, and writes the numbered chains of `--explain`, which those crates would
//! need as separate snippets. Their multi-line spans and colours are not needed here.

pub mod explain;
mod json;
mod lint;
mod model;
mod position;
mod render;
mod source;
mod suggest;

pub use json::{write_json_list, write_json_str, JSON_VERSION};
pub use lint::{Level, Lint};
pub use model::{Diagnostic, Location, Role, Severity};
pub use position::{drawn, drawn_column, Position, TAB_WIDTH};
pub use render::{render, Label};
pub use source::Source;
pub use suggest::{closest, edit_distance, relative_distance, MAX_RELATIVE_DISTANCE};
