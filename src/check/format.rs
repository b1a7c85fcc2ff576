//! The case format: conformance case files and the contract of `einrow check`.
//!
//! This module holds no code; it is the reference for the files [`run_file`](super::run_file)
//! reads, for the shape strings that [`Graph::declare`](crate::infer::Graph::declare) and
//! [`Graph::shape_string`](crate::infer::Graph::shape_string) speak, and for the error codes
//! ([`ErrorCode`]) every layer reports. The public conformance suites under
//! `tests/conformance/` and the project's own cases under `tests/data/cases/` are written in
//! it; the fuzzers write their failures in it (`fuzzing::case_file`, feature `fuzzing`).
//!
//! # Files and cases
//!
//! Every case file is one JSON object:
//!
//! ```json
//! { "suite": "numpy-einsum", "about": "one line on where the cases come from", "cases": [ CASE, ... ] }
//! ```
//!
//! Each `CASE` has an `"id"` (unique in its file), a `"kind"` (below), the inputs of that kind,
//! an `"expect"` object, and optionally `"source"` and `"note"` (free text, never compared).
//!
//! A case passes when the result equals `expect` under the comparison rules of its kind.
//! `"expect": {"error": CODE}` passes when an error is reported for that input (any error: the
//! wording is einrow's own; `CODE` is informative, see [Error codes](#error-codes)). A kind
//! einrow does not support counts as failed, never as skipped.
//!
//! # The runner: `einrow check`
//!
//! `einrow check PATH...` takes files, or folders holding `*.json` files (subfolders
//! included). It prints one line per failing case, `FAIL <file>:<id>: <what differed>`, and
//! ends with the plain line `N passed, M failed`. The exit status is 0 when `M` is 0, 1
//! otherwise, and 2 when a file cannot be read. `--kind K` (repeatable) runs only the cases of
//! those kinds; `--json` prints one JSON document instead: the envelope of every command
//! (`version`, `command`, `ok`, `diagnostics`) with `cases`, one `{"file","id","kind","pass",
//! "detail"}` per case, and `summary` (`{"passed","failed","unreadable"}`); a file that cannot
//! be read is an `io` diagnostic, one that is no case file (malformed JSON) a `syntax` one. From Rust, [`collect_files`](super::collect_files),
//! [`run_file`](super::run_file) and [`run_case`](super::run_case) do the same.
//!
//! ```
//! let case = serde_json::json!({
//!     "id": "matmul", "kind": "einsum", "spec": "ij,jk->ik", "shapes": [[2, 3], [3, 4]],
//!     "expect": {"shape": [2, 4]}
//! });
//! # #[cfg(feature = "kernel")] {
//! assert_eq!(einrow::check::run_case(&case), Ok(()));
//! # }
//! ```
//!
//! # Shared notations
//!
//! **Shape strings** (used by `infer` cases and by `einrow infer` programs): the labels-spec
//! layout `batch|input->output`, axes separated by commas, each axis a size (`3`), a size with a
//! basis (`rgb=3`), the broadcast top `1!` (see [below](#the-broadcast-top-1)), or, in
//! declarations only, `...` / `..name..` for an open row. Kinds not written are empty rows:
//! `3,5` is output `[3,5]`; `2|3` is batch `[2]`, output `[3]`; `4->2` is input `[4]`, output
//! `[2]`; `2|4->3` all three. An empty shape is `""`. Two shape strings compare equal when they
//! denote the same rows (whitespace and the spelling of empty rows do not matter). An axis
//! strided over the broadcast top keeps the top's basis, so `2*c` with `c = 1!` is printed
//! `bcast_if_1=2`: it is not the plain `2`, and meeting one is an error that says so.
//! [`parse_shape_string`](crate::shape::parse_shape_string) reads them.
//!
//! **Values** are flat lists in row-major order of the tensor's memory layout: for numpy-style
//! tensors the written axis order; for labels-spec tensors `batch`, then `output`, then
//! `input` (input axes innermost). Floats compare with relative tolerance 1e-9 for f64 and 1e-5
//! for f32, absolute 1e-12 near zero.
//!
//! # Kinds
//!
//! ## `einsum`: numpy semantics
//!
//! `numpy.einsum`, with the results of its default `optimize=False`. Inputs: `"spec"` (numpy
//! subscripts, e.g. `"ij,jk->ik"`, `"...ij,...jk"`), `"shapes"` (one list per operand, `[]` =
//! 0-d), optional `"dtype"` (`"f64"` default, `"f32"`), optional `"inputs"` (one flat value list
//! per operand). Expect: `{"shape": [...]}` and, when inputs are given, `"values": [...]`; or
//! `{"error": CODE}`. Run by [`crate::numpy`].
//!
//! ## `parse`: labels specs and einsum specs (OCANNL syntax)
//!
//! Inputs: `"spec"`, `"as"`: `"labels"` (one shape spec) or `"einsum"` (`rhs;...=>lhs`).
//! Expect: `{"rows": ROWS}` for labels, `{"rhs": [ROWS, ...], "lhs": ROWS}` for einsum;
//! `{"multichar": bool}` may accompany either; or `{"error": CODE}`. Run by [`crate::spec`];
//! `einrow parse --json` prints the same structure as its document's `spec`.
//!
//! `ROWS` is `{"batch": [AXIS...], "input": [...], "output": [...]}`, a missing key meaning an
//! empty row. `AXIS` is one of: a label string (`"i"`, `"_"`), an integer (a fixed index in
//! einsum, a size in labels), a row variable written `"..name.."` (plain `...` is written
//! `"..batch.."`, `"..input.."` or `"..output.."` after the row it stands in), an affine axis
//! written canonically as `"S*over+D*kernel"` with the padding marker (`"2*o=+3*k"`,
//! `"2*o<+k"`, `"2*o+1"`; stride or dilation 1 and offset 0 are left out), or a concatenation
//! `"a^b^c"`.
//!
//! **Mode-only expectations.** `"expect": {"multichar": bool}` with no other key compares only
//! the lexer's mode decision (OCANNL's `is_multichar`: multichar if and only if the spec
//! contains `,` `*` `+` `^` `&` `<`, or `=` not followed by `>`). The spec need not parse (`a&b`
//! is multichar yet a syntax error).
//!
//! ## `infer`: shape inference over a graph of operations (OCANNL semantics)
//!
//! Inputs:
//! - `"tensors"`: a list of `{"name", "shape": SHAPE-STRING or null, "param": bool (default
//!   false)}`. These are leaves. `null` means nothing is known (all three rows open). Written
//!   kinds are exactly as written (open only where an ellipsis is written); kinds not written
//!   are empty. A parameter's unknowns are fixed only by the constraints of the operations it
//!   takes part in, never by a default guess: what those leave open is an `unresolved` error.
//!   Optional `"values"` (flat, see above) is the leaf's data, for `values` checks.
//! - `"steps"`: a list of `{"op", "out", "args": [names], "spec"?}`; each step defines the new
//!   tensor `out`, whose shape is unknown until inferred. `op` is one of `pointwise` (2
//!   operands, broadcasting), `pointwise_un` (1), `pointwise3` (3), `compose` (2: matrix-multiply
//!   style, the first's input row against the second's output row), `transpose` (1: swaps input
//!   and output rows), `einsum` (2 + `spec`), `permute` (1 + `spec`), `einsum3` (3 + `spec`),
//!   `concat` (n + `spec`), `batch_slice` (1: drops the leftmost batch axis) and `numpy` (n +
//!   numpy subscripts). [`infer::program`](crate::infer::program) describes each op. Optional
//!   `"accum"` (`"+"` default, `"*"`, `"max"`, `"min"`) and `"combine"` (`"*"` default for
//!   einsum and compose, `"+"` for pointwise; also `"-"`, `"/"`, `"max"`, `"min"`) say what a
//!   step computes, for `values` checks.
//!
//! Expect: `{"shapes": {name: SHAPE-STRING, ...}}` (only the listed tensors are compared) and
//! optionally `"values": {name: [...]}`; or `{"error": CODE}`. `einrow infer` reads such a case
//! too, and prints every tensor's shape.
//!
//! ### The broadcast top `1!`
//!
//! `1!` is one axis of size 1 with OCANNL's reserved broadcast basis (`bcast_if_1`): what a
//! scalar literal or a closing guess produces, and the only axis that broadcasts. A plain `1`
//! is a user-written size-1 axis, which does not broadcast. Both may appear in leaf shapes and
//! in `expect`: `{"name": "two", "shape": "1!"}` is a scalar literal, `"3,1!"` a column that
//! broadcasts along its second axis.
//!
//! In `expect`, a plain `1` matches a size-1 axis of either basis (OCANNL prints both as `1`,
//! and its tests pin only the printed form); `1!` matches only the broadcast one. All other
//! bases compare exactly (`rgb=3` is not `3`, and neither is a `1`).
//!
//! ## Vespa tensors
//!
//! The behaviour of Vespa's Java library (vespajlib), also where the C++ parser differs. Run by
//! [`crate::formats::vespa`].
//!
//! `vespa_type`: input `"spec"`. Expect `{"type": T}`, the canonical type string compared
//! exactly: dimensions sorted by ASCII code (`1a < B < _x < a10 < a9`), no spaces, `<double>`
//! left out.
//!
//! `TENSOR`, the expectation of the next three kinds, is `{"type": T, "cells": [CELL, ...],
//! "text": S}`:
//! - `cells` compare as a set of `{"address": {dim: label, ...}, "value": V}`: every cell of
//!   each dense subspace (zeros included) and, for mapped dimensions, only the addresses
//!   present; rank 0 has one cell with address `{}`. Labels are strings (decimal indices for
//!   indexed dimensions).
//! - `V` is a number or `"Infinity"`, `"-Infinity"`, `"NaN"` (NaN equals NaN). Numbers compare
//!   with relative tolerance 1e-9 (absolute 1e-12 near zero) whatever the cell type, so float32
//!   rounding shows: `0.1` in a float cell is `0.10000000149011612`.
//! - Cells hold their declared cell type: a float cell is rounded to float32, a bfloat16 cell
//!   keeps the float32's top 16 bits, an int8 cell truncates toward zero and wraps mod 256.
//!   (Java's library keeps such cells as float32 until it serialises them; einrow narrows at
//!   once, as Vespa's C++ engine stores them.)
//! - `text` is Java's `toString`, compared exactly: `T:` then `{v}` at rank 0; the dense form
//!   `[[..], ..]` (nested in canonical order) when all dimensions are indexed and bound; the
//!   mixed form `{label:[..], ..}` for one mapped dimension plus bound indexed ones (a one-cell
//!   block prints as its value); else the cells in address order, `{label:v, ..}` at rank 1,
//!   `{{d:l,..}:v, ..}` above. A label is bare if it matches `[-_@A-Za-z0-9][_@$A-Za-z0-9]*`,
//!   else in `"..."` if it contains `'`, else in `'...'`. In the dense form float and bfloat16
//!   cells print as Java floats (`0.1`), int8 cells as the wrapped integer (`-56`); everywhere
//!   else values print as Java doubles (`1.0`, `1.100000023841858`, `Infinity`).
//!
//! `vespa_literal`: inputs `"literal"` and optional `"type"` (a type spec the caller passes, as
//! in `Tensor.from(type, text)`). With neither `type` nor a `tensor(..):` prefix only numbers
//! and the general form are accepted (type inferred from the first address: all mapped,
//! double; `{}` and `{5.7}` are rank 0). A prefix must equal a given `type`. Dense short forms
//! nest in the order the dimensions are written. With a type given, text that fails as a
//! literal is read as JSON. Expect `TENSOR`.
//!
//! `vespa_json_decode`: inputs `"json"` (the JSON text as a string; single-quoted strings
//! allowed, as in Vespa's reader) and optional `"type"` (the declared type; without it the
//! JSON's `"type"` member is used). A `"type"` member is otherwise not checked; `"values"` are
//! read flat in canonical order, nesting unchecked. Expect `TENSOR`.
//!
//! `vespa_json_encode`: inputs `"literal"` and booleans `"short_form"`, `"direct_values"`,
//! `"hex_dense"` (Java's `EncodeOptions(shortForm, directValues, hexForDensePart)`; absent =
//! false). Expect `{"json": J}` compared as JSON values: members in any order, arrays in order,
//! numbers by value (tolerance as for cells), strings exactly (hex digits are uppercase).
//!
//! `vespa_cell_cast`: inputs `"literal"`, `"to"` (`"double"`, `"float"`, `"bfloat16"`,
//! `"int8"`). Expect `TENSOR`. bfloat16 keeps the float32's top 16 bits; int8 truncates, then
//! wraps mod 256.
//!
//! ## TensorStore index spaces
//!
//! Domains and transforms are TensorStore JSON (`IndexDomain`, `IndexTransform`). Results are
//! in TensorStore's normal form, compared as JSON values (members in any order, integers exact
//! to 64 bits): bounds as `inclusive_min` + `exclusive_max` (`input_`-prefixed in transforms),
//! each left out when all its bounds are implicit infinite; `"-inf"`/`"+inf"` and `[n]` for
//! infinite and implicit bounds; no `labels` when all are empty; `rank` only without bound or
//! label members; output maps without offset 0 and stride 1, stride 0 made constant, no
//! `output` for the identity, `index_array_bounds` only when an array value lies outside it.
//! Run by [`crate::formats::tensorstore`].
//!
//! `ts_domain`: input `"domain"`; `ts_transform`: input `"transform"`. Expect
//! `{"normalized": JSON}`.
//!
//! `ts_align`: inputs `"source_domain"`, `"target_domain"` and `"options"`, a list drawn from
//! `"permute"`, `"translate"`, `"broadcast"` (`[]` is TensorStore's `none`, all three its
//! `all`). Expect `{"source_matches": [...]}` (per source dimension the matched target
//! dimension or -1, as `AlignDimensionsTo`) plus, where the case gives it, `"transform"`: the
//! alignment (`AlignDomainTo`: input domain = target, output `i` = source dimension `i`).
//! Without `translate`, a match whose origins differ is an error.
//!
//! `ts_dim_expr`: inputs `"transform"` and `"ops"`, objects applied in order, each on its own as
//! `result[ts.d[DIMS].op]`. Expect `{"transform": JSON}`. Every op has `"op"` and `"dims"`, a
//! list of selectors: an index (negative from the end), a label, or `{"range": [start, stop,
//! step]}` (a Python slice over indices, `null` = default). A member given as a list has one
//! entry per selected dimension; a single value applies to all of them.
//!
//! | `op` | members | TensorStore (Python / C++) |
//! |---|---|---|
//! | `translate_to` | `origins`: int or list, `null` = unchanged | `.translate_to[..]` |
//! | `translate_by`, `translate_backward_by` | `offsets`: int or list | `.translate_by[..]`, `.translate_backward_by[..]` |
//! | `label` | `labels`: list of strings | `.label[..]` |
//! | `transpose` | `target`: list of indices / ranges, or an int `i`: to `i, i+1, ..` (negative: ending at `i`) | `.transpose[..]` |
//! | `move_to` | `target`: int | as `transpose` with an int (`MoveTo`) |
//! | `stride` | `strides`: int or list | `.stride[..]` |
//! | `interval_slice` | `intervals`: list of `{"start", "stop", "step"}`, half-open, in the dimension's own coordinates (absent = current bound, step 1); a step strides like `stride`: `[2:8:2]` of `[0, 10)` is `[1, 4)` | `[a:b:s]` (`HalfOpenInterval`) |
//! | `index_slice` | `indices`: int or list | `[i]` (`IndexSlice`) |
//! | `oindex`, `vindex` | `arrays`: one nested integer array per selected dimension | `.oindex[..]`, `.vindex[..]` |
//! | `diagonal` | none | `.diagonal` |
//! | `newaxis` | `dims` are the new dimensions' indices in the result; domain `[0*, 1*)` | `[ts.newaxis, ..]` |
//! | `mark_bounds_implicit` | `lower`, `upper`: bool, or `null` = unchanged | `[lo:hi]`; `[True]` sets both |
//!
//! ## Nervana views: `view`
//!
//! Run by [`NamedView`](crate::tensor::NamedView). Inputs: `"base"`, `{"axes": [AXIS, ...],
//! "dtype_bytes": n}` with optional `"full_sizes"` (size allocated per axis, at least its
//! length: padding), a fresh row-major tensor at offset 0 whose strides come from the full
//! sizes; `"ops"`, view operations applied in order. `AXIS` is `{"name", "length"}`; axes are
//! identified by name, and duplicate names are an error.
//! - `{"op": "transpose"}` reverses all axes.
//! - `{"op": "reorder", "axes": [name, ...]}` permutes them; the set of names must stay the
//!   same.
//! - `{"op": "broadcast", "axes": [AXIS, ...]}` must keep every current axis; new axes get
//!   stride 0.
//! - `{"op": "slice", "slices": [S, ...], "names": [name, ...]}`: one `S` per leading axis
//!   (missing trailing ones are full slices). An integer `i` drops the axis and adds
//!   `i·stride` to the offset; `{"start", "stop", "step"}` (a Python slice, step 1 or -1 only)
//!   keeps it with stride `stride·step` and adds `start·stride`. `names` renames the kept axes,
//!   in order.
//! - `{"op": "flatten", "axes": [ITEM, ...]}`: an `ITEM` is a name, or a list of names that
//!   become one flattened axis; concatenated, the items must be the current axes in order. A
//!   view that is not `c_contiguous` is first replaced by a row-major copy (Nervana's `Flatten`
//!   op inserts a `ContiguousOp`; the bare `TensorDescription.flatten` reads the wrong
//!   elements).
//! - `{"op": "unflatten"}` splits every flattened axis back into its components.
//! - `{"op": "elementwise", "other": [AXIS, ...]}`: the tensor as left operand `x` of a binary
//!   elementwise op whose right operand has axes `y`, broadcast and reordered to the result
//!   axes: `y`'s order if `y` has every axis of `x`, else `x` then the axes of `y` not in `x`
//!   (Nervana's code; its documentation says the left order when the sets are equal).
//!
//! Expect (only the members given are compared): `"axes"` (names; a flattened axis as the list
//! of its components' names), `"shape"`, `"strides"` (bytes; a flattened axis reports its
//! smallest component stride), `"offset"` (bytes), `"c_contiguous"` (strides = row-major byte
//! strides of the shape), `"broadcast_contiguous"` (the same with stride-0 axes as size 1 and
//! stride 0; true at rank 0), `"values"` (the base holds `0..n-1` in row-major order, a copy
//! carries them along: the numbers read through the reported shape, strides and offset, in
//! row-major order).
//!
//! # Error codes
//!
//! `CODE` names the class of the expected error. The runner only requires that an error is
//! reported, but every error einrow reports carries a stable [`ErrorCode`], printed with the
//! message, so that users and tests can match on it:
//!
//! | code | [`ErrorCode`] | meaning |
//! |---|---|---|
//! | `syntax` | [`Syntax`](crate::ErrorCode::Syntax) | a malformed spec, type, literal, program or JSON |
//! | `arity` | [`Arity`](crate::ErrorCode::Arity) | a wrong operand count |
//! | `label` | [`Label`](crate::ErrorCode::Label) | label misuse: an unknown or repeated output label, a name used as both axis and row variable |
//! | `name` | [`Name`](crate::ErrorCode::Name) | a name that refers to nothing: an unknown tensor or operation of a program |
//! | `mismatch` | [`Mismatch`](crate::ErrorCode::Mismatch) | sizes or bases that cannot be equal or broadcast |
//! | `rank` | [`Rank`](crate::ErrorCode::Rank) | a wrong number of axes |
//! | `cycle` | [`Cycle`](crate::ErrorCode::Cycle) | infinitely many axes: a self-reference or a rank cycle |
//! | `unresolved` | [`Unresolved`](crate::ErrorCode::Unresolved) | not enough information, e.g. a parameter's hidden dimension |
//! | `elems` | [`Elems`](crate::ErrorCode::Elems) | a total-elements or exact-shape constraint violated |
//! | `bounds` | [`Bounds`](crate::ErrorCode::Bounds) | an index or bound out of range |
//! | `value` | [`Value`](crate::ErrorCode::Value) | a number that is not allowed |
//! | `type` | [`Type`](crate::ErrorCode::Type) | a value that does not fit the declared type |
//! | `unsupported` | [`Unsupported`](crate::ErrorCode::Unsupported) | a request einrow cannot serve (an unsupported kind or operation) |
//! | `io` | [`Io`](crate::ErrorCode::Io) | a file that cannot be read |
//! | `resource` | [`Resource`](crate::ErrorCode::Resource) | a limit einrow keeps on its own work was reached (the input is not known to be wrong) |
//!
//! Suites may carry finer codes from their own origin (e.g. numpy's `too_many_subscripts`);
//! they map onto this list. The Vespa, TensorStore and Nervana suites use `syntax`, `type`,
//! `value`, `bounds`, `label`, `elems`, `rank`, `mismatch`, `arity` and `unresolved` (a literal
//! form that needs a declared type); their error cases quote the original library's message in
//! `note`.
//!
//! [`ErrorCode`]: crate::ErrorCode

// The format names the runner and the value types that run its kinds; without the `kernel`
// feature they are absent and those links are plain text.
#![cfg_attr(not(feature = "kernel"), allow(rustdoc::broken_intra_doc_links))]
