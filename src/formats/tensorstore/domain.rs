//! Index domains: per dimension an interval, implicit flags for each bound, and a label.

use std::fmt;

use super::error::{TsError, TsResult};
use super::interval::{Interval, OptInterval, MAX_RANK};

/// One dimension of an index domain.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct Dim {
    /// The bounds and their implicit flags.
    pub bounds: OptInterval,
    /// The label; empty means unlabeled.
    pub label: String,
}

impl Dim {
    /// An unlabeled dimension with explicit bounds.
    pub fn explicit(interval: Interval) -> Dim {
        Dim { bounds: OptInterval::explicit(interval), label: String::new() }
    }

    /// The interval.
    pub fn interval(&self) -> Interval {
        self.bounds.interval
    }

    /// Whether the lower bound is implicit.
    pub fn implicit_lower(&self) -> bool {
        self.bounds.implicit_lower
    }

    /// Whether the upper bound is implicit.
    pub fn implicit_upper(&self) -> bool {
        self.bounds.implicit_upper
    }

    /// Whether either bound is implicit.
    pub fn is_implicit(&self) -> bool {
        self.bounds.implicit_lower || self.bounds.implicit_upper
    }

    /// Sets the label (builder style).
    pub fn with_label(mut self, label: impl Into<String>) -> Dim {
        self.label = label.into();
        self
    }
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.label.is_empty() {
            write!(f, "{:?}: ", self.label)?;
        }
        write!(f, "{}", self.bounds)
    }
}

/// An index domain: a box of index vectors with per-bound implicit flags and labels.
#[derive(Clone, PartialEq, Eq, Hash, Debug, Default)]
pub struct IndexDomain {
    dims: Vec<Dim>,
}

/// Checks that the rank is at most [`MAX_RANK`].
pub fn check_rank(rank: usize) -> TsResult<()> {
    if rank > MAX_RANK {
        return Err(TsError::rank(format!("Rank {rank} is outside valid range [0, {MAX_RANK}]")));
    }
    Ok(())
}

/// Checks that the non-empty labels are unique.
pub fn check_labels_unique<'a>(labels: impl IntoIterator<Item = &'a str>) -> TsResult<()> {
    let mut seen: Vec<&str> = Vec::new();
    let mut dups: Vec<&str> = Vec::new();
    for l in labels.into_iter().filter(|l| !l.is_empty()) {
        if seen.contains(&l) {
            if !dups.contains(&l) {
                dups.push(l);
            }
        } else {
            seen.push(l);
        }
    }
    if dups.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = dups.iter().map(|d| format!("{d:?}")).collect();
    Err(TsError::label(format!("Dimension label(s) {} not unique", list.join(", "))))
}

impl IndexDomain {
    /// A domain from its dimensions; checks the rank and label uniqueness.
    pub fn new(dims: Vec<Dim>) -> TsResult<IndexDomain> {
        check_rank(dims.len())?;
        check_labels_unique(dims.iter().map(|d| d.label.as_str()))?;
        Ok(IndexDomain { dims })
    }

    /// `rank` unlabeled dimensions with implicit infinite bounds.
    pub fn unbounded(rank: usize) -> TsResult<IndexDomain> {
        IndexDomain::new(vec![Dim::default(); rank])
    }

    /// `[0, shape[i])` explicit for every dimension, unlabeled.
    pub fn from_shape(shape: &[u64]) -> TsResult<IndexDomain> {
        let dims = shape
            .iter()
            .map(|&n| {
                let size = i64::try_from(n).map_err(|_| TsError::bounds(format!("size {n}")))?;
                Ok(Dim::explicit(Interval::sized(0, size)?))
            })
            .collect::<TsResult<Vec<_>>>()?;
        IndexDomain::new(dims)
    }

    /// The dimensions.
    pub fn dims(&self) -> &[Dim] {
        &self.dims
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.dims.len()
    }

    /// Dimension `i`, if it exists.
    pub fn dim(&self, i: usize) -> Option<&Dim> {
        self.dims.get(i)
    }

    /// The labels, in order.
    pub fn labels(&self) -> impl DoubleEndedIterator<Item = &str> + ExactSizeIterator + Clone {
        self.dims.iter().map(|d| d.label.as_str())
    }

    /// Whether every label is empty.
    pub fn is_unlabeled(&self) -> bool {
        self.dims.iter().all(|d| d.label.is_empty())
    }

    /// The lower bound of every dimension.
    pub fn origin(&self) -> Vec<i64> {
        self.dims.iter().map(|d| d.interval().inclusive_min()).collect()
    }

    /// The size of every dimension.
    pub fn shape(&self) -> Vec<i64> {
        self.dims.iter().map(|d| d.interval().size()).collect()
    }

    /// Whether some dimension with two explicit bounds is empty (then the domain holds no
    /// index vector and no index array can be stored).
    pub fn is_explicitly_empty(&self) -> bool {
        self.dims.iter().any(|d| !d.is_implicit() && d.interval().is_empty())
    }
}

impl fmt::Display for IndexDomain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{{ ")?;
        for (i, d) in self.dims.iter().enumerate() {
            if i > 0 {
                write!(f, ", ")?;
            }
            write!(f, "{d}")?;
        }
        write!(f, " }}")
    }
}
