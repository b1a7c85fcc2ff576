//! Arithmetic on affine and concatenation dims: simplifying them to sizes when their parts
//! are known, the input extent of a valid convolution, the sum of concatenated sizes, and the
//! basis conflicts that keep such a dim from simplifying.

use smallvec::SmallVec;

use crate::shape::{AffineDim, Basis, ConvPadding, Dim, DimExprs, Solved};

/// The simpler dim an affine dim stands for: its size when its parts are known, and `over`
/// itself for `stride 1` without a valid kernel. `None` while it stays affine.
pub(super) fn simplify_affine(a: AffineDim) -> Option<Dim> {
    let padded = !matches!(a.conv, Some((_, _, ConvPadding::Valid)));
    if a.stride == 1 && padded {
        return Some(a.over);
    }
    let over = a.over.solved()?;
    let size = match a.conv {
        Some((dil, k, ConvPadding::Valid)) => {
            valid_conv_size(a.stride, over.size, dil, k.solved()?.size)
        }
        _ => a.stride.checked_mul(over.size),
    };
    match (size, affine_basis(&a)) {
        (Some(size), Ok(basis)) if size <= crate::spec::lexer::MAX_INT => {
            Some(Dim::Solved(Solved { size, basis: basis.unwrap_or(over.basis) }))
        }
        _ => None,
    }
}

/// The named basis of an affine dim's parts (named beats reserved); `Ok(None)` when none is
/// named, `Err(())` when the over and kernel axes carry two different named bases.
fn affine_basis(a: &AffineDim) -> Result<Option<Basis>, ()> {
    let named = |d: Dim| d.solved().map(|s| s.basis).filter(|b| b.is_named());
    let over = named(a.over);
    let kernel = a.conv.and_then(|(_, k, _)| named(k));
    match (over, kernel) {
        (Some(o), Some(k)) if o != k => Err(()),
        _ => Ok(over.or(kernel)),
    }
}

/// Why a dim whose parts are all solved did not simplify to a size: two of its parts carry
/// different named bases (returned with what holds them). `None` for any other dim (unknown
/// parts, or a size overflow).
pub fn basis_conflict(d: Dim, exprs: &DimExprs) -> Option<(&'static str, Basis, Basis)> {
    let named: SmallVec<[Basis; 4]> = match d {
        Dim::Affine(id) => {
            let a = exprs.get_affine(id);
            if a.over.solved().is_none() || affine_basis(&a).is_ok() {
                return None;
            }
            let kernel = a.conv.map(|(_, k, _)| k);
            [Some(a.over), kernel]
                .into_iter()
                .flatten()
                .filter_map(|p| p.solved())
                .map(|s| s.basis)
                .collect()
        }
        Dim::Concat(id) => {
            let parts = exprs.parts(id);
            let sizes: Option<Vec<u64>> =
                parts.iter().map(|p| p.solved().map(|s| s.size)).collect();
            let fits = sizes?.into_iter().try_fold(0u64, u64::checked_add).is_some();
            if !fits || concat_sum(parts).is_some() {
                return None;
            }
            parts
                .iter()
                .filter_map(|p| p.solved())
                .filter(|s| s.size > 0)
                .map(|s| s.basis)
                .collect()
        }
        _ => return None,
    };
    let what = if matches!(d, Dim::Affine(_)) {
        "a convolution's output and kernel axes"
    } else {
        "concatenated axes"
    };
    let first = *named.iter().find(|b| b.is_named())?;
    let second = *named.iter().find(|b| b.is_named() && **b != first)?;
    Some((what, first, second))
}

/// The input extent of a valid convolution: `stride*(over-1) + dilation*(kernel-1) + 1`.
pub fn valid_conv_size(stride: u64, over: u64, dilation: u64, kernel: u64) -> Option<u64> {
    if over == 0 || kernel == 0 {
        return Some(0);
    }
    stride.checked_mul(over - 1)?.checked_add(dilation.checked_mul(kernel - 1)?)?.checked_add(1)
}

/// The simpler dim a flat concatenation stands for: its only part, or the sum of solved parts
/// with compatible bases (a named basis beats the default; size-0 parts are dropped). `None`
/// while it stays a concatenation.
pub(super) fn simplify_concat(flat: &[Dim]) -> Option<Dim> {
    match flat {
        [] => Some(Dim::size(0)),
        [one] => Some(*one),
        _ if flat.iter().all(|p| p.solved().is_some()) => concat_sum(flat).map(Dim::Solved),
        _ => None,
    }
}

/// The sum of solved concatenation parts with their merged basis; `None` on a basis conflict
/// or overflow.
pub fn concat_sum(parts: &[Dim]) -> Option<Solved> {
    let mut size: u64 = 0;
    let mut basis: Option<Basis> = None;
    for p in parts {
        let s = p.solved()?;
        size = size.checked_add(s.size)?;
        if s.basis.is_named() && s.size > 0 {
            match basis {
                Some(b) if b != s.basis => return None,
                _ => basis = Some(s.basis),
            }
        }
    }
    (size <= crate::spec::lexer::MAX_INT)
        .then_some(Solved { size, basis: basis.unwrap_or(Basis::DEFAULT) })
}
