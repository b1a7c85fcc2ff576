//! A program of numpy operations: leaves (a shape and an element type each) and steps, each
//! an operation over earlier values, with einrow's verdict on every step.

use serde_json::{json, Value};

use super::dtypes::dtype_name;
use super::op::NpOp;
use super::verdict::{shape_text, verdict, Rejection, Typed};
use crate::code::ErrorCode;

/// A value of a program: a leaf or a step over earlier values.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum NpValue {
    /// An input array.
    Leaf {
        /// Its shape.
        shape: Vec<usize>,
        /// numpy's name of its element type.
        dtype: &'static str,
    },
    /// An operation over earlier values (indices into the program's values).
    Step {
        /// The operation.
        op: NpOp,
        /// Its operands, in numpy's order.
        args: Vec<usize>,
    },
}

/// A program: values in definition order, each step's operands defined before it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct NpProgram {
    /// Leaves and steps.
    pub values: Vec<NpValue>,
}

/// What einrow says of one value.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// A leaf, or a step numpy computes: the result's shape and type.
    Value(Typed),
    /// A step numpy refuses.
    Rejected(Rejection),
    /// A step with an operand that was refused (directly or further up): never run.
    Unreached,
}

impl Outcome {
    /// The result, if there is one.
    pub fn typed(&self) -> Option<&Typed> {
        match self {
            Outcome::Value(t) => Some(t),
            _ => None,
        }
    }
}

impl NpProgram {
    /// Adds a leaf; returns its index.
    pub fn leaf(&mut self, shape: Vec<usize>, dtype: &'static str) -> usize {
        self.values.push(NpValue::Leaf { shape, dtype });
        self.values.len() - 1
    }

    /// Adds a step; returns its index.
    pub fn step(&mut self, op: NpOp, args: Vec<usize>) -> usize {
        self.values.push(NpValue::Step { op, args });
        self.values.len() - 1
    }

    /// The indices of the steps.
    pub fn steps(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.values.len()).filter(|&i| matches!(self.values[i], NpValue::Step { .. }))
    }

    /// einrow's verdict on every value, in order.
    pub fn evaluate(&self) -> Vec<Outcome> {
        let mut out: Vec<Outcome> = Vec::with_capacity(self.values.len());
        for v in &self.values {
            let o = match v {
                NpValue::Leaf { shape, dtype } => {
                    Outcome::Value(Typed { shape: shape.clone(), dtype })
                }
                NpValue::Step { op, args } => {
                    let found: Option<Vec<&Typed>> =
                        args.iter().map(|&a| out.get(a).and_then(Outcome::typed)).collect();
                    match found {
                        Some(ts) => {
                            let ops: Vec<(&[usize], &str)> =
                                ts.iter().map(|t| (t.shape.as_slice(), t.dtype)).collect();
                            match verdict(op, &ops) {
                                Ok(t) => Outcome::Value(t),
                                Err(r) => Outcome::Rejected(r),
                            }
                        }
                        None => Outcome::Unreached,
                    }
                }
            };
            out.push(o);
        }
        out
    }

    /// The name of value `i` in texts: `x3` for a leaf, `t3` for a step.
    pub fn name(&self, i: usize) -> String {
        match self.values.get(i) {
            Some(NpValue::Step { .. }) => format!("t{i}"),
            _ => format!("x{i}"),
        }
    }

    /// The program as numpy code, one line a value, each step followed by einrow's verdict
    /// as a comment.
    pub fn to_text(&self) -> String {
        let outcomes = self.evaluate();
        let mut text = String::new();
        for (i, (v, o)) in self.values.iter().zip(&outcomes).enumerate() {
            let line = match v {
                NpValue::Leaf { shape, dtype } => {
                    format!("{} = np.zeros({}, dtype=np.{dtype})", self.name(i), shape_text(shape))
                }
                NpValue::Step { op, args } => {
                    let names: Vec<String> = args.iter().map(|&a| self.name(a)).collect();
                    format!("{} = {}  # {}", self.name(i), op.call_text(&names), outcome_text(o))
                }
            };
            text.push_str(&line);
            text.push('\n');
        }
        text
    }

    /// The program as JSON: `{"values": [{"shape", "dtype"} | {"op", ..., "args"}]}`.
    pub fn to_json(&self) -> Value {
        let values: Vec<Value> = self
            .values
            .iter()
            .map(|v| match v {
                NpValue::Leaf { shape, dtype } => json!({ "shape": shape, "dtype": dtype }),
                NpValue::Step { op, args } => {
                    let mut j = op.to_json();
                    j["args"] = json!(args);
                    j
                }
            })
            .collect();
        json!({ "values": values })
    }

    /// [`NpProgram::to_json`] with einrow's verdict on every value (`"outcomes"`, see
    /// [`outcome_json`]) and the program as numpy code (`"text"`).
    pub fn to_json_with_verdicts(&self) -> Value {
        let mut j = self.to_json();
        let outcomes: Vec<Value> = self.evaluate().iter().map(outcome_json).collect();
        j["outcomes"] = json!(outcomes);
        j["text"] = json!(self.to_text());
        j
    }

    /// Reads [`NpProgram::to_json`]'s form back; every operand must be defined before use.
    pub fn from_json(v: &Value) -> Result<NpProgram, String> {
        let items = v["values"].as_array().ok_or("a program needs a \"values\" list")?;
        let mut p = NpProgram::default();
        for (i, item) in items.iter().enumerate() {
            let value = if item.get("op").is_some() {
                let op = NpOp::from_json(item).map_err(|e| format!("value {i}: {e}"))?;
                let args: Vec<usize> = item["args"]
                    .as_array()
                    .ok_or_else(|| format!("value {i}: a step needs \"args\""))?
                    .iter()
                    .map(|a| a.as_u64().map(|a| a as usize).filter(|&a| a < i))
                    .collect::<Option<_>>()
                    .ok_or_else(|| format!("value {i}: an operand is not an earlier value"))?;
                NpValue::Step { op, args }
            } else {
                let shape: Vec<usize> = item["shape"]
                    .as_array()
                    .ok_or_else(|| format!("value {i}: a leaf needs \"shape\""))?
                    .iter()
                    .map(|d| d.as_u64().map(|d| d as usize))
                    .collect::<Option<_>>()
                    .ok_or_else(|| format!("value {i}: sizes are natural numbers"))?;
                let dtype = dtype_name(item["dtype"].as_str().unwrap_or("float64"))
                    .ok_or_else(|| format!("value {i}: unknown dtype {}", item["dtype"]))?;
                NpValue::Leaf { shape, dtype }
            };
            p.values.push(value);
        }
        Ok(p)
    }
}

/// An outcome as JSON: `{"shape", "dtype"}`, `{"error": code, "message"}` or
/// `{"unreached": true}`.
pub fn outcome_json(o: &Outcome) -> Value {
    match o {
        Outcome::Value(t) => json!({ "shape": t.shape, "dtype": t.dtype }),
        Outcome::Rejected(r) => json!({ "error": r.code.as_str(), "message": r.message }),
        Outcome::Unreached => json!({ "unreached": true }),
    }
}

/// An outcome in words: `(2, 3) float32`, `error[mismatch]: ...`, `not reached`.
pub fn outcome_text(o: &Outcome) -> String {
    match o {
        Outcome::Value(t) => format!("{} {}", shape_text(&t.shape), t.dtype),
        Outcome::Rejected(r) => r.to_string(),
        Outcome::Unreached => "not reached".into(),
    }
}

/// The first rejected step and its rejection, if any.
pub fn first_rejection(outcomes: &[Outcome]) -> Option<(usize, ErrorCode)> {
    outcomes.iter().enumerate().find_map(|(i, o)| match o {
        Outcome::Rejected(r) => Some((i, r.code)),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_flow_and_stop_at_a_rejection() {
        let mut p = NpProgram::default();
        let a = p.leaf(vec![2, 3], "float32");
        let b = p.leaf(vec![3], "int8");
        let c = p.step(NpOp::Add, vec![a, b]);
        let d = p.step(NpOp::Concatenate { axis: Some(0) }, vec![c, b]);
        let e = p.step(NpOp::Add, vec![d, a]);
        let out = p.evaluate();
        assert_eq!(
            out[c].typed().map(|t| (t.shape.clone(), t.dtype)),
            Some((vec![2, 3], "float32"))
        );
        assert!(matches!(&out[d], Outcome::Rejected(r) if r.code == ErrorCode::Rank));
        assert_eq!(out[e], Outcome::Unreached);
        assert_eq!(NpProgram::from_json(&p.to_json()), Ok(p.clone()));
        assert!(p.to_text().contains("t3 = np.concatenate([t2, x1], axis=0)  # error[rank]"));
    }
}
