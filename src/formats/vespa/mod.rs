//! Vespa tensors: type specs, literals, tensor JSON and cell casts, with the behaviour of
//! Vespa's Java library (vespajlib) unless noted.
//!
//! * Types: [`TensorType::parse`] reads `tensor<cell>(dims)` with mapped `x{}`, bound `x[N]`
//!   and unbound `x[]` dimensions and cell types double, float, bfloat16 and int8; `Display`
//!   prints the canonical form (dimensions in ASCII order, `<double>` left out).
//! * Values: [`Tensor::from_literal`] reads every literal form (general, dense nested or flat,
//!   map, mixed, hex, unbound, scalar), [`Tensor::to_text`] prints Java's `toString`,
//!   [`decode_json`] / [`encode_json`] read and write tensor JSON, [`Tensor::cast`] converts cell
//!   types. [`Tensor::cells`] and [`Tensor::to_dense`] expose the data.
//! * Errors: [`VespaError`], each with a stable code and a byte span into the text read.
//!
//! # Choices where Vespa's Java and C++ parsers differ (or Java is lenient)
//!
//! * Type specs follow Java: the whole spec and each comma-separated element are trimmed, but
//!   no space may appear inside an element or between `tensor` and `(` / `<`; trailing empty
//!   elements are dropped (`tensor(x{},)`); names may start with a digit; unbound `x[]` and
//!   rank-0 types of any cell type (`tensor<float>()`) are accepted; `double` alone is not a
//!   type. Sizes must lie in 1..=2^31-1.
//! * Quoted labels have no escapes (Java): a label runs to the next matching quote, so a label
//!   holding both quote characters cannot be written. The printer quotes with `"` when the label
//!   contains `'`, else with `'`.
//! * Cells are narrowed to their cell type when they are set (float32 rounding; bfloat16 keeps
//!   the top 16 bits of the float32; int8 truncates toward zero, then wraps mod 256; NaN as int8
//!   is 0), as Vespa's C++ engine stores them; Java keeps float32 until it serialises. Literal
//!   values of non-double cells are read with `Float.parseFloat` semantics, JSON numbers as
//!   doubles first.
//! * Dense lists for unbound dimensions nest in canonical order (as Java does), bound ones in
//!   the order the type spec was written. Lists for unbound dimensions must be rectangular.
//!   Cells given in the general form for unbound dimensions size them by the largest index
//!   (missing cells are 0); a mixed tensor's unbound dimensions become bound in its type.
//! * As Java does (and Vespa's own tests rely on), text after a complete dense literal or after
//!   the closing `}` of a mixed or map literal is ignored: `tensor(x[2]):[1.0, 2.0]]` is
//!   `[1.0, 2.0]`. Text after a general-form literal (`{{x:a}:1.0} foo`) is an error, as in Java.
//! * As Java does, the general form accepts a `,` after its last cell and after the last pair of
//!   an address (`{{x:a,}:1.0,}`). The other brace forms (map, mixed, `{0:1.0}`) follow the
//!   documented grammar `cells = | cell , { "," cell }`: a `,` right before the closing `}` is
//!   a syntax error at the comma, as `[1,2,]` is in the bound dense form.
//! * Dimension names are letters, digits and `_` everywhere ([`is_dimension_name`]): Java's
//!   literal reader also takes `-`, `@` and `$` in the names it infers from an address, but the
//!   types it then prints do not read back; einrow rejects such names (`syntax`).
//! * Stricter than Java: text after a JSON document is an error; a dimension repeated in one
//!   address is an error; the label of an indexed dimension must be a decimal index; a JSON
//!   label must be a string. A repeated JSON key keeps its first value (as Vespa's Slime).
//! * Printing follows Java's `toString`, including a one-cell dense tensor of any rank printed
//!   as `[v]` (`tensor(x[1],y[1]):[1.0]`), which the reader takes as the flat form.
//! * An address given twice is a `label` error for every type, in every literal form and in
//!   JSON `cells` and `blocks` arrays ("no duplicates", seed A.2/A.5). Java's message comes
//!   from the Guava map of mapped tensors; its indexed and mixed builders may keep the last
//!   value instead (no run of Java on such input is recorded).
//! * More lenient than Java: in the mixed form a one-cell dense block may be a bare number
//!   (`tensor(k{},x[1]):{a:1.0}`), so that every printed tensor parses back; `tensor():5` is
//!   the scalar 5.
//! * Hex in JSON: the width per cell is the cell type's, or else inferred from the length (2,
//!   4, 8 or 16 digits per cell; int8 accepts only 2); a shorter string of the cell type's width
//!   fills the first cells. Hex in literals must have exactly the type's width and length.
//! * JSON encoding of a multi-mapped mixed tensor with hex dense parts writes each block's hex
//!   string into that block (Java drops it). Java's hexadecimal float literals (`0x1.8p1`) are
//!   numbers, as in `Double.parseDouble`; a hex integer without a binary exponent is not.
//! * Tensors hold at most 2^24 cells and types at most 256 dimensions (a `value` error beyond
//!   that), so that no input exhausts memory or the stack.

mod builder;
mod cell;
mod dense;
mod error;
mod general;
mod hex;
mod javanum;
mod json_decode;
mod json_encode;
mod json_node;
mod json_reader;
mod literal;
mod mixed;
mod scanner;
mod spec;
mod tensor;
mod text;
mod types;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_cells;

pub use builder::{MAX_CELLS, MAX_SUBSPACES};
pub use cell::CellType;
pub use error::VespaError;
pub use json_decode::decode_json;
pub use json_encode::{encode_json, write_json, EncodeOptions};
pub use json_reader::MAX_JSON_VALUES;
pub use tensor::{Tensor, TensorKind};
pub use text::label_text;
pub use types::{is_dimension_name, DimKind, Dimension, TensorType, MAX_DIMENSION_SIZE, MAX_RANK};
