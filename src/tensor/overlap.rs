//! Whether a strided map gives two elements one address (a self-overlapping view), as a
//! writable output must not: two results written to one place would leave whichever came
//! last, or their sum.

use smallvec::SmallVec;

use super::size::address_range;

/// Most elements whose addresses are listed and compared when the quick test cannot tell
/// (a view of interleaved axes); larger ones of that kind are taken to overlap.
pub const EXACT_OVERLAP_LIMIT: usize = 1 << 20;

/// The first axis along which two elements of a `shape`/`strides` map share an address, or
/// `None` when every element has its own (always so when the map has no element).
///
/// Axes of one element never overlap; an axis of several with stride 0 always does. Taken by
/// increasing stride magnitude, an axis whose stride exceeds the span of the axes before it
/// adds only new addresses (numpy's arrays all pass this quick test). When it fails, the
/// addresses of up to [`EXACT_OVERLAP_LIMIT`] elements are listed and compared; a larger map
/// that fails the quick test is reported at the axis where it failed.
///
/// ```
/// use einrow::tensor::overlapping_axis;
/// assert_eq!(overlapping_axis(&[2, 3], &[3, 1]), None); // row-major
/// assert_eq!(overlapping_axis(&[2, 2], &[1, 1]), Some(1)); // (0, 1) and (1, 0) meet
/// assert_eq!(overlapping_axis(&[2, 3], &[3, 2]), None); // interleaved, yet disjoint
/// assert_eq!(overlapping_axis(&[3, 0], &[0, 0]), None); // no element
/// ```
pub fn overlapping_axis(shape: &[usize], strides: &[isize]) -> Option<usize> {
    if shape.contains(&0) {
        return None;
    }
    // Inline: the quick test allocates nothing (compiled plans check each output view).
    let mut axes: SmallVec<[usize; 8]> =
        (0..shape.len().min(strides.len())).filter(|&a| shape[a] > 1).collect();
    axes.sort_unstable_by_key(|&a| (strides[a].unsigned_abs(), a));
    let mut span: u128 = 0;
    let mut failed = None;
    for &a in &axes {
        let stride = strides[a].unsigned_abs() as u128;
        if stride == 0 {
            return Some(a);
        }
        if stride <= span && failed.is_none() {
            failed = Some(a);
        }
        span += (shape[a] as u128 - 1) * stride;
    }
    let failed = failed?;
    match listed_overlap(shape, strides) {
        Some(false) => None,
        Some(true) | None => Some(failed),
    }
}

/// Whether two of the map's addresses are equal, by listing them: `None` when it has more
/// than [`EXACT_OVERLAP_LIMIT`] elements.
fn listed_overlap(shape: &[usize], strides: &[isize]) -> Option<bool> {
    let count = shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))?;
    if count > EXACT_OVERLAP_LIMIT {
        return None;
    }
    address_range(shape, strides, 0)?;
    let mut addrs: Vec<i128> = Vec::with_capacity(count);
    let mut idx = vec![0usize; shape.len()];
    let mut at: i128 = 0;
    loop {
        addrs.push(at);
        let mut k = shape.len();
        loop {
            if k == 0 {
                addrs.sort_unstable();
                return Some(addrs.windows(2).any(|w| w[0] == w[1]));
            }
            k -= 1;
            idx[k] += 1;
            at += strides[k] as i128;
            if idx[k] < shape[k] {
                break;
            }
            at -= strides[k] as i128 * shape[k] as i128;
            idx[k] = 0;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every map of up to three axes of sizes 0..3 and strides -4..4: the answer agrees with
    /// listing the addresses.
    #[test]
    fn agrees_with_listing_every_address() {
        let sizes = [0usize, 1, 2, 3];
        let strides: Vec<isize> = (-4..=4).collect();
        for &d0 in &sizes {
            for &d1 in &sizes {
                for &s0 in &strides {
                    for &s1 in &strides {
                        for (&d2, s2) in sizes.iter().zip([3isize, -1, 0, 5]) {
                            let (shape, st) = ([d0, d1, d2], [s0, s1, s2]);
                            let listed =
                                !shape.contains(&0) && listed_overlap(&shape, &st).expect("small");
                            assert_eq!(
                                overlapping_axis(&shape, &st).is_some(),
                                listed,
                                "{shape:?} {st:?}"
                            );
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn large_interleaved_maps_are_taken_to_overlap() {
        let n = EXACT_OVERLAP_LIMIT;
        assert_eq!(overlapping_axis(&[n, 2], &[1, 1]), Some(1));
        assert_eq!(overlapping_axis(&[n, 2], &[2, 1]), None);
        assert_eq!(overlapping_axis(&[1 << 40, 1 << 22], &[1 << 22, 1]), None);
    }
}
