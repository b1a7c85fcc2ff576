//! Domain alignment (TensorStore's `AlignDimensionsTo` / `AlignDomainTo`): which target
//! dimension each source dimension matches, and the transform from the target domain to the
//! source domain that broadcasts and translates the source onto the target.
//!
//! Matching (M1, M2): without `permute`, or when either domain is entirely unlabeled, the
//! trailing dimensions match in order; otherwise equal labels match and unlabeled
//! dimensions match the unlabeled target dimensions from the right. Validation (V1–V4): a
//! match of different sizes is dropped (an error unless `broadcast` is allowed and the source
//! size is 1), unmatched source dimensions need `broadcast` and size 1, and without
//! `translate` a match whose origins differ is an error. All problems are reported together.
//!
//! Decision: without `translate` this follows rule V4 of TensorStore's documentation and
//! compares the origins only; TensorStore's code compares the whole dimension (bounds,
//! implicit flags and label), which differs when labels or implicit flags differ.

use super::domain::IndexDomain;
use super::error::{TsError, TsResult};
use super::transform::{IndexTransform, OutputMap};

/// Which adjustments alignment may make.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct AlignOptions {
    /// Match dimensions by label, in any order.
    pub permute: bool,
    /// Match dimensions whose origins differ.
    pub translate: bool,
    /// Add target dimensions and broadcast size-1 source dimensions.
    pub broadcast: bool,
}

impl AlignOptions {
    /// Everything allowed (TensorStore's `all`, the default).
    pub const ALL: AlignOptions = AlignOptions { permute: true, translate: true, broadcast: true };
    /// Nothing allowed (TensorStore's `none`).
    pub const NONE: AlignOptions =
        AlignOptions { permute: false, translate: false, broadcast: false };
}

impl Default for AlignOptions {
    fn default() -> Self {
        AlignOptions::ALL
    }
}

fn match_by_position(source_rank: usize, target_rank: usize) -> Vec<Option<usize>> {
    let n = source_rank.min(target_rank);
    (0..source_rank)
        .map(|i| (i >= source_rank - n).then(|| target_rank - n + (i - (source_rank - n))))
        .collect()
}

fn match_by_label(source: &IndexDomain, target: &IndexDomain) -> Vec<Option<usize>> {
    let target_labels: Vec<&str> = target.labels().collect();
    let mut matches = vec![None; source.rank()];
    let mut next_unlabeled = target_labels.len();
    for (i, label) in source.labels().enumerate().rev() {
        matches[i] = if label.is_empty() {
            let found = target_labels[..next_unlabeled].iter().rposition(|l| l.is_empty());
            next_unlabeled = found.unwrap_or(0);
            found
        } else {
            target_labels.iter().rposition(|l| *l == label)
        };
    }
    matches
}

/// For each source dimension, the target dimension it is aligned to (`None`: broadcast).
pub fn align_dimensions_to(
    source: &IndexDomain,
    target: &IndexDomain,
    options: AlignOptions,
) -> TsResult<Vec<Option<usize>>> {
    let (sr, tr) = (source.rank(), target.rank());
    if !options.broadcast && sr != tr {
        return Err(TsError::rank(format!(
            "Aligning source domain of rank {sr} to target domain of rank {tr} requires \
             broadcasting"
        )));
    }
    let mut matches = if !options.permute || source.is_unlabeled() || target.is_unlabeled() {
        match_by_position(sr, tr)
    } else {
        match_by_label(source, target)
    };
    let mut problems = Vec::new();
    for (i, (m, s)) in matches.iter_mut().zip(source.dims()).enumerate() {
        let size = s.interval().size();
        match m.and_then(|j| target.dim(j).map(|t| (j, t))) {
            Some((j, t)) => {
                let t_int = t.interval();
                let size_differs = size != t_int.size();
                let origin_differs = t_int.inclusive_min() != s.interval().inclusive_min();
                if size_differs || (!options.translate && origin_differs) {
                    if !options.broadcast || size != 1 || !size_differs {
                        problems.push(format!(
                            "source dimension {i} {s} mismatch with target dimension {j} {t}"
                        ));
                    }
                    *m = None;
                }
            }
            None => {
                if !options.broadcast {
                    problems.push(format!("unmatched source dimension {i} {s}"));
                }
                if size != 1 {
                    problems.push(format!(
                        "unmatched source dimension {i} {s} does not have a size of 1"
                    ));
                }
            }
        }
    }
    if !problems.is_empty() {
        return Err(TsError::mismatch(format!(
            "Error aligning dimensions: {}",
            problems.join(", ")
        )));
    }
    Ok(matches)
}

/// The alignment transform: input domain = `target` (labels included), output dimension `i`
/// = source dimension `i` (`in[j] + source_origin[i] − target_origin[j]` for a match `j`,
/// the constant `source_origin[i]` otherwise).
pub fn align_domain_to(
    source: &IndexDomain,
    target: &IndexDomain,
    options: AlignOptions,
) -> TsResult<IndexTransform> {
    let matches = align_dimensions_to(source, target, options)?;
    let mut output = Vec::with_capacity(source.rank());
    for (s, m) in source.dims().iter().zip(matches) {
        let s_origin = s.interval().inclusive_min();
        output.push(match m.and_then(|j| target.dim(j).map(|t| (j, t))) {
            None => OutputMap::constant(s_origin),
            Some((j, t)) => {
                let offset =
                    s_origin.checked_sub(t.interval().inclusive_min()).ok_or_else(|| {
                        TsError::bounds("Integer overflow computing alignment offset")
                    })?;
                OutputMap::single(offset, 1, j)
            }
        });
    }
    IndexTransform::new(target.clone(), output)
}

/// Aligns a transform's domain to `target`: `t ∘ align_domain_to(t.domain(), target)`.
pub fn align_transform_to(
    t: &IndexTransform,
    target: &IndexDomain,
    options: AlignOptions,
) -> TsResult<IndexTransform> {
    let alignment = align_domain_to(t.domain(), target, options)?;
    super::compose::compose(t, &alignment)
}
