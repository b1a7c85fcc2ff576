//! einrow's verdict on one numpy operation: the result's shape and element type, or the
//! error numpy raises, as a code. Einsum (and the einsum form of matmul) goes through
//! einrow's numpy engine ([`crate::numpy::einsum_shape`]); the other rules are numpy's, written
//! out here and checked against numpy itself by the Python package's tests (numpy 2).
//!
//! Where numpy checks several things, the first failing check gives the code, in numpy's
//! order (a `concatenate` axis out of range is reported before operands of another rank).

use super::axis_rules;
use super::dtypes::{result_type, sum_type};
use super::op::NpOp;
use crate::code::{Coded, ErrorCode};
use crate::numpy::einsum_shape;

/// A result: its shape and numpy's element type.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Typed {
    /// The shape.
    pub shape: Vec<usize>,
    /// numpy's name of the element type.
    pub dtype: &'static str,
}

/// Why numpy refuses an operation: einrow's code for the class of error, and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Rejection {
    /// The class of the error (numpy's `AxisError` is `bounds`, a shape conflict `mismatch`,
    /// operands of the wrong number of axes `rank`, a reshape of the wrong element count
    /// `elems`, a repeated axis `value`, a missing operand `arity`).
    pub code: ErrorCode,
    /// numpy's reason in words.
    pub message: String,
}

impl Rejection {
    /// A rejection of class `code`.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Rejection {
        Rejection { code, message: message.into() }
    }
}

impl std::fmt::Display for Rejection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "error[{}]: {}", self.code, self.message)
    }
}

/// The outcome of an operation on operands of these shapes and element types.
pub type Verdict = Result<Typed, Rejection>;

/// einrow's verdict on `op` over operands of these shapes and numpy element types.
///
/// ```
/// use einrow::fuzzing::numpy_ops::{verdict, NpOp};
/// use einrow::ErrorCode;
///
/// let two_by_three: &[usize] = &[2, 3];
/// let mm = verdict(&NpOp::Matmul, &[(two_by_three, "float32"), (&[3][..], "int8")]);
/// assert_eq!(mm.map(|t| (t.shape, t.dtype)), Ok((vec![2], "float32")));
/// let cat = verdict(&NpOp::Concatenate { axis: Some(0) }, &[(two_by_three, "float64"), (&[3][..], "float64")]);
/// assert_eq!(cat.unwrap_err().code, ErrorCode::Rank);
/// ```
pub fn verdict(op: &NpOp, operands: &[(&[usize], &str)]) -> Verdict {
    let shapes: Vec<&[usize]> = operands.iter().map(|(s, _)| *s).collect();
    let dtypes: Vec<&str> = operands.iter().map(|(_, d)| *d).collect();
    let promoted = || result_type(&dtypes);
    let one = || -> Result<(&[usize], &str), Rejection> {
        match operands {
            [(s, d)] => Ok((s, d)),
            _ => Err(arity(op.name(), 1, operands.len())),
        }
    };
    let typed = |shape: Vec<usize>, dtype: &'static str| Typed { shape, dtype };
    match op {
        NpOp::Add => match shapes.as_slice() {
            [a, b] => broadcast_shapes(&[a, b]).map(|s| typed(s, promoted())),
            _ => Err(arity("add", 2, shapes.len())),
        },
        NpOp::Matmul => match shapes.as_slice() {
            [a, b] => matmul(a, b).map(|s| typed(s, promoted())),
            _ => Err(arity("matmul", 2, shapes.len())),
        },
        NpOp::Einsum { subscripts } => einsum(subscripts, &shapes).map(|s| typed(s, promoted())),
        NpOp::Concatenate { axis } => {
            axis_rules::concatenate(&shapes, *axis).map(|s| typed(s, promoted()))
        }
        NpOp::Stack { axis } => axis_rules::stack(&shapes, *axis).map(|s| typed(s, promoted())),
        NpOp::Transpose { axes } => {
            let (s, d) = one()?;
            axis_rules::transpose(s, axes.as_deref()).map(|s| typed(s, static_name(d)))
        }
        NpOp::Sum { axis, keepdims } => {
            let (s, d) = one()?;
            axis_rules::sum(s, axis, *keepdims).map(|s| typed(s, sum_type(d)))
        }
        NpOp::ExpandDims { axis } => {
            let (s, d) = one()?;
            axis_rules::expand_dims(s, *axis).map(|s| typed(s, static_name(d)))
        }
        NpOp::Squeeze { axis } => {
            let (s, d) = one()?;
            axis_rules::squeeze(s, *axis).map(|s| typed(s, static_name(d)))
        }
        NpOp::Reshape { shape } => {
            let (s, d) = one()?;
            axis_rules::reshape(s, shape).map(|s| typed(s, static_name(d)))
        }
    }
}

fn static_name(d: &str) -> &'static str {
    super::dtypes::dtype_name(d).unwrap_or("float64")
}

fn arity(name: &str, want: usize, got: usize) -> Rejection {
    Rejection::new(ErrorCode::Arity, format!("{name} takes {want} operand(s), {got} given"))
}

/// Writes a shape as numpy prints it: `(2, 3)`, `(4,)`, `()`.
pub fn shape_text(s: &[usize]) -> String {
    super::op::tuple_text(s)
}

/// numpy's broadcasting of several shapes (`numpy.broadcast_shapes`): right-aligned, each
/// axis equal or 1 (1 stretches, also to 0).
pub fn broadcast_shapes(shapes: &[&[usize]]) -> Result<Vec<usize>, Rejection> {
    let rank = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; rank];
    for s in shapes {
        for (o, &d) in out[rank - s.len()..].iter_mut().zip(s.iter()) {
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                let all: Vec<String> = shapes.iter().map(|s| shape_text(s)).collect();
                let msg = format!("shapes {} do not broadcast", all.join(" "));
                return Err(Rejection::new(ErrorCode::Mismatch, msg));
            }
        }
    }
    Ok(out)
}

/// numpy's einsum result shape (einrow's numpy engine).
fn einsum(subscripts: &str, shapes: &[&[usize]]) -> Result<Vec<usize>, Rejection> {
    if shapes.is_empty() {
        return Err(Rejection::new(ErrorCode::Arity, "einsum needs at least one operand"));
    }
    einsum_shape(subscripts, shapes).map_err(|e| Rejection::new(e.code(), e.to_string()))
}

/// numpy's matmul: a 1-D first operand is a row, a 1-D second one a column (each promoted
/// axis removed from the result); the contracted axes are equal exactly (they never
/// broadcast); the batch axes broadcast. Computed as einrow's einsum of the promoted form.
fn matmul(a: &[usize], b: &[usize]) -> Result<Vec<usize>, Rejection> {
    for (i, s) in [a, b].iter().enumerate() {
        if s.is_empty() {
            let msg = format!("matmul: operand {i} is 0-d; it needs at least 1 axis");
            return Err(Rejection::new(ErrorCode::Rank, msg));
        }
    }
    let k_a = a[a.len() - 1];
    let k_b = if b.len() == 1 { b[0] } else { b[b.len() - 2] };
    if k_a != k_b {
        let msg = format!(
            "matmul: the contracted axes differ: {} against {} (shapes {} and {})",
            k_a,
            k_b,
            shape_text(a),
            shape_text(b)
        );
        return Err(Rejection::new(ErrorCode::Mismatch, msg));
    }
    let lhs = if a.len() == 1 { "j" } else { "...ij" };
    let rhs = if b.len() == 1 { "j" } else { "...jk" };
    let out = match (a.len(), b.len()) {
        (1, 1) => "",
        (1, _) => "...k",
        (_, 1) => "...i",
        _ => "...ik",
    };
    einsum(&format!("{lhs},{rhs}->{out}"), &[a, b]).map_err(|e| Rejection {
        message: format!(
            "matmul: the batch axes of {} and {} do not broadcast",
            shape_text(a),
            shape_text(b)
        ),
        ..e
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::numpy_ops::op::Axes;

    fn shape(op: NpOp, shapes: &[&[usize]]) -> Result<Vec<usize>, ErrorCode> {
        let ops: Vec<(&[usize], &str)> = shapes.iter().map(|s| (*s, "float64")).collect();
        verdict(&op, &ops).map(|t| t.shape).map_err(|r| r.code)
    }

    #[test]
    fn numpy_rules() {
        use ErrorCode::*;
        assert_eq!(shape(NpOp::Add, &[&[2, 1], &[3]]), Ok(vec![2, 3]));
        assert_eq!(shape(NpOp::Add, &[&[0], &[1]]), Ok(vec![0]));
        assert_eq!(shape(NpOp::Add, &[&[0], &[2]]), Err(Mismatch));
        assert_eq!(shape(NpOp::Matmul, &[&[1, 2, 3], &[3, 4]]), Ok(vec![1, 2, 4]));
        assert_eq!(shape(NpOp::Matmul, &[&[3], &[3]]), Ok(vec![]));
        assert_eq!(shape(NpOp::Matmul, &[&[3], &[5, 3, 2]]), Ok(vec![5, 2]));
        assert_eq!(shape(NpOp::Matmul, &[&[2, 1], &[3, 2]]), Err(Mismatch));
        assert_eq!(shape(NpOp::Matmul, &[&[], &[3]]), Err(Rank));
        let ii = NpOp::Einsum { subscripts: "ii->i".into() };
        assert_eq!(shape(ii, &[&[3, 3]]), Ok(vec![3]));
        let cat = NpOp::Concatenate { axis: Some(-1) };
        assert_eq!(shape(cat.clone(), &[&[2, 3], &[2, 0]]), Ok(vec![2, 3]));
        assert_eq!(shape(cat.clone(), &[&[2, 3], &[3]]), Err(Rank));
        assert_eq!(shape(cat, &[&[2, 3], &[3, 3]]), Err(Mismatch));
        let t = NpOp::Transpose { axes: Some(vec![-1, 0, 1]) };
        assert_eq!(shape(t, &[&[2, 3, 4]]), Ok(vec![4, 2, 3]));
        let s = NpOp::Sum { axis: Axes::Many(vec![0, -1]), keepdims: true };
        assert_eq!(shape(s, &[&[2, 3, 4]]), Ok(vec![1, 3, 1]));
        assert_eq!(shape(NpOp::Reshape { shape: vec![-1, 2] }, &[&[3, 4]]), Ok(vec![6, 2]));
        assert_eq!(shape(NpOp::Reshape { shape: vec![-1, 0] }, &[&[0, 4]]), Err(Elems));
    }
}
