//! u32 index newtypes for the entities of a graph: tensors, steps, axis (dim) variables and
//! row variables.

use std::fmt;

macro_rules! index_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name(pub u32);

        impl $name {
            /// The index as a `usize`, for side tables.
            pub fn index(self) -> usize {
                self.0 as usize
            }

            /// The id for a side-table index (saturating at `u32::MAX`).
            pub fn from_index(i: usize) -> Self {
                Self(u32::try_from(i).unwrap_or(u32::MAX))
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.0)
            }
        }
    };
}

index_type!(
    /// A tensor of a graph.
    TensorId,
    "t"
);
index_type!(
    /// An operation (step) of a graph.
    StepId,
    "step"
);
index_type!(
    /// An axis (dimension) variable of the solver.
    DimVar,
    "$"
);
index_type!(
    /// A row variable of the solver.
    RowVar,
    "$r"
);

impl ena::unify::UnifyKey for DimVar {
    type Value = crate::infer::env::DimVal;
    fn index(&self) -> u32 {
        self.0
    }
    fn from_index(u: u32) -> Self {
        DimVar(u)
    }
    fn tag() -> &'static str {
        "DimVar"
    }
}

impl ena::unify::UnifyKey for RowVar {
    type Value = crate::infer::env::RowVal;
    fn index(&self) -> u32 {
        self.0
    }
    fn from_index(u: u32) -> Self {
        RowVar(u)
    }
    fn tag() -> &'static str {
        "RowVar"
    }
}
