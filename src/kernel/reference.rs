//! A naive evaluator of a [`Nest`]: every point in row-major order of the product space,
//! addresses recomputed from scratch, guards checked everywhere. It defines the semantics
//! the optimised executor is tested against (by the kernel's property tests).

use super::error::KernelError;
use super::nest::{Access, Init, Nest};
use super::scalar::Scalar;

/// Runs `nest` naively on `inputs` into `output`.
pub fn run_reference<T: Scalar>(
    nest: &Nest,
    inputs: &[&[T]],
    output: &mut [T],
) -> Result<(), KernelError> {
    nest.validate(&inputs.iter().map(|i| i.len()).collect::<Vec<_>>(), output.len())?;
    let neutral = nest.accum.neutral_value::<T>();
    if let (Init::Whole, Some(z)) = (nest.init, neutral) {
        output.iter_mut().for_each(|o| *o = z);
    }
    if let (Init::Touched, Some(z)) = (nest.init, neutral) {
        crate::tensor::for_each_position::<KernelError>(&nest.extents, |p| {
            if let Some(a) = address(&nest.output, p, output.len())? {
                output[a] = z;
            }
            Ok(())
        })?;
    }
    crate::tensor::for_each_position::<KernelError>(&nest.extents, |p| {
        let Some(oa) = address(&nest.output, p, output.len())? else { return Ok(()) };
        let mut v: Option<T> = None;
        for (acc, buf) in nest.inputs.iter().zip(inputs) {
            let x = match address(acc, p, buf.len())? {
                Some(a) => buf[a],
                None => T::from_fill(acc.fill),
            };
            v = Some(match v {
                None => x,
                Some(prev) => nest.combine.apply(prev, x),
            });
        }
        if let Some(v) = v {
            output[oa] = nest.accum.apply(output[oa], v);
        }
        Ok(())
    })
}

/// The address `acc` touches at point `p`, `None` where a guard fails; an error when the
/// address lies outside a buffer of `len` elements.
fn address(acc: &Access, p: &[usize], len: usize) -> Result<Option<usize>, KernelError> {
    for g in &acc.guards {
        let idx: i128 = g.offset as i128
            + g.coeffs.iter().zip(p).map(|(&c, &i)| c as i128 * i as i128).sum::<i128>();
        if idx < 0 || idx >= g.len as i128 {
            return Ok(None);
        }
    }
    let a: i128 = acc.offset as i128
        + acc.strides.iter().zip(p).map(|(&s, &i)| s as i128 * i as i128).sum::<i128>();
    if a < 0 || a >= len as i128 {
        return Err(KernelError::OutOfBounds { operand: "an operand".into(), reach: a, len });
    }
    Ok(Some(a as usize))
}
