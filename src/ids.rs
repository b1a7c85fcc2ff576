//! Index newtypes for the entities of a graph: tensors and steps (a u32 index and the
//! graph's identity, [`GraphId`]), axis (dim) variables and row variables (u32 indices).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

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

/// The identity of a graph: every graph made gets its own, and the tensor and step ids and
/// handles it gives out carry it, so that an id used on another graph is an error rather
/// than a silent reference to something else. A graph rebuilt from its own record (undoing a
/// failed step, careful solving) keeps its identity; schemes and instances solved from a
/// graph share it, so the graph's ids name their tensors too.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct GraphId(u64);

/// The next identity to hand out (64 bits: a process making a graph per nanosecond would
/// need centuries to wrap).
static NEXT_GRAPH: AtomicU64 = AtomicU64::new(1);

impl GraphId {
    /// No graph's identity (tables not yet attached to a graph).
    pub(crate) const UNSET: GraphId = GraphId(0);

    /// A new identity.
    pub(crate) fn fresh() -> GraphId {
        GraphId(NEXT_GRAPH.fetch_add(1, Ordering::Relaxed))
    }

    /// The 32 bits ids carry (two graphs share them only 2^32 graphs apart).
    fn tag(self) -> u32 {
        self.0 as u32
    }
}

impl fmt::Display for GraphId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "graph#{}", self.0)
    }
}

macro_rules! graph_index_type {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub struct $name {
            index: u32,
            graph: u32,
        }

        impl $name {
            /// The index within its graph, for side tables.
            pub fn index(self) -> usize {
                self.index as usize
            }

            /// The id of entry `i` of graph `graph` (saturating at `u32::MAX`).
            pub(crate) fn new(i: usize, graph: GraphId) -> Self {
                Self { index: u32::try_from(i).unwrap_or(u32::MAX), graph: graph.tag() }
            }

            /// Whether the id was given out by graph `graph` (or a scheme or instance of it).
            pub fn belongs_to(self, graph: GraphId) -> bool {
                self.graph == graph.tag()
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.index)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, concat!($prefix, "{}"), self.index)
            }
        }
    };
}

graph_index_type!(
    /// A tensor of a graph: its index and the identity of the graph that made it.
    TensorId,
    "t"
);
graph_index_type!(
    /// An operation (step) of a graph: its index and the identity of the graph that made it.
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
