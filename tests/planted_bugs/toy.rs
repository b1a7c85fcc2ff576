//! A toy framework whose shape rules are written from numpy's documentation (not from
//! einrow), with five realistic bugs that can be planted:
//!
//! - `BroadcastDerived`: `add` skips its broadcast check when an operand came from an earlier
//!   operation, taking the larger size per axis;
//! - `EinsumDiagonal`: `einsum` drops an output label repeated in an input term;
//! - `MatmulLeadingOne`: `matmul` strips a leading 1 from the result's batch axes;
//! - `ConcatRanks`: `concatenate` of operands of different ranks adds each operand's own axis;
//! - `PermuteNegative`: `transpose` reads a negative axis one off (`-1` as `n - 2`).

use einrow::fuzzing::numpy_ops::{Framework, NpOp};

/// A bug the toy framework can have.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bug {
    BroadcastDerived,
    EinsumDiagonal,
    MatmulLeadingOne,
    ConcatRanks,
    PermuteNegative,
}

/// A tensor: its shape, and whether an operation made it.
#[derive(Clone, Debug)]
pub struct T {
    pub shape: Vec<usize>,
    pub derived: bool,
}

/// The toy framework, with the bugs planted.
pub struct Toy {
    pub bugs: Vec<Bug>,
}

type R = Result<Vec<usize>, String>;

fn axis(a: i64, n: usize) -> Result<usize, String> {
    let n = n as i64;
    if (-n..n).contains(&a) {
        Ok(a.rem_euclid(n.max(1)) as usize)
    } else {
        Err(format!("axis {a} out of bounds for {n} axes"))
    }
}

fn broadcast(shapes: &[&[usize]], check: bool) -> R {
    let n = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1; n];
    for s in shapes {
        for (i, &d) in s.iter().enumerate() {
            let o = &mut out[n - s.len() + i];
            if *o == 1 {
                *o = d;
            } else if d != 1 && d != *o {
                if check {
                    return Err(format!("cannot broadcast {shapes:?}"));
                }
                *o = (*o).max(d);
            }
        }
    }
    Ok(out)
}

impl Toy {
    fn has(&self, b: Bug) -> bool {
        self.bugs.contains(&b)
    }

    fn matmul(&self, a: &[usize], b: &[usize]) -> R {
        if a.is_empty() || b.is_empty() {
            return Err("matmul of a 0-d operand".into());
        }
        let sa = if a.len() == 1 { [&[1], a].concat() } else { a.to_vec() };
        let sb = if b.len() == 1 { [b, &[1]].concat() } else { b.to_vec() };
        if sa[sa.len() - 1] != sb[sb.len() - 2] {
            return Err("matmul core mismatch".into());
        }
        let mut out = broadcast(&[&sa[..sa.len() - 2], &sb[..sb.len() - 2]], true)?;
        if self.has(Bug::MatmulLeadingOne) && out.first() == Some(&1) {
            out.remove(0);
        }
        if a.len() > 1 {
            out.push(sa[sa.len() - 2]);
        }
        if b.len() > 1 {
            out.push(sb[sb.len() - 1]);
        }
        Ok(out)
    }

    fn concatenate(&self, xs: &[&[usize]], ax: Option<i64>) -> R {
        let first = xs.first().ok_or("nothing to concatenate")?;
        let Some(ax) = ax else {
            return Ok(vec![xs.iter().map(|s| s.iter().product::<usize>()).sum()]);
        };
        if first.is_empty() {
            return Err("0-d concatenation".into());
        }
        let k = axis(ax, first.len())?;
        let mut out = first.to_vec();
        for x in &xs[1..] {
            if x.len() != first.len() {
                if !self.has(Bug::ConcatRanks) {
                    return Err("ranks differ".into());
                }
                out[k] += x[axis(ax, x.len())?];
                continue;
            }
            if (0..x.len()).any(|i| i != k && x[i] != first[i]) {
                return Err("sizes differ off the axis".into());
            }
            out[k] += x[k];
        }
        Ok(out)
    }

    fn transpose(&self, a: &[usize], axes: Option<&[i64]>) -> R {
        let n = a.len();
        let Some(axes) = axes else { return Ok(a.iter().rev().copied().collect()) };
        if axes.len() != n {
            return Err("axes don't match".into());
        }
        let mut seen = vec![false; n];
        let mut out = Vec::new();
        for &x in axes {
            let x = if self.has(Bug::PermuteNegative) && x < 0 { x + n as i64 - 1 } else { x };
            let i = axis(x, n)?;
            if std::mem::replace(&mut seen[i], true) {
                return Err("repeated axis".into());
            }
            out.push(a[i]);
        }
        Ok(out)
    }
}

impl Framework for Toy {
    type Tensor = T;
    type Error = String;

    fn leaf(&mut self, shape: &[usize], _dtype: &str) -> T {
        T { shape: shape.to_vec(), derived: false }
    }

    fn apply(&mut self, op: &NpOp, xs: &[&T]) -> Result<T, String> {
        let s: Vec<&[usize]> = xs.iter().map(|t| t.shape.as_slice()).collect();
        let one = || s.first().copied().ok_or("no operand".to_string());
        let shape = match op {
            NpOp::Add => {
                let skip = self.has(Bug::BroadcastDerived) && xs.iter().any(|t| t.derived);
                broadcast(&s, !skip)?
            }
            NpOp::Matmul => match s.as_slice() {
                [a, b] => self.matmul(a, b)?,
                _ => return Err("matmul takes two operands".into()),
            },
            NpOp::Einsum { subscripts } => {
                super::einsum::einsum(subscripts, &s, self.has(Bug::EinsumDiagonal))?
            }
            NpOp::Concatenate { axis } => self.concatenate(&s, *axis)?,
            NpOp::Transpose { axes } => self.transpose(one()?, axes.as_deref())?,
            _ => return Err(format!("the toy framework has no {}", op.name())),
        };
        Ok(T { shape, derived: true })
    }

    fn shape(&self, t: &T) -> Vec<usize> {
        t.shape.clone()
    }
}
