//! The two operators of a nest applied to values: [`Combine`] and [`Accum`] on one pair, and
//! zero-sized types that let the executor be monomorphised per operator pair.

use super::operator::{Accum, Combine};
use super::scalar::Scalar;

impl Accum {
    /// The neutral element in the compute type `T` (`None` for `Store`): 0, 1, the smallest
    /// and the largest value.
    #[inline]
    pub fn neutral_value<T: Scalar>(self) -> Option<T> {
        match self {
            Accum::Store => None,
            Accum::Add => Some(T::ZERO),
            Accum::Mul => Some(T::ONE),
            Accum::Max => Some(T::NEG_INFINITY),
            Accum::Min => Some(T::INFINITY),
        }
    }

    /// Applies the accumulation to one pair (used by slow paths and the reference).
    pub fn apply<T: Scalar>(self, acc: T, v: T) -> T {
        match self {
            Accum::Store => v,
            Accum::Add => acc.plus(v),
            Accum::Mul => acc.times(v),
            Accum::Max => acc.max_nan(v),
            Accum::Min => acc.min_nan(v),
        }
    }
}

impl Combine {
    /// Applies the combine to one pair (used by slow paths and the reference).
    pub fn apply<T: Scalar>(self, a: T, b: T) -> T {
        match self {
            Combine::First => a,
            Combine::Mul => a.times(b),
            Combine::Add => a.plus(b),
            Combine::Sub => a.minus(b),
            Combine::Div => a.divide(b),
            Combine::Max => a.max_nan(b),
            Combine::Min => a.min_nan(b),
        }
    }
}

/// An accumulation as a type (zero-sized), so inner loops are compiled per operator.
pub trait AccOp<T: Scalar>: Copy + Send + Sync + 'static {
    /// The operator.
    const KIND: Accum;
    /// `acc ⊕ v`.
    fn acc(acc: T, v: T) -> T;
}

/// A combine as a type (zero-sized).
pub trait CombOp<T: Scalar>: Copy + Send + Sync + 'static {
    /// The operator.
    const KIND: Combine;
    /// `a ⊗ b`.
    fn comb(a: T, b: T) -> T;
}

macro_rules! op_types {
    ($trait:ident, $fn:ident, $kind:ident; $( $name:ident => |$a:ident, $b:ident| $body:expr ),* $(,)?) => {
        $(
            #[doc = concat!("The `", stringify!($name), "` operator as a type.")]
            #[derive(Clone, Copy, Debug)]
            pub struct $name;
            impl<T: Scalar> $trait<T> for $name {
                const KIND: $kind = $kind::$name;
                #[inline(always)]
                fn $fn($a: T, $b: T) -> T {
                    $body
                }
            }
        )*
    };
}

/// Accumulation operator types.
pub mod acc {
    use super::{AccOp, Accum, Scalar};
    op_types!(AccOp, acc, Accum;
        Store => |_a, b| b,
        Add => |a, b| a.plus(b),
        Mul => |a, b| a.times(b),
        Max => |a, b| a.max_nan(b),
        Min => |a, b| a.min_nan(b),
    );
}

/// Combine operator types.
pub mod comb {
    use super::{CombOp, Combine, Scalar};
    op_types!(CombOp, comb, Combine;
        First => |a, _b| a,
        Mul => |a, b| a.times(b),
        Add => |a, b| a.plus(b),
        Sub => |a, b| a.minus(b),
        Div => |a, b| a.divide(b),
        Max => |a, b| a.max_nan(b),
        Min => |a, b| a.min_nan(b),
    );
}

/// Calls `$body` with `$A` bound to the accumulation type of `$accum`.
macro_rules! with_accum {
    ($accum:expr, $A:ident => $body:expr) => {
        match $accum {
            $crate::kernel::Accum::Store => {
                type $A = $crate::kernel::ops::acc::Store;
                $body
            }
            $crate::kernel::Accum::Add => {
                type $A = $crate::kernel::ops::acc::Add;
                $body
            }
            $crate::kernel::Accum::Mul => {
                type $A = $crate::kernel::ops::acc::Mul;
                $body
            }
            $crate::kernel::Accum::Max => {
                type $A = $crate::kernel::ops::acc::Max;
                $body
            }
            $crate::kernel::Accum::Min => {
                type $A = $crate::kernel::ops::acc::Min;
                $body
            }
        }
    };
}

/// Calls `$body` with `$C` bound to the combine type of `$combine`.
macro_rules! with_combine {
    ($combine:expr, $C:ident => $body:expr) => {
        match $combine {
            $crate::kernel::Combine::First => {
                type $C = $crate::kernel::ops::comb::First;
                $body
            }
            $crate::kernel::Combine::Mul => {
                type $C = $crate::kernel::ops::comb::Mul;
                $body
            }
            $crate::kernel::Combine::Add => {
                type $C = $crate::kernel::ops::comb::Add;
                $body
            }
            $crate::kernel::Combine::Sub => {
                type $C = $crate::kernel::ops::comb::Sub;
                $body
            }
            $crate::kernel::Combine::Div => {
                type $C = $crate::kernel::ops::comb::Div;
                $body
            }
            $crate::kernel::Combine::Max => {
                type $C = $crate::kernel::ops::comb::Max;
                $body
            }
            $crate::kernel::Combine::Min => {
                type $C = $crate::kernel::ops::comb::Min;
                $body
            }
        }
    };
}

pub(crate) use {with_accum, with_combine};
