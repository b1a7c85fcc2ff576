//! Running a program through a framework's own functions and judging every step against
//! einrow's verdict: a result must have einrow's shape (and element type, when the framework
//! says it), a step numpy refuses must fail, a step numpy computes must not. Saved cases are
//! replayed the same way.

use std::panic::{catch_unwind, AssertUnwindSafe};

use serde_json::{json, Value};

use super::program::{outcome_text, NpProgram, NpValue, Outcome};
use super::verdict::shape_text;

/// A framework under test: its tensors, and its functions called on numpy-semantics steps.
///
/// ```
/// use einrow::fuzzing::numpy_ops::{check_framework, Framework, NpOp, NpProgram};
///
/// /// A framework whose tensors are shapes, and whose matmul forgets 1-D operands.
/// struct Toy;
/// impl Framework for Toy {
///     type Tensor = Vec<usize>;
///     type Error = String;
///     fn leaf(&mut self, shape: &[usize], _dtype: &str) -> Vec<usize> { shape.to_vec() }
///     fn apply(&mut self, op: &NpOp, xs: &[&Vec<usize>]) -> Result<Vec<usize>, String> {
///         match (op, xs) {
///             (NpOp::Matmul, [a, b]) if a.last() == b.first() => Ok(vec![a[0], b[b.len() - 1]]),
///             _ => Err("unsupported".into()),
///         }
///     }
///     fn shape(&self, t: &Vec<usize>) -> Vec<usize> { t.clone() }
/// }
///
/// let mut p = NpProgram::default();
/// let (a, b) = (p.leaf(vec![2, 3], "float64"), p.leaf(vec![3], "float64"));
/// p.step(NpOp::Matmul, vec![a, b]);
/// let found = check_framework(&p, &mut Toy).unwrap_err();
/// assert!(found.to_string().contains("einrow says (2,)"), "{found}");
/// ```
pub trait Framework {
    /// The framework's tensor (or whatever its shape rules work on).
    type Tensor;
    /// What the framework raises when it refuses an operation.
    type Error: std::fmt::Display;
    /// A tensor of this shape and numpy element type (`float64`, `int8`, `bool`, ...).
    fn leaf(&mut self, shape: &[usize], dtype: &str) -> Self::Tensor;
    /// The framework's function for `op` on these operands.
    fn apply(
        &mut self,
        op: &super::op::NpOp,
        operands: &[&Self::Tensor],
    ) -> Result<Self::Tensor, Self::Error>;
    /// A tensor's shape.
    fn shape(&self, t: &Self::Tensor) -> Vec<usize>;
    /// A tensor's numpy element type name, if the framework's types are to be judged too.
    fn dtype(&self, _t: &Self::Tensor) -> Option<String> {
        None
    }
}

/// The first step where a framework and einrow disagree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Disagreement {
    /// The program.
    pub program: NpProgram,
    /// The index of the step.
    pub step: usize,
    /// The call, with the operands' shapes: `np.concatenate([t2 (2, 3), x3 (2,)], axis=0)`.
    pub call: String,
    /// einrow's verdict.
    pub expected: Outcome,
    /// What the framework did: its result's shape and type, or its error (or panic) message.
    pub got: Result<(Vec<usize>, Option<String>), String>,
}

impl std::fmt::Display for Disagreement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let got = match &self.got {
            Ok((s, Some(t))) => format!("{} {t}", shape_text(s)),
            Ok((s, None)) => shape_text(s),
            Err(e) => format!("an error ({e})"),
        };
        let expected = match &self.expected {
            Outcome::Value(t) if matches!(self.got, Ok((_, None))) => shape_text(&t.shape),
            o => outcome_text(o),
        };
        write!(
            f,
            "{} = {}: einrow says {expected}, the framework gives {got}\nprogram:\n{}",
            self.program.name(self.step),
            self.call,
            self.program.to_text()
        )
    }
}

impl Disagreement {
    /// The case to keep: the program and the step, as JSON ([`replay`] reads it).
    pub fn case(&self) -> Value {
        json!({ "program": self.program.to_json(), "step": self.step, "note": self.to_string() })
    }
}

/// Runs `p` through `fw` and judges every step einrow reaches; returns the number of steps
/// judged, or the first disagreement. A panic of the framework is a disagreement.
pub fn check_framework<F: Framework>(
    p: &NpProgram,
    fw: &mut F,
) -> Result<usize, Box<Disagreement>> {
    let outcomes = p.evaluate();
    let mut tensors: Vec<Option<F::Tensor>> = Vec::with_capacity(p.values.len());
    let mut judged = 0;
    for (i, (v, expected)) in p.values.iter().zip(&outcomes).enumerate() {
        let t = match v {
            NpValue::Leaf { shape, dtype } => Some(fw.leaf(shape, dtype)),
            NpValue::Step { op, args } => {
                let xs: Option<Vec<&F::Tensor>> =
                    args.iter().map(|&a| tensors.get(a).and_then(Option::as_ref)).collect();
                match xs {
                    Some(xs) if !matches!(expected, Outcome::Unreached) => {
                        judged += 1;
                        let got = catch_unwind(AssertUnwindSafe(|| fw.apply(op, &xs)))
                            .map_err(|e| PanicOf(crate::fuzzing::props::panic_message(&*e)));
                        judge(p, i, fw, expected, got, &xs)?
                    }
                    _ => None,
                }
            }
        };
        tensors.push(t);
    }
    Ok(judged)
}

/// A framework's panic, carried as its error.
struct PanicOf(String);

fn judge<F: Framework>(
    p: &NpProgram,
    i: usize,
    fw: &F,
    expected: &Outcome,
    got: Result<Result<F::Tensor, F::Error>, PanicOf>,
    xs: &[&F::Tensor],
) -> Result<Option<F::Tensor>, Box<Disagreement>> {
    let got = match got {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(PanicOf(m)) => Err(format!("panicked: {m}")),
    };
    let seen = got.as_ref().map(|t| (fw.shape(t), fw.dtype(t))).map_err(Clone::clone);
    let agree = match (expected, &seen) {
        (Outcome::Value(t), Ok((s, d))) => *s == t.shape && d.as_ref().is_none_or(|d| d == t.dtype),
        (Outcome::Rejected(_), Err(_)) => true,
        _ => false,
    };
    if agree {
        return Ok(got.ok());
    }
    let NpValue::Step { op, args } = &p.values[i] else { return Ok(None) };
    let names: Vec<String> = args
        .iter()
        .zip(xs)
        .map(|(&a, x)| format!("{} {}", p.name(a), shape_text(&fw.shape(x))))
        .collect();
    Err(Box::new(Disagreement {
        program: p.clone(),
        step: i,
        call: op.call_text(&names),
        expected: expected.clone(),
        got: seen,
    }))
}

/// Replays a saved case (a [`Disagreement::case`], or a bare program's JSON) through a
/// framework: `Ok(Ok(steps judged))` when it now agrees, `Ok(Err(..))` when it still
/// disagrees, `Err` when the case cannot be read.
pub fn replay<F: Framework>(
    case: &Value,
    fw: &mut F,
) -> Result<Result<usize, Box<Disagreement>>, String> {
    let program = if case.get("program").is_some() { &case["program"] } else { case };
    let p = NpProgram::from_json(program)?;
    Ok(check_framework(&p, fw))
}
