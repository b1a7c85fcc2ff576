//! Arithmetic on affine and concatenation dims: simplifying them to sizes when their parts
//! are known, the input extent of a valid convolution, the sum of concatenated sizes, and the
//! basis conflicts that keep such a dim from simplifying.

use crate::shape::{AffineDim, Basis, ConvPadding, Dim, Solved};

/// What an affine dim simplifies to.
pub(in crate::infer) enum Simplified {
    /// A simpler dim: its size when its parts are known, and `over` itself for `stride 1`
    /// without a valid kernel.
    Dim(Dim),
    /// It stays affine (unknown parts, or parts with two different named bases).
    Stays,
    /// Its parts are known and its size is above 2^62.
    Overflow,
}

/// The simpler dim an affine dim stands for.
pub(in crate::infer) fn simplify_affine(a: AffineDim) -> Simplified {
    let padded = !matches!(a.conv, Some((_, _, ConvPadding::Valid)));
    if a.stride == 1 && padded {
        return Simplified::Dim(a.over);
    }
    let Some(over) = a.over.solved() else { return Simplified::Stays };
    let size = match a.conv {
        Some((dil, k, ConvPadding::Valid)) => match k.solved() {
            Some(k) => valid_conv_size(a.stride, over.size, dil, k.size),
            None => return Simplified::Stays,
        },
        _ => a.stride.checked_mul(over.size),
    };
    match (size.filter(|s| *s <= crate::spec::lexer::MAX_INT), affine_basis(&a)) {
        (None, _) => Simplified::Overflow,
        (Some(size), Ok(basis)) => {
            Simplified::Dim(Dim::Solved(Solved { size, basis: basis.unwrap_or(over.basis) }))
        }
        (Some(_), Err(())) => Simplified::Stays,
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

/// The two different named bases of an affine dim's solved `over` and kernel axes, which keep
/// it from simplifying to a size (its parts as given: substituted by the caller).
pub(in crate::infer) fn parts_basis_conflict(a: &AffineDim) -> Option<(Basis, Basis)> {
    if a.over.solved().is_none() || affine_basis(a).is_ok() {
        return None;
    }
    let kernel = a.conv.and_then(|(_, k, _)| k.solved());
    let over = a.over.solved()?;
    Some((over.basis, kernel?.basis))
}

/// The input extent of a valid convolution: `stride*(over-1) + dilation*(kernel-1) + 1`.
pub fn valid_conv_size(stride: u64, over: u64, dilation: u64, kernel: u64) -> Option<u64> {
    if over == 0 || kernel == 0 {
        return Some(0);
    }
    stride.checked_mul(over - 1)?.checked_add(dilation.checked_mul(kernel - 1)?)?.checked_add(1)
}

#[cfg(test)]
mod tests {
    use super::{simplify_affine, valid_conv_size, Simplified};
    use crate::shape::{AffineDim, ConvPadding, Dim};
    use crate::spec::lexer::MAX_INT;

    fn strided(stride: u64, over: u64, conv: Option<(u64, u64, ConvPadding)>) -> AffineDim {
        let conv = conv.map(|(d, k, p)| (d, Dim::size(k), p));
        AffineDim { stride, over: Dim::size(over), offset: 0, conv }
    }

    fn size(s: Simplified) -> Option<u64> {
        match s {
            Simplified::Dim(Dim::Solved(s)) => Some(s.size),
            _ => None,
        }
    }

    /// A size up to 2^62 simplifies; one above, or a product past 64 bits, is an overflow
    /// (never a saturated or wrapped size).
    #[test]
    fn affine_sizes_above_the_limit_overflow() {
        assert_eq!(size(simplify_affine(strided(2, 1 << 61, None))), Some(MAX_INT));
        assert!(matches!(simplify_affine(strided(2, (1 << 61) + 1, None)), Simplified::Overflow));
        assert!(matches!(simplify_affine(strided(1 << 62, 1 << 62, None)), Simplified::Overflow));
        let valid = Some((1, 2, ConvPadding::Valid));
        assert!(matches!(simplify_affine(strided(1 << 62, 5, valid)), Simplified::Overflow));
        assert_eq!(size(simplify_affine(strided(1 << 62, 1, valid))), Some(2));
        // Over nothing, any stride has size 0.
        assert_eq!(size(simplify_affine(strided(u64::MAX, 0, None))), Some(0));
    }

    /// The extent of a valid convolution: `stride*(over-1) + dilation*(kernel-1) + 1`,
    /// checked at every operation.
    #[test]
    fn valid_convolution_extents_are_checked() {
        assert_eq!(valid_conv_size(2, 5, 1, 3), Some(11));
        assert_eq!(valid_conv_size(1 << 62, 5, 1, 1), None);
        assert_eq!(valid_conv_size(1, 1, u64::MAX, 3), None);
        assert_eq!(valid_conv_size(u64::MAX, 0, u64::MAX, 3), Some(0));
    }
}
