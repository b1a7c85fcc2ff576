//! [`IndexPlan::from_json`]: the reader of [`IndexPlan::to_json`]'s form, so that a plan
//! saved as JSON (or sent to another process) is the same plan again. The reader checks the
//! form, not the plan's consistency: compiling a plan checks that ([`super::Executable`]
//! validates every plan, whatever its fields hold).

use serde_json::Value;

use super::plan::{Index, IndexPlan, Loop, PartOperand, PlanPart};
use crate::code::{Coded, ErrorCode};
use crate::infer::OpKind;
use crate::kernel::{Accum, Combine};

/// JSON that is not an [`IndexPlan`]'s: where (`parts[0].loops[1].size`) and what was
/// expected there.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("not an index plan's JSON: `{at}` should be {expected}")]
pub struct PlanJsonError {
    /// The place in the JSON.
    pub at: String,
    /// What was expected there.
    pub expected: &'static str,
}

impl Coded for PlanJsonError {
    fn code(&self) -> ErrorCode {
        ErrorCode::Syntax
    }
}

type Read<T> = Result<T, PlanJsonError>;

fn wrong(at: &str, expected: &'static str) -> PlanJsonError {
    PlanJsonError { at: at.to_string(), expected }
}

fn member<'v>(v: &'v Value, at: &str, name: &str) -> Read<(&'v Value, String)> {
    let place = if at.is_empty() { name.to_string() } else { format!("{at}.{name}") };
    match v.get(name) {
        Some(m) => Ok((m, place)),
        None => Err(wrong(&place, "present")),
    }
}

fn list<'v>(v: &'v Value, at: &str) -> Read<&'v [Value]> {
    v.as_array().map(Vec::as_slice).ok_or_else(|| wrong(at, "a list"))
}

fn unsigned(v: &Value, at: &str) -> Read<u64> {
    v.as_u64().ok_or_else(|| wrong(at, "a non-negative integer"))
}

fn signed(v: &Value, at: &str) -> Read<i64> {
    v.as_i64().ok_or_else(|| wrong(at, "an integer"))
}

fn position(v: &Value, at: &str) -> Read<usize> {
    usize::try_from(unsigned(v, at)?).map_err(|_| wrong(at, "a position"))
}

fn sizes(v: &Value, at: &str) -> Read<Vec<u64>> {
    list(v, at)?.iter().enumerate().map(|(i, d)| unsigned(d, &format!("{at}[{i}]"))).collect()
}

fn index(v: &Value, at: &str) -> Read<Index> {
    if let Some(l) = v.get("iter") {
        return Ok(Index::Iter(position(l, &format!("{at}.iter"))?));
    }
    if let Some(n) = v.get("fixed") {
        return Ok(Index::Fixed(unsigned(n, &format!("{at}.fixed"))?));
    }
    let (terms, place) = member(v, at, "affine")
        .map_err(|_| wrong(at, "an index: {\"iter\": l}, {\"fixed\": n} or {\"affine\": ...}"))?;
    let terms = list(terms, &place)?
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let at = format!("{place}[{i}]");
            match list(t, &at)? {
                [c, l] => Ok((signed(c, &format!("{at}[0]"))?, position(l, &format!("{at}[1]"))?)),
                _ => Err(wrong(&at, "a [coefficient, loop] pair")),
            }
        })
        .collect::<Read<Vec<_>>>()?;
    let (offset, place) = member(v, at, "offset")?;
    let offset = signed(offset, &place)?;
    let (padded, place) = member(v, at, "padded")?;
    let padded = padded.as_bool().ok_or_else(|| wrong(&place, "true or false"))?;
    Ok(Index::Affine { terms, offset, padded })
}

fn indices(v: &Value, at: &str) -> Read<Vec<Index>> {
    list(v, at)?.iter().enumerate().map(|(i, x)| index(x, &format!("{at}[{i}]"))).collect()
}

fn part(v: &Value, at: &str) -> Read<PlanPart> {
    let (loops, place) = member(v, at, "loops")?;
    let loops = list(loops, &place)?
        .iter()
        .enumerate()
        .map(|(i, l)| {
            let at = format!("{place}[{i}]");
            let (name, name_at) = member(l, &at, "name")?;
            let name = name.as_str().ok_or_else(|| wrong(&name_at, "a string"))?;
            let (size, size_at) = member(l, &at, "size")?;
            Ok(Loop { name: name.into(), size: unsigned(size, &size_at)? })
        })
        .collect::<Read<Vec<_>>>()?;
    let (result, place) = member(v, at, "result")?;
    let result = indices(result, &place)?;
    let (operands, place) = member(v, at, "operands")?;
    let operands = list(operands, &place)?
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let at = format!("{place}[{i}]");
            let (operand, operand_at) = member(o, &at, "operand")?;
            let (index, index_at) = member(o, &at, "index")?;
            Ok(PartOperand {
                operand: position(operand, &operand_at)?,
                index: indices(index, &index_at)?,
            })
        })
        .collect::<Read<Vec<_>>>()?;
    Ok(PlanPart { loops, result, operands })
}

fn accum(text: &str) -> Option<Accum> {
    [Accum::Store, Accum::Add, Accum::Mul, Accum::Max, Accum::Min]
        .into_iter()
        .find(|&a| super::plan::accum_text(a) == text)
}

fn combine(text: &str) -> Option<Combine> {
    let all = [
        Combine::First,
        Combine::Mul,
        Combine::Add,
        Combine::Sub,
        Combine::Div,
        Combine::Max,
        Combine::Min,
    ];
    all.into_iter().find(|&c| super::plan::combine_text(c).trim() == text)
}

impl IndexPlan {
    /// Reads [`IndexPlan::to_json`]'s form back: `from_json(&plan.to_json())` is `plan`.
    ///
    /// ```
    /// use einrow::project::{plan_einsum, Concrete, IndexPlan};
    ///
    /// let plan = plan_einsum("ij;jk=>ik", &[&Concrete::output(&[2, 3]), &Concrete::output(&[3, 4])])?;
    /// assert_eq!(IndexPlan::from_json(&plan.to_json()).unwrap(), plan);
    /// let err = IndexPlan::from_json(&serde_json::json!({"op": "einsum"})).unwrap_err();
    /// assert_eq!(err.to_string(), "not an index plan's JSON: `result_dims` should be present");
    /// # Ok::<(), einrow::project::ProjectError>(())
    /// ```
    pub fn from_json(v: &Value) -> Result<IndexPlan, PlanJsonError> {
        let (op, at) = member(v, "", "op")?;
        let op = op
            .as_str()
            .and_then(|name| OpKind::ALL.into_iter().find(|k| k.name() == name))
            .ok_or_else(|| wrong(&at, "an operation name (`einsum`, `compose`, ...)"))?;
        let (result_dims, at) = member(v, "", "result_dims")?;
        let result_dims = sizes(result_dims, &at)?;
        let (operand_dims, at) = member(v, "", "operand_dims")?;
        let operand_dims = list(operand_dims, &at)?
            .iter()
            .enumerate()
            .map(|(i, d)| sizes(d, &format!("{at}[{i}]")))
            .collect::<Read<Vec<_>>>()?;
        let (a, at) = member(v, "", "accum")?;
        let accum =
            a.as_str().and_then(accum).ok_or_else(|| wrong(&at, "=, +=, *=, max= or min="))?;
        let (c, at) = member(v, "", "combine")?;
        let combine = c
            .as_str()
            .and_then(combine)
            .ok_or_else(|| wrong(&at, "one of `,` `*` `+` `-` `/` `max` `min`"))?;
        let (b, at) = member(v, "", "bijective")?;
        let bijective = b.as_bool().ok_or_else(|| wrong(&at, "true or false"))?;
        let (parts, at) = member(v, "", "parts")?;
        let parts = list(parts, &at)?
            .iter()
            .enumerate()
            .map(|(i, p)| part(p, &format!("{at}[{i}]")))
            .collect::<Read<Vec<_>>>()?;
        Ok(IndexPlan { op, result_dims, operand_dims, parts, accum, combine, bijective })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::project::{plan_einsum, Concrete};

    #[test]
    fn every_kind_of_index_round_trips() {
        let c = |d: &[u64]| Concrete::output(d);
        let cases: [(&str, Vec<Concrete>); 5] = [
            ("a;b=>a^b", vec![c(&[2]), c(&[3])]),
            ("i=>2", vec![c(&[2])]),
            ("ij;jk=>ik", vec![c(&[2, 3]), c(&[3, 4])]),
            ("2*o<+k; k => o", vec![c(&[7]), c(&[3])]),
            ("o=+k; k => o", vec![c(&[5]), c(&[3])]),
        ];
        for (spec, ops) in cases {
            let refs: Vec<&Concrete> = ops.iter().collect();
            let plan = plan_einsum(spec, &refs).unwrap();
            let back = IndexPlan::from_json(&plan.to_json()).unwrap();
            assert_eq!(back, plan, "{spec}");
            assert_eq!(back.to_json(), plan.to_json(), "{spec}");
        }
    }

    #[test]
    fn malformed_json_is_an_error_naming_the_place() {
        let plan = plan_einsum("ij=>ji", &[&Concrete::output(&[2, 3])]).unwrap();
        let mut v = plan.to_json();
        v["parts"][0]["loops"][1]["size"] = serde_json::json!(-1);
        let err = IndexPlan::from_json(&v).unwrap_err();
        assert_eq!(err.at, "parts[0].loops[1].size");
        assert_eq!(err.code(), ErrorCode::Syntax);
        v = plan.to_json();
        v["parts"][0]["result"][0] =
            serde_json::json!({"affine": [[1]], "offset": 0, "padded": false});
        assert_eq!(IndexPlan::from_json(&v).unwrap_err().at, "parts[0].result[0].affine[0]");
        v = plan.to_json();
        v["accum"] = serde_json::json!("+");
        assert_eq!(IndexPlan::from_json(&v).unwrap_err().at, "accum");
        assert!(IndexPlan::from_json(&serde_json::json!([])).is_err());
    }
}
