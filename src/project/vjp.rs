//! [`einsum_vjp`]: the gradients of numpy's einsum with respect to its operands, from the
//! gradient of its result, by the operands' [gradient plans](super::GradientPlan).

use super::compiled::Executable;
use super::error::ProjectError;
use super::gradient::GradInput;
use super::numpy_part::plan_numpy;
use super::view::{View, ViewMut};
use crate::kernel::Scalar;
use crate::tensor::{result_type, DType, Tensor};

/// The gradient of `Σ cotangent · einsum(subscripts, operands)` with respect to each operand
/// (a vector-Jacobian product): one tensor per operand, of its shape and type. numpy's
/// semantics throughout: an operand's size-1 axis broadcast against a longer one gets the
/// sum over that axis, a repeated label (a diagonal) gets its gradient on the diagonal and 0
/// elsewhere, a label summed away is broadcast back. Computed in the operands' and the
/// cotangent's common float type (float16 and bfloat16 in float32).
///
/// Errors (coded): subscripts that do not fit the operands (as [`einsum`](crate::einsum)), a
/// cotangent of another shape than the result's (`elems`), an integer or bool array
/// (`type`: such an einsum has no gradient).
///
/// ```
/// use einrow::project::einsum_vjp;
/// use einrow::tensor::Tensor;
/// let a = Tensor::from_vec(&[2, 3], vec![1.0f64, 2.0, 3.0, 4.0, 5.0, 6.0])?;
/// let b = Tensor::from_vec(&[3], vec![1.0f64, 0.0, -1.0])?;
/// let ct = Tensor::from_vec(&[2], vec![1.0f64, 10.0])?;
/// let [ga, gb] = <[Tensor; 2]>::try_from(einsum_vjp("ij,j->i", &[&a, &b], &ct)?).unwrap();
/// assert_eq!(ga.to_f64_vec(), [1.0, 0.0, -1.0, 10.0, 0.0, -10.0]); // ct[i] · b[j]
/// assert_eq!(gb.to_f64_vec(), [41.0, 52.0, 63.0]); // Σ_i ct[i] · a[i, j]
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn einsum_vjp(
    subscripts: &str,
    operands: &[&Tensor],
    cotangent: &Tensor,
) -> Result<Vec<Tensor>, ProjectError> {
    let all = operands.iter().copied().chain([cotangent]);
    if let Some(t) = all.clone().find(|t| !t.dtype().is_float()) {
        let msg = format!("einsum's gradient is of float arrays, not {}", t.dtype().name());
        return Err(ProjectError::DType(msg));
    }
    let shapes: Vec<&[usize]> = operands.iter().map(|t| t.shape()).collect();
    let plan = plan_numpy(subscripts, &shapes)?;
    if cotangent.shape().iter().map(|&d| d as u64).ne(plan.result_dims.iter().copied()) {
        let msg = format!(
            "the cotangent has shape {:?}; the einsum's result {:?}",
            cotangent.shape(),
            plan.result_dims
        );
        return Err(ProjectError::Data(msg));
    }
    let compute = result_type(all.map(|t| t.dtype())).unwrap_or(DType::F64).compute_dtype();
    let mut out = Vec::with_capacity(operands.len());
    for (k, op) in operands.iter().enumerate() {
        let grad = plan.gradient(k)?;
        let reads: Vec<&Tensor> = grad
            .inputs
            .iter()
            .map(|i| match i {
                GradInput::Operand(j) => operands[*j],
                _ => cotangent,
            })
            .collect();
        let exe = Executable::compile(&grad.plan)?;
        let g = match compute {
            DType::F32 => run::<f32>(&exe, &reads, op.shape())?,
            _ => run::<f64>(&exe, &reads, op.shape())?,
        };
        out.push(g.astype(op.dtype()));
    }
    Ok(out)
}

/// Runs a gradient plan in `T` on `reads` (viewed where they are when of type `T`) into a
/// fresh tensor of `shape`.
fn run<T: Scalar + super::storage::Storage>(
    exe: &Executable,
    reads: &[&Tensor],
    shape: &[usize],
) -> Result<Tensor, ProjectError> {
    let converted: Vec<Tensor> = reads.iter().map(|t| t.astype(T::DTYPE)).collect();
    let mut views = Vec::with_capacity(converted.len());
    for t in &converted {
        let (data, layout) =
            t.typed::<T>().ok_or_else(|| ProjectError::DType("a conversion".into()))?;
        let sizes: Vec<u64> = layout.shape().iter().map(|&d| d as u64).collect();
        views.push(View::strided(data, &sizes, layout.strides(), layout.offset())?);
    }
    let n = crate::tensor::numel(shape).map_err(|e| ProjectError::Kernel(e.into()))?;
    let mut data = vec![T::ZERO; n];
    let sizes: Vec<u64> = shape.iter().map(|&d| d as u64).collect();
    exe.run_views(&views, &mut ViewMut::contiguous(&mut data, &sizes)?)?;
    Tensor::from_vec(shape, data).map_err(|e| ProjectError::Kernel(e.into()))
}
