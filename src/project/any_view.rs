//! [`AnyView`] and [`AnyViewMut`]: views whose element type is known only at run time, as a
//! framework's tensors carry a dtype; a compiled plan checks that they agree.

use half::{bf16, f16};

use super::compiled::Executable;
use super::error::ProjectError;
use super::view::{View, ViewMut};
use crate::tensor::DType;

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

/// The two enums, their `dtype` accessors and the conversions into them, from one list of
/// (element type, variant, name).
macro_rules! any_views {
    ($($t:ty => $v:ident: $name:literal),* $(,)?) => {
        /// A view of one of the storage types.
        #[derive(Clone, Debug)]
        #[non_exhaustive]
        pub enum AnyView<'a> {
            $(#[doc = concat!($name, " elements.")] $v(View<'a, $t>),)*
        }

        /// A mutable view of one of the storage types.
        #[derive(Debug)]
        #[non_exhaustive]
        pub enum AnyViewMut<'a> {
            $(#[doc = concat!($name, " elements.")] $v(ViewMut<'a, $t>),)*
        }

        impl AnyView<'_> {
            /// The element type.
            pub fn dtype(&self) -> DType {
                match self {
                    $(AnyView::$v(_) => DType::$v,)*
                }
            }
        }

        impl AnyViewMut<'_> {
            /// The element type.
            pub fn dtype(&self) -> DType {
                match self {
                    $(AnyViewMut::$v(_) => DType::$v,)*
                }
            }
        }

        $(
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
        )*

        /// Runs `exe` on the inputs as views of the output's type (`None` when one is of
        /// another).
        fn run_as(
            exe: &Executable,
            inputs: &[AnyView<'_>],
            output: AnyViewMut<'_>,
        ) -> Option<Result<(), ProjectError>> {
            match output {
                $(AnyViewMut::$v(mut o) => Some(exe.run_views(&all_of!(inputs, $v)?, &mut o)),)*
            }
        }
    };
}

any_views!(
    f32 => F32: "f32",
    f64 => F64: "f64",
    bf16 => BF16: "bf16",
    i8 => I8: "int8",
    f16 => F16: "float16",
    u8 => U8: "uint8",
    i16 => I16: "int16",
    i32 => I32: "int32",
    i64 => I64: "int64",
    bool => Bool: "bool"
);

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
                i,
                v.dtype().name(),
                want.name()
            )));
        }
        run_as(self, inputs, output).unwrap_or_else(|| {
            Err(ProjectError::DType("the operands' element types differ".into()))
        })
    }
}
