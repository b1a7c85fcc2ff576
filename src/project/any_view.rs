//! [`AnyView`] and [`AnyViewMut`]: views whose element type is known only at run time, as a
//! framework's tensors carry a dtype; a compiled plan checks that they agree.

use half::{bf16, f16};

use super::compiled::Executable;
use super::error::ProjectError;
use super::view::{View, ViewMut};
use crate::tensor::DType;

/// A view of one of the storage types.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum AnyView<'a> {
    /// f32 elements.
    F32(View<'a, f32>),
    /// f64 elements.
    F64(View<'a, f64>),
    /// bf16 elements.
    BF16(View<'a, bf16>),
    /// int8 elements.
    I8(View<'a, i8>),
    /// float16 elements.
    F16(View<'a, f16>),
    /// uint8 elements.
    U8(View<'a, u8>),
    /// int16 elements.
    I16(View<'a, i16>),
    /// int32 elements.
    I32(View<'a, i32>),
    /// int64 elements.
    I64(View<'a, i64>),
    /// bool elements.
    Bool(View<'a, bool>),
}

/// A mutable view of one of the storage types.
#[derive(Debug)]
#[non_exhaustive]
pub enum AnyViewMut<'a> {
    /// f32 elements.
    F32(ViewMut<'a, f32>),
    /// f64 elements.
    F64(ViewMut<'a, f64>),
    /// bf16 elements.
    BF16(ViewMut<'a, bf16>),
    /// int8 elements.
    I8(ViewMut<'a, i8>),
    /// float16 elements.
    F16(ViewMut<'a, f16>),
    /// uint8 elements.
    U8(ViewMut<'a, u8>),
    /// int16 elements.
    I16(ViewMut<'a, i16>),
    /// int32 elements.
    I32(ViewMut<'a, i32>),
    /// int64 elements.
    I64(ViewMut<'a, i64>),
    /// bool elements.
    Bool(ViewMut<'a, bool>),
}

impl AnyView<'_> {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            AnyView::F32(_) => DType::F32,
            AnyView::F64(_) => DType::F64,
            AnyView::BF16(_) => DType::BF16,
            AnyView::I8(_) => DType::I8,
            AnyView::F16(_) => DType::F16,
            AnyView::U8(_) => DType::U8,
            AnyView::I16(_) => DType::I16,
            AnyView::I32(_) => DType::I32,
            AnyView::I64(_) => DType::I64,
            AnyView::Bool(_) => DType::Bool,
        }
    }
}

impl AnyViewMut<'_> {
    /// The element type.
    pub fn dtype(&self) -> DType {
        match self {
            AnyViewMut::F32(_) => DType::F32,
            AnyViewMut::F64(_) => DType::F64,
            AnyViewMut::BF16(_) => DType::BF16,
            AnyViewMut::I8(_) => DType::I8,
            AnyViewMut::F16(_) => DType::F16,
            AnyViewMut::U8(_) => DType::U8,
            AnyViewMut::I16(_) => DType::I16,
            AnyViewMut::I32(_) => DType::I32,
            AnyViewMut::I64(_) => DType::I64,
            AnyViewMut::Bool(_) => DType::Bool,
        }
    }
}

macro_rules! conversions {
    ($($t:ty => $v:ident),*) => {$(
        impl<'a> From<View<'a, $t>> for AnyView<'a> {
            fn from(v: View<'a, $t>) -> AnyView<'a> {
                AnyView::$v(v)
            }
        }
        impl<'a> From<ViewMut<'a, $t>> for AnyViewMut<'a> {
            fn from(v: ViewMut<'a, $t>) -> AnyViewMut<'a> {
                AnyViewMut::$v(v)
            }
        }
    )*};
}

conversions!(
    f32 => F32, f64 => F64, bf16 => BF16, i8 => I8, f16 => F16, u8 => U8, i16 => I16, i32 => I32,
    i64 => I64, bool => Bool
);

/// The views of one variant, or `None` when one is of another.
macro_rules! all_of {
    ($inputs:expr, $v:ident) => {
        $inputs
            .iter()
            .map(|i| match i {
                AnyView::$v(x) => Some(x.clone()),
                _ => None,
            })
            .collect::<Option<Vec<_>>>()
    };
}

impl Executable {
    /// [`Executable::run_views`] on views whose element type is known at run time: every
    /// operand must have the result's type (a `type` error otherwise).
    ///
    /// ```
    /// use einrow::project::{plan_einsum, AnyView, AnyViewMut, Concrete, Executable, View, ViewMut};
    ///
    /// let plan = plan_einsum("i;i=>i", &[&Concrete::output(&[2]), &Concrete::output(&[2])])?;
    /// let exe = Executable::compile(&plan)?;
    /// let (a, b, mut c) = ([1.0f32, 2.0], [3.0f64, 4.0], [0.0f32; 2]);
    /// let err = exe
    ///     .run_any(
    ///         &[View::contiguous(&a, &[2])?.into(), View::contiguous(&b, &[2])?.into()],
    ///         ViewMut::contiguous(&mut c, &[2])?.into(),
    ///     )
    ///     .unwrap_err();
    /// assert_eq!(einrow::Coded::code(&err), einrow::ErrorCode::Type);
    /// # Ok::<(), einrow::project::ProjectError>(())
    /// ```
    pub fn run_any(
        &self,
        inputs: &[AnyView<'_>],
        output: AnyViewMut<'_>,
    ) -> Result<(), ProjectError> {
        let want = output.dtype();
        if let Some((i, v)) = inputs.iter().enumerate().find(|(_, v)| v.dtype() != want) {
            return Err(ProjectError::DType(format!(
                "operand {} is {} but the result is {}: a plan runs in one element type",
                i + 1,
                v.dtype().name(),
                want.name()
            )));
        }
        let mismatch = || ProjectError::DType("the operands' element types differ".into());
        match output {
            AnyViewMut::F32(mut o) => {
                self.run_views(&all_of!(inputs, F32).ok_or_else(mismatch)?, &mut o)
            }
            AnyViewMut::F64(mut o) => {
                self.run_views(&all_of!(inputs, F64).ok_or_else(mismatch)?, &mut o)
            }
            AnyViewMut::BF16(mut o) => {
                self.run_views(&all_of!(inputs, BF16).ok_or_else(mismatch)?, &mut o)
            }
            AnyViewMut::I8(mut o) => {
                self.run_views(&all_of!(inputs, I8).ok_or_else(mismatch)?, &mut o)
            }
            AnyViewMut::F16(mut o) => {
                self.run_views(&all_of!(inputs, F16).ok_or_else(mismatch)?, &mut o)
            }
            AnyViewMut::U8(mut o) => {
                self.run_views(&all_of!(inputs, U8).ok_or_else(mismatch)?, &mut o)
            }
            AnyViewMut::I16(mut o) => {
                self.run_views(&all_of!(inputs, I16).ok_or_else(mismatch)?, &mut o)
            }
            AnyViewMut::I32(mut o) => {
                self.run_views(&all_of!(inputs, I32).ok_or_else(mismatch)?, &mut o)
            }
            AnyViewMut::I64(mut o) => {
                self.run_views(&all_of!(inputs, I64).ok_or_else(mismatch)?, &mut o)
            }
            AnyViewMut::Bool(mut o) => {
                self.run_views(&all_of!(inputs, Bool).ok_or_else(mismatch)?, &mut o)
            }
        }
    }
}
