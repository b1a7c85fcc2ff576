//! `ndarray` interop (the `ndarray` feature): [`View`] and [`ViewMut`] from and to ndarray's
//! `ArrayView` and `ArrayViewMut`, and compiled plans run on them.
//!
//! A view converts without copying when its elements fill one block of memory in some order
//! (any axis order, reversed axes): ndarray hands out that block safely. A view with gaps (a
//! stepped slice) is an `unsupported` error; `as_standard_layout()` makes a contiguous copy.

use ndarray::{
    ArrayView, ArrayViewD, ArrayViewMut, ArrayViewMutD, Axis, Dimension, IxDyn, ShapeBuilder,
};

use super::compiled::Executable;
use super::error::ProjectError;
use super::storage::Storage;
use super::view::{View, ViewMut};
use crate::code::ErrorCode;
use crate::infer::InferError;

fn unsupported(message: String) -> ProjectError {
    ProjectError::Infer(InferError::Usage { code: ErrorCode::Unsupported, message })
}

/// The offset of the logical first element from the lowest address of a view.
fn first_offset(shape: &[usize], strides: &[isize]) -> usize {
    shape
        .iter()
        .zip(strides)
        .filter(|(&n, &s)| s < 0 && n > 0)
        .map(|(&n, &s)| (n - 1) * s.unsigned_abs())
        .sum()
}

fn sizes(shape: &[usize]) -> Vec<u64> {
    shape.iter().map(|&n| n as u64).collect()
}

impl<'a, T, D: Dimension> TryFrom<ArrayView<'a, T, D>> for View<'a, T> {
    type Error = ProjectError;

    /// The same elements, without copying; a view with gaps is an `unsupported` error.
    fn try_from(a: ArrayView<'a, T, D>) -> Result<View<'a, T>, ProjectError> {
        let (shape, strides) = (a.shape().to_vec(), a.strides().to_vec());
        let data = a.to_slice_memory_order().ok_or_else(|| {
            unsupported(format!(
                "an ndarray view of shape {shape:?} with strides {strides:?} has gaps: make it \
                 contiguous (`as_standard_layout()`)"
            ))
        })?;
        View::strided(data, &sizes(&shape), &strides, first_offset(&shape, &strides))
    }
}

impl<'a, T, D: Dimension> TryFrom<ArrayViewMut<'a, T, D>> for ViewMut<'a, T> {
    type Error = ProjectError;

    /// The same elements, without copying; a view with gaps is an `unsupported` error.
    fn try_from(a: ArrayViewMut<'a, T, D>) -> Result<ViewMut<'a, T>, ProjectError> {
        let (shape, strides) = (a.shape().to_vec(), a.strides().to_vec());
        let offset = first_offset(&shape, &strides);
        let data = a.into_slice_memory_order().ok_or_else(|| {
            unsupported(format!(
                "an ndarray view of shape {shape:?} with strides {strides:?} has gaps: make it \
                 contiguous (`as_standard_layout()`)"
            ))
        })?;
        ViewMut::strided(data, &sizes(&shape), &strides, offset)
    }
}

/// The lowest address of a view's elements and its strides with their signs removed, and
/// which axes were reversed.
fn unsigned(layout: &super::view::Strided) -> (usize, Vec<usize>, Vec<usize>) {
    let low = layout.offset - first_offset(&layout.dims, &layout.strides);
    let strides = layout.strides.iter().map(|s| s.unsigned_abs()).collect();
    let reversed =
        layout.strides.iter().enumerate().filter(|(_, s)| **s < 0).map(|(k, _)| k).collect();
    (low, strides, reversed)
}

fn shape_error(e: ndarray::ShapeError) -> ProjectError {
    ProjectError::Data(format!("the view does not make an ndarray view: {e}"))
}

impl<'a, T> View<'a, T> {
    /// The same elements as an ndarray view (no copy).
    pub fn to_ndarray(&self) -> Result<ArrayViewD<'a, T>, ProjectError> {
        let (low, strides, reversed) = unsigned(&self.layout);
        let data = self.data.get(low..).unwrap_or_default();
        let dims: Vec<usize> = self.layout.dims.to_vec();
        let mut a = ArrayView::from_shape(IxDyn(&dims).strides(IxDyn(&strides)), data)
            .map_err(shape_error)?;
        for k in reversed {
            a.invert_axis(Axis(k));
        }
        Ok(a)
    }
}

impl<'a, T> ViewMut<'a, T> {
    /// The same elements as a mutable ndarray view (no copy).
    pub fn into_ndarray(self) -> Result<ArrayViewMutD<'a, T>, ProjectError> {
        let (low, strides, reversed) = unsigned(&self.layout);
        let data = match self.data.len() >= low {
            true => &mut self.data[low..],
            false => &mut [],
        };
        let dims: Vec<usize> = self.layout.dims.to_vec();
        let mut a = ArrayViewMut::from_shape(IxDyn(&dims).strides(IxDyn(&strides)), data)
            .map_err(shape_error)?;
        for k in reversed {
            a.invert_axis(Axis(k));
        }
        Ok(a)
    }
}

impl Executable {
    /// Runs the plan on ndarray views (no copy; see [`Executable::run_views`]).
    ///
    /// ```
    /// use einrow::project::{plan_einsum, Concrete, Executable};
    /// use ndarray::{array, Array2};
    ///
    /// let plan = plan_einsum("ij;jk=>ik", &[&Concrete::output(&[2, 2]), &Concrete::output(&[2, 2])])?;
    /// let exe = Executable::compile(&plan)?;
    /// let a = array![[1.0f32, 2.0], [3.0, 4.0]];
    /// let mut c = Array2::<f32>::zeros((2, 2));
    /// // `a` times its transpose, read without a copy.
    /// exe.run_ndarray(&[a.view(), a.t()], c.view_mut())?;
    /// assert_eq!(c, array![[5.0, 11.0], [11.0, 25.0]]);
    /// # Ok::<(), einrow::project::ProjectError>(())
    /// ```
    pub fn run_ndarray<T: Storage, D: Dimension, E: Dimension>(
        &self,
        inputs: &[ArrayView<'_, T, D>],
        output: ArrayViewMut<'_, T, E>,
    ) -> Result<(), ProjectError> {
        let views =
            inputs.iter().map(|a| View::try_from(a.view())).collect::<Result<Vec<_>, _>>()?;
        self.run_views(&views, &mut ViewMut::try_from(output)?)
    }
}

#[cfg(test)]
mod tests {
    use ndarray::{s, Array2, Array3};

    use super::super::{View, ViewMut};

    #[test]
    fn views_convert_both_ways() {
        let a = Array3::<f64>::from_shape_fn((2, 3, 4), |(i, j, k)| (i * 100 + j * 10 + k) as f64);
        for v in [a.view(), a.view().reversed_axes(), a.slice(s![..;-1, .., ..;-1])] {
            let ours = View::try_from(v).expect("contiguous in some order");
            let back = ours.to_ndarray().expect("converts back");
            assert_eq!(back, v.into_dyn());
        }
        let err = View::try_from(a.slice(s![.., ..;2, ..])).expect_err("gaps");
        assert_eq!(einrow_code(&err), crate::code::ErrorCode::Unsupported);
        let mut m = Array2::<f32>::zeros((2, 3));
        let view = ViewMut::try_from(m.view_mut().reversed_axes()).expect("converts");
        let mut back = view.into_ndarray().expect("converts back");
        back[[2, 1]] = 7.0;
        assert_eq!(m[[1, 2]], 7.0);
    }

    fn einrow_code(e: &super::ProjectError) -> crate::code::ErrorCode {
        crate::code::Coded::code(e)
    }
}
