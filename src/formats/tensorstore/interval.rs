//! Index intervals: the index range constants, validity rules and checked interval arithmetic.
//!
//! An index is an `i64` in `[MIN_FINITE_INDEX, MAX_FINITE_INDEX] = ±(2^62 − 2)`; the values
//! `±INF_INDEX = ±(2^62 − 1)` stand for ±∞ and are valid only as bounds. An [`Interval`] is
//! stored as `inclusive_min` + `size`, so `(-inf, +inf)` has size `INF_SIZE = 2^63 − 1`.
//! Every operation that can overflow is checked and reports a bounds error.

use std::fmt;

use super::error::{TsError, TsResult};

/// `2^62 − 1`: the bound value that stands for +∞ (and its negation for −∞).
pub const INF_INDEX: i64 = (1 << 62) - 1;
/// `2^62 − 2`: the largest finite index.
pub const MAX_FINITE_INDEX: i64 = INF_INDEX - 1;
/// `−(2^62 − 2)`: the smallest finite index.
pub const MIN_FINITE_INDEX: i64 = -MAX_FINITE_INDEX;
/// `2^63 − 1`: the size of `(-inf, +inf)`.
pub const INF_SIZE: i64 = i64::MAX;
/// The largest rank of a domain or transform.
pub const MAX_RANK: usize = 32;

/// `v`, with TensorStore's "implicit" value `i64::MIN` (`kImplicit`, what its Python API makes
/// of `None`) read as `None`: an optional index argument given as −2^63 means "unchanged" or
/// "the current bound", as it does in TensorStore.
pub fn unless_implicit(v: Option<i64>) -> Option<i64> {
    v.filter(|&x| x != i64::MIN)
}

/// Whether `index` is a finite index.
pub fn is_finite_index(index: i64) -> bool {
    (MIN_FINITE_INDEX..=MAX_FINITE_INDEX).contains(&index)
}

/// Whether `index` is a finite index or ±∞.
pub fn is_valid_index(index: i64) -> bool {
    (-INF_INDEX..=INF_INDEX).contains(&index)
}

/// `⌊a / b⌋`, or `None` on overflow or division by zero.
pub fn floor_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) != (b < 0)) { q - 1 } else { q })
}

/// `⌈a / b⌉`, or `None` on overflow or division by zero.
pub fn ceil_div(a: i64, b: i64) -> Option<i64> {
    let q = a.checked_div(b)?;
    let r = a.checked_rem(b)?;
    Some(if r != 0 && ((r < 0) == (b < 0)) { q + 1 } else { q })
}

/// A valid index interval (possibly empty, possibly with infinite bounds).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct Interval {
    min: i64,
    size: i64,
}

impl Default for Interval {
    fn default() -> Self {
        Interval::INFINITE
    }
}

impl Interval {
    /// `(-inf, +inf)`.
    pub const INFINITE: Interval = Interval { min: -INF_INDEX, size: INF_SIZE };

    /// Whether `[min, max]` is a valid closed interval.
    pub fn valid_closed(min: i64, max: i64) -> bool {
        (-INF_INDEX..INF_INDEX).contains(&min)
            && max > -INF_INDEX
            && max >= min - 1
            && max <= INF_INDEX
    }

    /// Whether `[min, exclusive_max)` is a valid half-open interval.
    pub fn valid_half_open(min: i64, exclusive_max: i64) -> bool {
        (-INF_INDEX..INF_INDEX).contains(&min)
            && exclusive_max > -INF_INDEX + 1
            && exclusive_max >= min
            && exclusive_max <= INF_INDEX + 1
    }

    /// Whether `min` and `size` specify a valid interval.
    pub fn valid_sized(min: i64, size: i64) -> bool {
        min >= -INF_INDEX
            && size >= 0
            && min < INF_INDEX
            && min <= INF_INDEX + 1 - size
            && min + size > -INF_INDEX + 1
    }

    /// The closed interval `[min, max]`, checked.
    pub fn closed(min: i64, max: i64) -> TsResult<Interval> {
        if !Interval::valid_closed(min, max) {
            return Err(TsError::bounds(format!(
                "({min}, {max}) do not specify a valid closed index interval"
            )));
        }
        Ok(Interval { min, size: max - min + 1 })
    }

    /// The half-open interval `[min, exclusive_max)`, checked.
    pub fn half_open(min: i64, exclusive_max: i64) -> TsResult<Interval> {
        if !Interval::valid_half_open(min, exclusive_max) {
            return Err(TsError::bounds(format!(
                "({min}, {exclusive_max}) do not specify a valid half-open index interval"
            )));
        }
        Ok(Interval { min, size: exclusive_max - min })
    }

    /// The interval `[min, min + size)`, checked.
    pub fn sized(min: i64, size: i64) -> TsResult<Interval> {
        if !Interval::valid_sized(min, size) {
            return Err(TsError::bounds(format!(
                "({min}, {size}) do not specify a valid sized index interval"
            )));
        }
        Ok(Interval { min, size })
    }

    /// `[min, max]` where the caller has established validity; falls back to the empty interval
    /// at `min` (or to `(-inf, +inf)`) instead of producing an invalid value.
    pub(crate) fn closed_or_empty(min: i64, max: i64) -> Interval {
        Interval::closed(min, max.max(min.saturating_sub(1)))
            .or_else(|_| Interval::sized(min, 0))
            .unwrap_or(Interval::INFINITE)
    }

    /// The inclusive lower bound (`-INF_INDEX` for −∞).
    pub fn inclusive_min(self) -> i64 {
        self.min
    }

    /// The inclusive upper bound (`INF_INDEX` for +∞).
    pub fn inclusive_max(self) -> i64 {
        self.min + (self.size - 1)
    }

    /// The exclusive upper bound (`INF_INDEX + 1` for +∞).
    pub fn exclusive_max(self) -> i64 {
        self.min + self.size
    }

    /// The number of indices (`INF_SIZE` for `(-inf, +inf)`).
    pub fn size(self) -> i64 {
        self.size
    }

    /// Whether the interval holds no index.
    pub fn is_empty(self) -> bool {
        self.size == 0
    }

    /// Whether both bounds are finite.
    pub fn is_bounded(self) -> bool {
        self.min != -INF_INDEX && self.inclusive_max() != INF_INDEX
    }

    /// Whether `index` is a finite index inside the interval.
    pub fn contains(self, index: i64) -> bool {
        is_finite_index(index) && index >= self.min && index <= self.inclusive_max()
    }

    /// Whether `inner` is empty or inside `self`.
    pub fn contains_interval(self, inner: Interval) -> bool {
        inner.size == 0 || (inner.min >= self.min && inner.inclusive_max() <= self.inclusive_max())
    }

    /// Checks that `index` lies in the interval.
    pub fn check_contains(self, index: i64) -> TsResult<()> {
        if self.contains(index) {
            Ok(())
        } else {
            Err(TsError::bounds(format!("Index {index} is outside valid range {self}")))
        }
    }

    /// The intersection of two intervals.
    pub fn intersect(self, other: Interval) -> Interval {
        let lo = self.min.max(other.min);
        let hi = self.inclusive_max().min(other.inclusive_max());
        Interval::closed_or_empty(lo, hi)
    }

    /// The interval shifted by `offset`; infinite bounds stay infinite.
    pub fn shift(self, offset: i64) -> TsResult<Interval> {
        let shift_bound = |b: i64| -> TsResult<i64> {
            if b == -INF_INDEX || b == INF_INDEX {
                return Ok(b);
            }
            match b.checked_add(offset) {
                Some(v) if is_finite_index(v) => Ok(v),
                _ => Err(TsError::bounds(format!(
                    "{b} + {offset} is outside valid range {}",
                    Interval::finite_range()
                ))),
            }
        };
        let lo = if self.min == -INF_INDEX { -INF_INDEX } else { shift_bound(self.min)? };
        let hi = if self.inclusive_max() == INF_INDEX {
            INF_INDEX
        } else {
            shift_bound(self.inclusive_max())?
        };
        Interval::closed(lo, hi)
    }

    /// The interval shifted so that its lower bound is `origin`.
    pub fn shift_to(self, origin: i64) -> TsResult<Interval> {
        if !is_finite_index(origin) {
            return Err(TsError::bounds(format!(
                "Origin {origin} is outside valid range {}",
                Interval::finite_range()
            )));
        }
        if self.min == -INF_INDEX {
            return Err(TsError::bounds(format!("Interval {self} is not bounded below")));
        }
        self.shift(origin - self.min)
    }

    /// All finite indices.
    pub fn finite_range() -> Interval {
        Interval { min: MIN_FINITE_INDEX, size: 2 * MAX_FINITE_INDEX + 1 }
    }

    /// The set `{x : offset + divisor·x ∈ self}` as an interval (`divisor ≠ 0`).
    pub fn affine_domain(self, offset: i64, divisor: i64) -> TsResult<Interval> {
        if self == Interval::INFINITE {
            return Ok(self);
        }
        self.affine_domain_finite(offset, divisor).ok_or_else(|| {
            TsError::bounds(format!(
                "Integer overflow propagating range {self} through inverse affine transform \
                 with offset {offset} and multiplier {divisor}"
            ))
        })
    }

    fn affine_domain_finite(self, offset: i64, divisor: i64) -> Option<Interval> {
        let (mut lower, mut upper) = (self.min, self.inclusive_max());
        let (mut offset, mut divisor) = (offset, divisor);
        if divisor < 0 {
            divisor = divisor.checked_neg()?;
            offset = offset.checked_neg()?;
            lower = -self.inclusive_max();
            upper = -self.min;
            if self.is_empty() {
                lower -= 1;
                upper -= 1;
            }
        }
        let result_lower = if lower == -INF_INDEX {
            -INF_INDEX
        } else {
            let v = ceil_div(lower.checked_sub(offset)?, divisor)?;
            is_finite_index(v).then_some(v)?
        };
        let result_size = if self.is_empty() {
            0
        } else if upper == INF_INDEX {
            INF_INDEX - result_lower + 1
        } else {
            let v = floor_div(upper.checked_sub(offset)?, divisor)?;
            if !is_finite_index(v) {
                return None;
            }
            v - result_lower + 1
        };
        Interval::sized(result_lower, result_size.max(0)).ok()
    }

    /// The image `{offset + multiplier·x : x ∈ self}` as an interval.
    pub fn affine_range(self, offset: i64, multiplier: i64) -> TsResult<Interval> {
        let overflow = || {
            TsError::bounds(format!(
                "Integer overflow computing affine transform of domain {self} with offset \
                 {offset} and multiplier {multiplier}"
            ))
        };
        let map = |b: i64| -> Option<i64> {
            if b == -INF_INDEX || b == INF_INDEX {
                return Some(if multiplier < 0 { -b } else { b });
            }
            let v = b.checked_mul(multiplier)?.checked_add(offset)?;
            is_finite_index(v).then_some(v)
        };
        let mut lo = map(self.min).ok_or_else(overflow)?;
        let mut hi = map(self.inclusive_max()).ok_or_else(overflow)?;
        if self.is_empty() {
            return Interval::sized(lo, 0).map_err(|_| overflow());
        }
        if multiplier == 0 {
            return Interval::sized(lo, 1).map_err(|_| overflow());
        }
        if multiplier < 0 {
            std::mem::swap(&mut lo, &mut hi);
        }
        Interval::closed(lo, hi).map_err(|_| overflow())
    }
}

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        OptInterval::explicit(*self).fmt(f)
    }
}

/// An interval whose lower and upper bounds are each explicit or implicit.
///
/// Implicit bounds do not constrain indexing (their effective value is ±∞).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct OptInterval {
    /// The bounds.
    pub interval: Interval,
    /// Whether the lower bound is implicit.
    pub implicit_lower: bool,
    /// Whether the upper bound is implicit.
    pub implicit_upper: bool,
}

impl Default for OptInterval {
    /// `(-inf*, +inf*)`: unbounded, both bounds implicit.
    fn default() -> Self {
        OptInterval { interval: Interval::INFINITE, implicit_lower: true, implicit_upper: true }
    }
}

impl OptInterval {
    /// An interval with explicit bounds.
    pub fn explicit(interval: Interval) -> OptInterval {
        OptInterval { interval, implicit_lower: false, implicit_upper: false }
    }

    /// The interval with implicit bounds replaced by ±∞.
    pub fn effective(self) -> Interval {
        let lo = if self.implicit_lower { -INF_INDEX } else { self.interval.min };
        let hi = if self.implicit_upper { INF_INDEX } else { self.interval.inclusive_max() };
        Interval::closed_or_empty(lo, hi)
    }

    /// Intersection where an explicit bound overrides an implicit one.
    pub fn intersect_preferring_explicit(self, other: OptInterval) -> OptInterval {
        let (a, b) = (self, other);
        let lo = if a.implicit_lower == b.implicit_lower {
            a.interval.min.max(b.interval.min)
        } else {
            a.effective().min.max(b.effective().min)
        };
        let hi = if a.implicit_upper == b.implicit_upper {
            a.interval.inclusive_max().min(b.interval.inclusive_max())
        } else {
            a.effective().inclusive_max().min(b.effective().inclusive_max())
        };
        OptInterval {
            interval: Interval::closed_or_empty(lo, hi),
            implicit_lower: a.implicit_lower && b.implicit_lower,
            implicit_upper: a.implicit_upper && b.implicit_upper,
        }
    }

    /// [`Interval::affine_domain`] of the bounds; a negative divisor swaps the flags.
    pub fn affine_domain(self, offset: i64, divisor: i64) -> TsResult<OptInterval> {
        let interval = self.interval.affine_domain(offset, divisor)?;
        Ok(self.with_swapped_flags(interval, divisor < 0))
    }

    fn with_swapped_flags(self, interval: Interval, swap: bool) -> OptInterval {
        let (lo, hi) = (self.implicit_lower, self.implicit_upper);
        let (implicit_lower, implicit_upper) = if swap { (hi, lo) } else { (lo, hi) };
        OptInterval { interval, implicit_lower, implicit_upper }
    }
}

impl fmt::Display for OptInterval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let star = |b: bool| if b { "*" } else { "" };
        if self.interval.min == -INF_INDEX {
            write!(f, "(-inf")?;
        } else {
            write!(f, "[{}", self.interval.min)?;
        }
        write!(f, "{}, ", star(self.implicit_lower))?;
        if self.interval.inclusive_max() == INF_INDEX {
            write!(f, "+inf")?;
        } else {
            write!(f, "{}", self.interval.exclusive_max())?;
        }
        write!(f, "{})", star(self.implicit_upper))
    }
}
