//! Strided interval slices of one dimension (`[start:stop:step]`), as TensorStore computes them.
//!
//! The slice is taken in the dimension's own coordinates; the new domain holds the strided
//! coordinates `x` with `x·step` in the slice (`[2:8:2]` of `[0, 10)` is `[1, 4)`), and the new
//! dimension maps back to the old one by `old = offset + step·x`.

use super::error::{TsError, TsResult};
use super::interval::{
    ceil_div, is_finite_index, is_valid_index, unless_implicit, Interval, OptInterval, INF_INDEX,
};

/// How the second number of a slice is read.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
#[non_exhaustive]
pub enum IntervalForm {
    /// `stop` is exclusive.
    HalfOpen,
    /// `stop` is inclusive.
    Closed,
    /// The second number is a size (count of strided elements).
    Sized,
}

/// A slice request for one dimension; `None` (or `i64::MIN`, TensorStore's implicit value)
/// means "the current bound".
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SliceSpec {
    /// First index (in the dimension's coordinates), or `None` for the bound the step starts at.
    pub start: Option<i64>,
    /// Stop index or size (see [`IntervalForm`]), or `None` for the other bound.
    pub stop: Option<i64>,
    /// The step; must be non-zero.
    pub step: i64,
}

impl SliceSpec {
    /// `[start:stop:step]`.
    pub fn new(start: Option<i64>, stop: Option<i64>, step: i64) -> SliceSpec {
        SliceSpec { start, stop, step }
    }
}

/// The new domain of a sliced dimension and the map back to the old coordinates.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SliceMap {
    /// The domain of the strided coordinates.
    pub domain: OptInterval,
    /// `old = offset + step·new`.
    pub offset: i64,
    /// The step.
    pub stride: i64,
}

fn resolve_stop(
    orig: &mut OptInterval,
    form: IntervalForm,
    start: i64,
    stop: Option<i64>,
    stride: i64,
) -> TsResult<i64> {
    let Some(stop) = stop else {
        return Ok(if stride > 0 {
            orig.interval.inclusive_max()
        } else {
            orig.interval.inclusive_min()
        });
    };
    orig.implicit_upper = false;
    let toward = if stride > 0 { -1 } else { 1 };
    match form {
        IntervalForm::Sized => {
            if stop < 0 {
                return Err(TsError::bounds(format!(
                    "Negative size {stop} specified for sized interval"
                )));
            }
            if stop == 0 {
                return Ok(start + toward);
            }
            stride
                .checked_mul(stop - 1)
                .and_then(|d| d.checked_add(start))
                .ok_or_else(|| TsError::bounds("Integer overflow computing slice result"))
        }
        IntervalForm::Closed => Ok(stop),
        IntervalForm::HalfOpen if !is_finite_index(stop) => Ok(stop),
        IntervalForm::HalfOpen => Ok(stop + toward),
    }
}

/// Applies a strided slice to one dimension's bounds: the new domain (in strided coordinates)
/// and the adjusted start index. Explicit bounds constrain the slice; implicit ones do not.
pub fn extract_strided_slice(
    orig: OptInterval,
    form: IntervalForm,
    spec: SliceSpec,
) -> TsResult<(OptInterval, i64)> {
    let constraint = orig.effective();
    let stride = spec.step;
    if stride == 0 || stride == i64::MIN {
        return Err(TsError::value(format!("Invalid stride {stride}")));
    }
    let mut orig = orig;
    let start = match unless_implicit(spec.start) {
        None if stride > 0 => orig.interval.inclusive_min(),
        None => orig.interval.inclusive_max(),
        Some(s) if !is_valid_index(s) => {
            return Err(TsError::bounds(format!("Invalid start index {s}")));
        }
        Some(s) => {
            orig.implicit_lower = false;
            s
        }
    };
    let inclusive_stop = resolve_stop(&mut orig, form, start, unless_implicit(spec.stop), stride)?;
    if stride.unsigned_abs() != 1 && !is_finite_index(start) {
        return Err(TsError::bounds(format!(
            "Slicing with non-unit stride of {stride} requires a finite start index"
        )));
    }
    let (lo, hi) = if stride > 0 { (start, inclusive_stop) } else { (inclusive_stop, start) };
    if stride < 0 {
        std::mem::swap(&mut orig.implicit_lower, &mut orig.implicit_upper);
    }
    let adjusted = Interval::closed(lo, hi)?;
    if !constraint.contains_interval(adjusted) {
        return Err(TsError::bounds(format!(
            "Slice interval {adjusted} is not contained within domain {constraint}"
        )));
    }
    let new_start = start / stride;
    let new_size = if inclusive_stop.unsigned_abs() == INF_INDEX.unsigned_abs() {
        INF_INDEX + 1 - new_start
    } else {
        ceil_div(adjusted.size(), stride.abs())
            .ok_or_else(|| TsError::bounds("Integer overflow computing slice result"))?
    };
    orig.interval = Interval::sized(new_start, new_size)?;
    Ok((orig, start))
}

/// [`extract_strided_slice`] plus the offset of the map back to the old coordinates.
pub fn strided_slice_map(
    orig: OptInterval,
    form: IntervalForm,
    spec: SliceSpec,
) -> TsResult<SliceMap> {
    let (domain, adjusted_start) = extract_strided_slice(orig, form, spec)?;
    let offset = domain
        .interval
        .inclusive_min()
        .checked_mul(spec.step)
        .and_then(|v| adjusted_start.checked_sub(v))
        .ok_or_else(|| TsError::bounds("Integer overflow computing slice offset"))?;
    Ok(SliceMap { domain, offset, stride: spec.step })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn explicit(lo: i64, ex: i64) -> OptInterval {
        OptInterval::explicit(Interval::half_open(lo, ex).unwrap())
    }

    fn check(orig: OptInterval, spec: SliceSpec, expect: Option<(&str, i64)>) {
        let got = strided_slice_map(orig, IntervalForm::HalfOpen, spec);
        match (got, expect) {
            (Ok(m), Some((dom, off))) => {
                assert_eq!(m.domain.to_string(), dom, "{spec:?}");
                assert_eq!(m.offset, off, "{spec:?}");
            }
            (Err(_), None) => {}
            (got, expect) => panic!("{spec:?}: got {got:?}, expected {expect:?}"),
        }
    }

    #[test]
    fn slices() {
        let s = SliceSpec::new;
        check(explicit(0, 10), s(Some(2), Some(8), 2), Some(("[1, 4)", 0)));
        check(explicit(0, 10), s(Some(5), Some(15), 1), None);
        check(explicit(0, 10), s(None, None, -1), Some(("[-9, 1)", 0)));
        check(explicit(0, 10), s(Some(7), Some(2), -2), Some(("[-3, 0)", 1)));
        check(explicit(0, 10), s(Some(3), Some(3), 1), Some(("[3, 3)", 0)));
        check(explicit(0, 10), s(None, None, 0), None);
        let implicit = OptInterval { implicit_upper: true, ..explicit(0, 10) };
        check(implicit, s(Some(5), Some(15), 1), Some(("[5, 15)", 0)));
        check(implicit, s(Some(5), None, 1), Some(("[5, 10*)", 0)));
        let infinite = OptInterval {
            interval: Interval::INFINITE,
            implicit_lower: true,
            implicit_upper: true,
        };
        check(infinite, s(Some(5), Some(10), 1), Some(("[5, 10)", 0)));
        check(infinite, s(None, None, 2), None);
    }
}
