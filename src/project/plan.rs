//! [`IndexPlan`]: the inspectable indexing plan of one operation — its product space, how each
//! tensor axis is indexed by the loops, and what is computed at each point.

use std::fmt;

use serde_json::{json, Value};
use smallvec::SmallVec;

use crate::infer::OpKind;
use crate::kernel::{Accum, Combine};
use crate::spec::ast::Name;

/// One loop of the product space.
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct Loop {
    /// A readable name: the spec label, `rho[k]` for a row variable's k-th axis, or
    /// `batch0`, `output1`… for positional axes.
    pub name: Name,
    /// The extent.
    pub size: u64,
}

impl Loop {
    /// A loop named `name` over `0..size`.
    pub fn new(name: impl Into<Name>, size: u64) -> Loop {
        Loop { name: name.into(), size }
    }

    /// A numbered loop name, `{head}{open}{n}{close}` (`o1`, `rho[0]`), built without the
    /// formatter.
    pub(super) fn numbered(head: &str, open: &str, n: usize, close: &str) -> Name {
        crate::spec::ast::numbered_name(head, open, n, close)
    }
}

/// How one tensor axis is indexed.
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[cfg_attr(feature = "serde", serde(rename_all = "snake_case"))]
#[non_exhaustive]
pub enum Index {
    /// Follows a loop.
    Iter(usize),
    /// A constant index (a fixed index, or 0 where a size-1 axis broadcasts).
    Fixed(u64),
    /// `Σ coeff·loop + offset` (strided and convolution axes, concatenation parts).
    Affine {
        /// `(coefficient, loop)` terms.
        terms: Vec<(i64, usize)>,
        /// The constant term (negative for left padding).
        offset: i64,
        /// Whether the index may leave the axis (padding): such points read 0 / are skipped.
        padded: bool,
    },
}

/// One operand a [`PlanPart`] reads, with the index of each of its axes.
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct PartOperand {
    /// Which operand (counting from 0, in the order the operation takes them).
    pub operand: usize,
    /// The index of each of its axes (memory order: batch, output, input).
    pub index: Vec<Index>,
}

/// One nest of a plan. Plans have one part, except concatenations: one part per component.
///
/// A part lists only the operands it reads: a concatenation of n operands has n parts of one
/// operand each, not n lists of n.
///
/// ```
/// use einrow::project::{plan_einsum, Concrete, Index};
///
/// let (a, b) = (Concrete::output(&[2]), Concrete::output(&[3]));
/// let plan = plan_einsum("a;b=>a^b", &[&a, &b])?;
/// // The second part writes `out[b + 2]` from operand 1 alone.
/// let second = &plan.parts[1];
/// assert_eq!(second.reads().collect::<Vec<_>>(), [1]);
/// assert_eq!(second.operand(1), Some(&[Index::Iter(0)][..]));
/// assert_eq!(second.operand(0), None);
/// # Ok::<(), einrow::project::ProjectError>(())
/// ```
///
/// `Serialize` and `Deserialize` with the `serde` feature.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct PlanPart {
    /// The product space.
    pub loops: Vec<Loop>,
    /// The index of each result axis (memory order: batch, output, input).
    pub result: Vec<Index>,
    /// The operands this part reads, by increasing operand number (each at most once); an
    /// operand not listed is not read in this part.
    pub operands: Vec<PartOperand>,
}

impl PartOperand {
    /// Operand `operand` read at `index` (one entry per axis).
    pub fn new(operand: usize, index: Vec<Index>) -> PartOperand {
        PartOperand { operand, index }
    }
}

impl PlanPart {
    /// A part looping over `loops`, writing the result at `result` and reading `operands`
    /// (in increasing operand order).
    pub fn new(loops: Vec<Loop>, result: Vec<Index>, operands: Vec<PartOperand>) -> PlanPart {
        PlanPart { loops, result, operands }
    }

    /// The index of each axis of operand `i`, or `None` when this part does not read it
    /// (a binary search of [`PlanPart::operands`]).
    pub fn operand(&self, i: usize) -> Option<&[Index]> {
        let at = self.operands.binary_search_by_key(&i, |o| o.operand).ok()?;
        Some(&self.operands[at].index)
    }

    /// The operands this part reads, in increasing order.
    pub fn reads(&self) -> impl ExactSizeIterator<Item = usize> + '_ {
        self.operands.iter().map(|o| o.operand)
    }

    /// The number of index entries the part holds: its loops, its result's axes, and for each
    /// operand it reads one entry plus its axes. Plans bound the sum over their parts.
    pub fn entries(&self) -> usize {
        let operands = self.operands.iter().map(|o| 1 + o.index.len()).sum::<usize>();
        self.loops.len() + self.result.len() + operands
    }
}

/// The indexing plan of one operation.
///
/// With the `serde` feature, plans are `Serialize` and `Deserialize`: the fields as they are,
/// enums by variant name (a form of its own, not [`IndexPlan::to_json`]'s). Deserialising
/// checks the plan (each index within its axis, operands and loops that exist, sizes at most
/// 2^62, `bijective` as the parts say): bad data is an error.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[cfg_attr(
    feature = "serde",
    derive(serde::Deserialize),
    serde(try_from = "super::serde_form::PlanForm")
)]
#[non_exhaustive]
pub struct IndexPlan {
    /// The operation.
    pub op: OpKind,
    /// Result sizes in memory order.
    pub result_dims: Vec<u64>,
    /// Operand sizes in memory order.
    pub operand_dims: Vec<Vec<u64>>,
    /// The nests (sibling loops for concatenation components).
    pub parts: Vec<PlanPart>,
    /// How values accumulate into the result.
    pub accum: Accum,
    /// How operand values combine.
    pub combine: Combine,
    /// Whether every result element is written exactly once: then no neutral-element
    /// initialisation is needed (OCANNL's surjective and injective test).
    pub bijective: bool,
}

/// Makes room for `n` elements in `v`: an empty vector allocates exactly `n` (cheaper than
/// growing one, which fresh plans would do for every vector); a vector with a buffer keeps it,
/// growing if needed.
#[inline]
pub(super) fn room_for<T>(v: &mut Vec<T>, n: usize) {
    if v.capacity() == 0 {
        *v = Vec::with_capacity(n);
    } else {
        v.reserve(n.saturating_sub(v.len()));
    }
}

impl IndexPlan {
    /// A plan of `op` with no parts and no sizes, to be filled in (its buffers are reused
    /// from one plan to the next by [`super::EinsumPlanner`]).
    pub fn empty(op: OpKind) -> IndexPlan {
        IndexPlan {
            op,
            result_dims: Vec::new(),
            operand_dims: Vec::new(),
            parts: Vec::new(),
            accum: Accum::Add,
            combine: Combine::First,
            bijective: false,
        }
    }
}

impl IndexPlan {
    /// Whether the plan writes every result element exactly once, recomputed from its parts
    /// (what [`IndexPlan::bijective`] records): one part, each result axis of size > 1 follows
    /// its own loop, and every loop the result does not follow has size 1. A loop of size 0
    /// that the result does not follow writes nothing, so such a plan must fill its result.
    pub fn writes_each_once(&self) -> bool {
        let [part] = &self.parts[..] else { return false };
        let mut used: SmallVec<[bool; 16]> = smallvec::smallvec![false; part.loops.len()];
        for (idx, &size) in part.result.iter().zip(&self.result_dims) {
            match idx {
                Index::Iter(l) if used.get(*l) == Some(&false) => used[*l] = true,
                Index::Fixed(0) if size == 1 => {}
                _ => return false,
            }
        }
        part.result.len() == self.result_dims.len()
            && part.loops.iter().zip(&used).all(|(l, u)| *u || l.size == 1)
    }
}

impl Index {
    fn text(&self, loops: &[Loop]) -> String {
        match self {
            Index::Iter(l) => loops[*l].name.to_string(),
            Index::Fixed(n) => n.to_string(),
            Index::Affine { terms, offset, padded } => {
                let mut s = String::new();
                for (c, l) in terms {
                    if !s.is_empty() {
                        s.push('+');
                    }
                    if *c != 1 {
                        s.push_str(&format!("{c}*"));
                    }
                    s.push_str(&loops[*l].name);
                }
                if *offset != 0 || s.is_empty() {
                    s.push_str(&format!("{offset:+}"));
                }
                if *padded {
                    s.push_str(" (padded)");
                }
                s
            }
        }
    }

    fn json(&self) -> Value {
        match self {
            Index::Iter(l) => json!({ "iter": l }),
            Index::Fixed(n) => json!({ "fixed": n }),
            Index::Affine { terms, offset, padded } => json!({
                "affine": terms.iter().map(|(c, l)| json!([c, l])).collect::<Vec<_>>(),
                "offset": offset,
                "padded": padded,
            }),
        }
    }
}

pub(super) fn accum_text(a: Accum) -> &'static str {
    match a {
        Accum::Store => "=",
        Accum::Add => "+=",
        Accum::Mul => "*=",
        Accum::Max => "max=",
        Accum::Min => "min=",
    }
}

pub(super) fn combine_text(c: Combine) -> &'static str {
    match c {
        Combine::First => ",",
        Combine::Mul => " * ",
        Combine::Add => " + ",
        Combine::Sub => " - ",
        Combine::Div => " / ",
        Combine::Max => " max ",
        Combine::Min => " min ",
    }
}

impl fmt::Display for IndexPlan {
    /// Readable loops: `for i in 0..2, j in 0..3: out[i] += x0[i, j]`, operand `k` named `xk`
    /// (operands count from 0).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.bijective {
            writeln!(f, "out[..] = neutral of `{}`", accum_text(self.accum))?;
        }
        for part in &self.parts {
            let loops: Vec<String> =
                part.loops.iter().map(|l| format!("{} in 0..{}", l.name, l.size)).collect();
            let idx =
                |v: &[Index]| v.iter().map(|i| i.text(&part.loops)).collect::<Vec<_>>().join(", ");
            let args: Vec<String> = part
                .operands
                .iter()
                .map(|o| format!("x{}[{}]", o.operand, idx(&o.index)))
                .collect();
            let args = args.join(combine_text(self.combine).trim_end_matches(','));
            let head = if loops.is_empty() {
                String::new()
            } else {
                format!("for {}: ", loops.join(", "))
            };
            writeln!(f, "{head}out[{}] {} {args}", idx(&part.result), accum_text(self.accum))?;
        }
        Ok(())
    }
}

impl IndexPlan {
    /// The plan as JSON: `op`, `result_dims`, `operand_dims`, `accum`, `combine`, `bijective`
    /// and `parts`, each part with its `loops` (`name`, `size`), the index of each `result`
    /// axis, and the `operands` it reads, by increasing number, as `{"operand": k, "index":
    /// [...]}` (operands a part does not read are not listed). An axis index is `{"iter": l}`
    /// (loop `l`), `{"fixed": n}` or `{"affine": [[coefficient, loop], ...], "offset": c,
    /// "padded": bool}`.
    ///
    /// This is the form the command line prints and [`IndexPlan::from_json`] reads. The
    /// `serde` feature's form differs: the operation, accumulation and combine are variant
    /// names (`"Einsum"`, `"Add"`, `"Mul"`), an affine index is `{"affine": {"terms": ...,
    /// "offset": ..., "padded": ...}}`, and deserialising also checks the plan's consistency.
    ///
    /// ```
    /// use einrow::project::{plan_einsum, Concrete};
    ///
    /// let plan = plan_einsum("a;b=>a^b", &[&Concrete::output(&[2]), &Concrete::output(&[3])])?;
    /// let json = plan.to_json();
    /// assert_eq!(json["parts"][1]["operands"], serde_json::json!([{"operand": 1, "index": [{"iter": 0}]}]));
    /// # Ok::<(), einrow::project::ProjectError>(())
    /// ```
    pub fn to_json(&self) -> Value {
        let parts: Vec<Value> = self
            .parts
            .iter()
            .map(|p| {
                json!({
                    "loops": p.loops.iter().map(|l| json!({"name": l.name.as_str(), "size": l.size})).collect::<Vec<_>>(),
                    "result": p.result.iter().map(Index::json).collect::<Vec<_>>(),
                    "operands": p.operands.iter().map(|o| json!({
                        "operand": o.operand,
                        "index": o.index.iter().map(Index::json).collect::<Vec<_>>(),
                    })).collect::<Vec<_>>(),
                })
            })
            .collect();
        json!({
            "op": self.op.name(),
            "result_dims": self.result_dims,
            "operand_dims": self.operand_dims,
            "accum": accum_text(self.accum),
            "combine": combine_text(self.combine).trim(),
            "bijective": self.bijective,
            "parts": parts,
        })
    }

    /// The map from a part's loops to an operand's axes (`None`: the result) as a TensorStore
    /// IndexTransform JSON, where expressible: every axis a single loop with stride and
    /// offset, or a constant. `None` when an axis needs two loops (convolutions).
    pub fn index_transform(&self, part: usize, operand: Option<usize>) -> Option<Value> {
        let p = self.parts.get(part)?;
        let axes = match operand {
            None => p.result.as_slice(),
            Some(i) => p.operand(i)?,
        };
        let mut output = Vec::with_capacity(axes.len());
        for a in axes {
            output.push(match a {
                Index::Iter(l) => json!({ "input_dimension": l }),
                Index::Fixed(n) => json!({ "offset": n }),
                Index::Affine { terms, offset, padded: false } if terms.len() == 1 => {
                    let (c, l) = terms[0];
                    let mut m = json!({ "input_dimension": l });
                    if c != 1 {
                        m["stride"] = json!(c);
                    }
                    if *offset != 0 {
                        m["offset"] = json!(offset);
                    }
                    m
                }
                Index::Affine { terms, offset, padded: false } if terms.is_empty() => {
                    json!({ "offset": offset })
                }
                Index::Affine { .. } => return None,
            });
        }
        Some(json!({
            "input_inclusive_min": vec![0; p.loops.len()],
            "input_exclusive_max": p.loops.iter().map(|l| l.size).collect::<Vec<_>>(),
            "input_labels": p.loops.iter().map(|l| l.name.as_str()).collect::<Vec<_>>(),
            "output": output,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::Loop;

    #[track_caller]
    fn check(head: &str, open: &str, n: usize, close: &str, expected: &str) {
        assert_eq!(Loop::numbered(head, open, n, close), expected);
        assert_eq!(expected, format!("{head}{open}{n}{close}"));
    }

    #[test]
    fn numbered_names_match_the_formatter() {
        check("o", "", 0, "", "o0");
        check("b", "", 10, "", "b10");
        check("rho", "[", 7, "]", "rho[7]");
        check("a_long_row_variable_name", "[", 123, "]", "a_long_row_variable_name[123]");
        check("k", "", usize::MAX, "", &format!("k{}", usize::MAX));
    }
}
