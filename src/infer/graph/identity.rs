//! [`GraphId`]: which graph a handle belongs to.

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

/// The identity of a [`Graph`](super::Graph): every graph made gets its own, and the handles
/// it gives out carry it, so that a handle used on another graph is an error rather than a
/// silent reference to something else. A graph rebuilt from its own record (undoing a failed
/// step, careful solving) keeps its identity.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct GraphId(u64);

/// The next identity to hand out (64 bits: a process making a graph per nanosecond would
/// need centuries to wrap).
static NEXT: AtomicU64 = AtomicU64::new(1);

impl GraphId {
    /// A new identity.
    pub(super) fn fresh() -> GraphId {
        GraphId(NEXT.fetch_add(1, Ordering::Relaxed))
    }
}

impl fmt::Display for GraphId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "graph#{}", self.0)
    }
}
