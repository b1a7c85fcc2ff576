//! Random strided views (shape, strides — zero, negative and gapped — and offset over a
//! buffer) and the kernel property: numpy einsum on views equals the naive reference on the
//! views' logical values.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Arc;

use proptest::prelude::*;

use super::gen::Choices;
use super::numpy::{naive_einsum, numpy_case, NumpyCase};
use super::props::{panic_message, Failure, FailureKind};
use crate::tensor::{Buffer, DType, Layout, Tensor};

/// A strided view over its own buffer.
#[derive(Clone, Debug, PartialEq)]
pub struct StridedView {
    /// Axis sizes.
    pub shape: Vec<usize>,
    /// Strides in elements (may be 0 or negative).
    pub strides: Vec<isize>,
    /// Offset of element `[0, …, 0]` in the buffer.
    pub offset: usize,
    /// The buffer (small integers, so results are exact).
    pub buffer: Vec<f64>,
}

impl StridedView {
    /// A view of `shape` from random choices: per axis a stride of 0 (broadcast), the packed
    /// stride, a gapped one, or a negated one; the offset makes the lowest address 0 (plus
    /// slack), the buffer covers the highest.
    pub fn from_choices(ch: &mut Choices, shape: &[usize]) -> StridedView {
        let mut strides = vec![0isize; shape.len()];
        // The span of the inner axes, in elements.
        let mut extent: isize = 1;
        for i in (0..shape.len()).rev() {
            let s = match ch.below(6) {
                0..=2 => extent,
                3 => extent.saturating_mul(2),
                4 if shape[i] > 1 => 0,
                _ => -extent,
            };
            strides[i] = s;
            if s != 0 {
                extent = s.abs().saturating_mul(shape[i].max(1) as isize);
            }
        }
        let reach = |sign: isize| -> isize {
            shape
                .iter()
                .zip(&strides)
                .map(|(n, s)| if s.signum() == sign { s * (*n as isize - 1).max(0) } else { 0 })
                .sum()
        };
        let (low, high) = (reach(-1), reach(1));
        let offset = (-low) as usize + ch.below(3);
        let len = offset + high as usize + 1 + ch.below(3);
        let buffer = (0..len).map(|_| ch.below(7) as f64 - 3.0).collect();
        StridedView { shape: shape.to_vec(), strides, offset, buffer }
    }

    /// The view's elements in row-major order of its shape (computed here, not by einrow).
    pub fn logical(&self) -> Vec<f64> {
        let n: usize = self.shape.iter().product();
        let mut out = Vec::with_capacity(n);
        let mut idx = vec![0usize; self.shape.len()];
        for _ in 0..n {
            let addr = self.offset as isize
                + idx.iter().zip(&self.strides).map(|(i, s)| *i as isize * s).sum::<isize>();
            out.push(self.buffer.get(addr as usize).copied().unwrap_or(f64::NAN));
            for a in (0..idx.len()).rev() {
                idx[a] += 1;
                if idx[a] < self.shape[a] {
                    break;
                }
                idx[a] = 0;
            }
        }
        out
    }

    /// The view as an einrow tensor of `dtype` (the buffer converted).
    pub fn tensor(&self, dtype: DType) -> Result<Tensor, String> {
        let layout = Layout::from_parts(&self.shape, &self.strides, self.offset)
            .map_err(|e| e.to_string())?;
        let buf = match dtype {
            DType::F32 => Buffer::F32(Arc::new(self.buffer.iter().map(|x| *x as f32).collect())),
            DType::I8 => Buffer::I8(Arc::new(self.buffer.iter().map(|x| *x as i8).collect())),
            _ => Buffer::F64(Arc::new(self.buffer.clone())),
        };
        Tensor::from_parts(buf, layout).map_err(|e| e.to_string())
    }
}

/// A numpy case with one strided view per operand, interpreted from random choices.
pub fn einsum_on_views(ch: &mut Choices) -> (NumpyCase, Vec<StridedView>, DType) {
    let near_valid = ch.one_in(4);
    let case = numpy_case(ch, near_valid);
    let views = case.shapes.iter().map(|s| StridedView::from_choices(ch, s)).collect();
    let dtype = [DType::F64, DType::F32, DType::I8][ch.below(3)];
    (case, views, dtype)
}

/// Strategy: numpy cases on strided views.
pub fn einsum_view_cases() -> impl Strategy<Value = (NumpyCase, Vec<StridedView>, DType)> {
    proptest::collection::vec(any::<u32>(), 0..256)
        .prop_map(|data| einsum_on_views(&mut Choices::new(&data)))
}

/// `einrow::einsum` on the views never panics; where the naive reference accepts the case it
/// succeeds with the reference's shape and values (small integers: exact in every dtype, int8
/// sums only checked when they stay in range).
pub fn check_einsum_views(
    case: &NumpyCase,
    views: &[StridedView],
    dtype: DType,
) -> Result<(), Failure> {
    let logical: Vec<Vec<f64>> = views.iter().map(StridedView::logical).collect();
    let reference = naive_einsum(&case.spec, &case.shapes, &logical);
    let tensors: Vec<Tensor> =
        views.iter().map(|v| v.tensor(dtype)).collect::<Result<_, _>>().map_err(|e| {
            Failure::new(FailureKind::Differential, format!("building a view: {e}"))
        })?;
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let run = catch_unwind(AssertUnwindSafe(|| crate::einsum(&case.spec, &refs)));
    let got = match run {
        Err(p) => {
            return Err(Failure::new(
                FailureKind::Panic,
                format!("{}: {}", case.spec, panic_message(&*p)),
            ))
        }
        Ok(r) => r,
    };
    let Ok((shape, want)) = reference else { return Ok(()) };
    let t = got.map_err(|e| {
        Failure::new(
            FailureKind::Differential,
            format!("{} on {:?}: einrow fails: {e}", case.spec, case.shapes),
        )
    })?;
    let fits_i8 = want.iter().all(|v| (-128.0..=127.0).contains(v));
    if t.shape() != shape.as_slice() || (dtype != DType::I8 || fits_i8) && t.to_f64_vec() != want {
        let msg = format!(
            "{} on {:?} ({dtype:?} views {:?}): einrow gives {:?} {:?}, the reference {:?} {:?}",
            case.spec,
            case.shapes,
            views.iter().map(|v| (&v.strides, v.offset)).collect::<Vec<_>>(),
            t.shape(),
            t.to_f64_vec(),
            shape,
            want
        );
        return Err(Failure::new(FailureKind::Differential, msg));
    }
    Ok(())
}
