//! Dimension selections: by index (negative from the end), by label, or by range.

use std::fmt;

use super::error::{TsError, TsResult};
use super::interval::{ceil_div, MAX_RANK};

/// One entry of a dimension selection.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum DimSelector {
    /// A dimension index; negative counts from the end.
    Index(i64),
    /// A dimension label (non-empty).
    Label(String),
    /// A Python-style slice over dimension indices; `None` takes the default bound.
    Range {
        /// First index, or `None`.
        start: Option<i64>,
        /// Exclusive stop, or `None`.
        stop: Option<i64>,
        /// Step (non-zero).
        step: i64,
    },
}

impl fmt::Display for DimSelector {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DimSelector::Index(i) => write!(f, "{i}"),
            DimSelector::Label(l) => write!(f, "{l:?}"),
            DimSelector::Range { start, stop, step } => {
                if let Some(s) = start {
                    write!(f, "{s}")?;
                }
                write!(f, ":")?;
                if let Some(s) = stop {
                    write!(f, "{s}")?;
                }
                if *step != 1 {
                    write!(f, ":{step}")?;
                }
                Ok(())
            }
        }
    }
}

fn rank_i64(rank: usize) -> i64 {
    i64::try_from(rank).unwrap_or(i64::MAX)
}

/// `index` (negative from the end) as a dimension of a rank-`rank` space.
pub fn normalize_index(index: i64, rank: usize) -> TsResult<usize> {
    let r = rank_i64(rank);
    if index < -r || index >= r {
        return Err(TsError::bounds(format!(
            "Dimension index {index} is outside valid range [-{r}, {r})"
        )));
    }
    let i = if index >= 0 { index } else { index + r };
    Ok(usize::try_from(i).unwrap_or(0))
}

fn normalize_stop(index: i64, rank: usize) -> TsResult<i64> {
    let r = rank_i64(rank);
    if index < -r - 1 || index > r {
        return Err(TsError::bounds(format!(
            "Dimension exclusive stop index {index} is outside valid range [-{}, {r}]",
            r + 1
        )));
    }
    Ok(if index >= 0 { index } else { index + r })
}

/// The dimension with label `label`.
pub fn normalize_label<'a>(
    label: &str,
    labels: impl Iterator<Item = &'a str> + Clone,
) -> TsResult<usize> {
    if label.is_empty() {
        return Err(TsError::label("Dimension cannot be specified by empty label"));
    }
    labels.clone().position(|l| l == label).ok_or_else(|| {
        let all: Vec<String> = labels.map(|l| format!("{l:?}")).collect();
        TsError::label(format!("Label {label:?} does not match one of {{{}}}", all.join(", ")))
    })
}

fn range_dims(
    start: Option<i64>,
    stop: Option<i64>,
    step: i64,
    rank: usize,
    out: &mut Vec<usize>,
) -> TsResult<()> {
    if step == 0 {
        return Err(TsError::value("step must not be 0"));
    }
    let r = rank_i64(rank);
    let first = match start {
        Some(s) => rank_i64(normalize_index(s, rank)?),
        None if step > 0 => 0,
        None => r - 1,
    };
    let end = match stop {
        Some(s) => {
            let e = normalize_stop(s, rank)?;
            if (step > 0 && e < first) || (step < 0 && e > first) {
                let spec = DimSelector::Range { start, stop, step };
                return Err(TsError::bounds(format!("{spec} is not a valid range")));
            }
            e
        }
        None if step > 0 => r,
        None => -1,
    };
    let count = ceil_div(end - first, step).unwrap_or(0).max(0);
    for i in 0..count {
        out.push(usize::try_from(first + step * i).unwrap_or(0));
    }
    Ok(())
}

/// Rejects repeated dimensions and selections larger than the rank.
fn check_distinct(dims: &[usize], rank: usize) -> TsResult<()> {
    if dims.len() > rank {
        return Err(TsError::rank(format!(
            "Number of dimensions ({}) exceeds input rank ({rank}).",
            dims.len()
        )));
    }
    let mut repeated: Vec<usize> = Vec::new();
    for (i, d) in dims.iter().enumerate() {
        if dims[..i].contains(d) && !repeated.contains(d) {
            repeated.push(*d);
        }
    }
    if repeated.is_empty() {
        return Ok(());
    }
    let list: Vec<String> = repeated.iter().map(usize::to_string).collect();
    Err(TsError::label(format!(
        "Input dimensions {{{}}} specified more than once",
        list.join(", ")
    )))
}

/// Resolves a selection against existing dimensions with the given labels.
pub fn resolve<'a>(
    selectors: &[DimSelector],
    labels: impl Iterator<Item = &'a str> + Clone,
) -> TsResult<Vec<usize>> {
    let rank = labels.clone().count();
    let mut dims = Vec::new();
    for s in selectors {
        match s {
            DimSelector::Index(i) => dims.push(normalize_index(*i, rank)?),
            DimSelector::Label(l) => dims.push(normalize_label(l, labels.clone())?),
            DimSelector::Range { start, stop, step } => {
                range_dims(*start, *stop, *step, rank, &mut dims)?;
            }
        }
    }
    check_distinct(&dims, rank)?;
    Ok(dims)
}

fn new_dims_in_range(start: Option<i64>, stop: Option<i64>, step: i64) -> TsResult<i64> {
    let invalid = || {
        let spec = DimSelector::Range { start, stop, step };
        TsError::bounds(format!("`{spec}` is not a valid specification for new dimensions"))
    };
    if step == 0 {
        return Err(TsError::value("step must not be 0"));
    }
    let count = match (start, stop) {
        (Some(a), Some(b))
            if (b < 0) == (a < 0) && ((step > 0 && b >= a) || (step < 0 && b <= a)) =>
        {
            b.checked_sub(a).and_then(|d| ceil_div(d, step))
        }
        (Some(a), None) if step > 0 && a < 0 => a.checked_neg().and_then(|d| ceil_div(d, step)),
        (Some(a), None) if step < 0 && a >= 0 => {
            step.checked_neg().and_then(|s| ceil_div(a.saturating_add(1), s))
        }
        (None, Some(b)) if step > 0 && b >= 0 => ceil_div(b, step),
        (None, Some(b)) if step < 0 && b < 0 => {
            step.checked_neg().and_then(|s| ceil_div(-(b + 1), s))
        }
        _ => None,
    };
    count.ok_or_else(invalid)
}

/// Resolves the positions of new dimensions in the result of adding them to a space of
/// rank `rank` (labels are not allowed).
pub fn resolve_new(selectors: &[DimSelector], rank: usize) -> TsResult<Vec<usize>> {
    // Summed exactly (a range may add up to 2^63 − 1 dimensions), so the error names the
    // true rank.
    let mut total = i128::from(rank_i64(rank));
    for s in selectors {
        total += i128::from(match s {
            DimSelector::Range { start, stop, step } => new_dims_in_range(*start, *stop, *step)?,
            _ => 1,
        });
    }
    if total > MAX_RANK as i128 {
        return Err(TsError::rank(format!("Rank {total} is outside valid range [0, {MAX_RANK}]")));
    }
    let new_rank = usize::try_from(total).unwrap_or(MAX_RANK);
    let mut dims = Vec::new();
    for s in selectors {
        match s {
            DimSelector::Index(i) => dims.push(normalize_index(*i, new_rank)?),
            DimSelector::Label(_) => {
                return Err(TsError::label("New dimensions cannot be specified by label"));
            }
            DimSelector::Range { start, stop, step } => {
                range_dims(*start, *stop, *step, new_rank, &mut dims)?;
            }
        }
    }
    check_distinct(&dims, new_rank)?;
    Ok(dims)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(start: Option<i64>, stop: Option<i64>, step: i64) -> DimSelector {
        DimSelector::Range { start, stop, step }
    }

    fn check(sel: &[DimSelector], labels: &[&str], expect: Option<&[usize]>) {
        let got = resolve(sel, labels.iter().copied());
        assert_eq!(got.as_deref().ok(), expect, "{sel:?}: {got:?}");
    }

    #[test]
    fn selections() {
        let xyz = ["x", "y", "z"];
        check(&[DimSelector::Index(-1)], &xyz, Some(&[2]));
        check(&[DimSelector::Label("y".into()), DimSelector::Index(0)], &xyz, Some(&[1, 0]));
        check(&[range(None, None, -1)], &xyz, Some(&[2, 1, 0]));
        check(&[range(Some(1), None, 1)], &xyz, Some(&[1, 2]));
        check(&[range(None, Some(-1), 1)], &xyz, Some(&[0, 1]));
        check(&[range(Some(2), Some(0), 1)], &xyz, None);
        check(&[DimSelector::Index(3)], &xyz, None);
        check(&[DimSelector::Label("w".into())], &xyz, None);
        check(&[DimSelector::Index(0), DimSelector::Label("x".into())], &xyz, None);
        check(&[range(None, None, 0)], &xyz, None);
    }

    #[test]
    fn new_dimension_positions() {
        assert_eq!(
            resolve_new(&[DimSelector::Index(0), DimSelector::Index(-1)], 2).unwrap(),
            [0, 3]
        );
        assert_eq!(resolve_new(&[range(None, Some(2), 1)], 1).unwrap(), [0, 1]);
        assert!(resolve_new(&[DimSelector::Label("x".into())], 1).is_err());
        assert!(resolve_new(&[range(None, None, 1)], 1).is_err());
    }
}
