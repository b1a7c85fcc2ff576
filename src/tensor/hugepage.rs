//! Fresh buffers for large results, with advice to back them by transparent huge pages.
//!
//! Where transparent huge pages are in `madvise` mode (a common Linux default), a plain
//! allocation gets 4 KiB pages: a 128 MiB result takes 32 768 page faults on its first
//! write, and column walks over it miss the TLB far more often. numpy advises its large
//! data allocations with `MADV_HUGEPAGE`; so do these constructors, for buffers of at least
//! [`MIN_BYTES`], on the 2 MiB-aligned interior of the allocation, before it is written.
//! On other systems (or when the advice is refused) they are the plain `Vec` constructors.

use super::TensorError;

/// Buffers of at least this many bytes are advised.
pub const MIN_BYTES: usize = 4 << 20;

/// The huge page size the advised range is aligned to (x86-64, and aarch64 with 4 KiB pages).
const HUGE_PAGE: usize = 2 << 20;

/// An empty vector with room for `len` elements (advised when large, before any write).
pub fn with_capacity<T>(len: usize) -> Vec<T> {
    let v = Vec::with_capacity(len);
    advise(&v);
    v
}

/// An empty vector with room for `len` elements (advised when large, before any write); an
/// error instead of an abort when the system cannot provide the memory. Every buffer whose
/// size comes from user input is made here (or by [`filled`] / [`zeroed`]).
pub fn try_with_capacity<T>(len: usize) -> Result<Vec<T>, TensorError> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| too_large::<T>(len))?;
    advise(&v);
    Ok(v)
}

/// `len` copies of `value` (advised when large, before the fill writes the buffer); an
/// error instead of an abort when the system cannot provide the memory.
pub fn filled<T: Clone>(len: usize, value: T) -> Result<Vec<T>, TensorError> {
    let mut v = try_with_capacity(len)?;
    v.resize(len, value);
    Ok(v)
}

/// `len` copies of `zero`, a value whose bytes should all be zero (any value is correct; an
/// all-zero one makes `vec!` a zeroed allocation, and a fresh large zeroed allocation is
/// mapped pages nothing has written yet, so the advice still comes before the first write;
/// a reused allocation is cleared first, and the advice then only helps later compaction).
/// `vec!` aborts when memory runs out, so the size is first reserved fallibly (and released:
/// a fresh large block costs no page until it is written).
pub fn zeroed<T: Clone>(len: usize, zero: T) -> Result<Vec<T>, TensorError> {
    Vec::<T>::new().try_reserve_exact(len).map_err(|_| too_large::<T>(len))?;
    let v = vec![zero; len];
    advise(&v);
    Ok(v)
}

fn too_large<T>(len: usize) -> TensorError {
    TensorError::Allocation { elements: len, bytes_each: std::mem::size_of::<T>() }
}

/// Advises the 2 MiB-aligned interior of `v`'s allocation when it is at least [`MIN_BYTES`].
fn advise<T>(v: &Vec<T>) {
    let bytes = v.capacity().saturating_mul(std::mem::size_of::<T>());
    if bytes >= MIN_BYTES {
        if let Some((start, len)) = interior(v.as_ptr() as usize, bytes) {
            madvise_hugepage(start, len);
        }
    }
}

/// The largest range `(start, len)` of whole huge pages inside `[addr, addr + bytes)`.
fn interior(addr: usize, bytes: usize) -> Option<(usize, usize)> {
    let start = addr.checked_next_multiple_of(HUGE_PAGE)?;
    let end = addr.checked_add(bytes)? / HUGE_PAGE * HUGE_PAGE;
    (end > start).then(|| (start, end - start))
}

#[cfg(target_os = "linux")]
fn madvise_hugepage(start: usize, len: usize) {
    // SAFETY: `[start, start + len)` lies inside one live allocation owned by the caller's
    // vector (`interior` only shrinks the range), and both ends are page-aligned as madvise
    // requires. MADV_HUGEPAGE is advice about how to back the range: it changes neither the
    // contents nor the validity of any byte, nor the allocator's view of the block, so no Rust
    // invariant depends on it. Its result is ignored on purpose: a kernel without transparent
    // huge pages refuses the advice (EINVAL), and the buffer is then simply made of small
    // pages.
    let _ = unsafe { libc::madvise(start as *mut libc::c_void, len, libc::MADV_HUGEPAGE) };
}

#[cfg(not(target_os = "linux"))]
fn madvise_hugepage(_start: usize, _len: usize) {}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_interior(addr: usize, bytes: usize, expected: Option<(usize, usize)>) {
        assert_eq!(interior(addr, bytes), expected, "interior({addr:#x}, {bytes:#x})");
    }

    #[test]
    fn interior_is_whole_aligned_huge_pages() {
        let h = HUGE_PAGE;
        check_interior(0, 4 * h, Some((0, 4 * h)));
        check_interior(16, 4 * h, Some((h, 3 * h)));
        check_interior(h - 1, 2 * h, Some((h, h)));
        check_interior(16, 4 * h - 32, Some((h, 2 * h)));
        check_interior(16, 2 * h - 32, None);
        check_interior(h + 16, h, None);
        check_interior(usize::MAX - h, 4 * h, None);
    }

    /// The advised path on a real allocation: the buffer reads back what was written.
    #[test]
    fn advised_buffers_hold_their_values() {
        let n = (MIN_BYTES / 8) * 3 + 5;
        let mut v: Vec<u64> = with_capacity(n);
        assert!(v.capacity() * 8 >= MIN_BYTES);
        v.extend((0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        assert!(v
            .iter()
            .enumerate()
            .all(|(i, &x)| x == (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)));
        let f = filled(n, 7u32).expect("allocates");
        assert_eq!((f.len(), f.iter().filter(|&&x| x == 7).count()), (n, n));
        let mut z = zeroed(n, 0.0f64).expect("allocates");
        assert!(z.iter().all(|&x| x == 0.0));
        z.iter_mut().enumerate().for_each(|(i, x)| *x = i as f64);
        assert!(z.iter().enumerate().all(|(i, &x)| x == i as f64));
    }

    #[test]
    fn small_buffers_are_plain() {
        assert_eq!(filled(3, 1u8), Ok(vec![1, 1, 1]));
        assert!(with_capacity::<f32>(0).is_empty());
        assert_eq!(zeroed(2, 0i8), Ok(vec![0, 0]));
        assert!(filled(usize::MAX / 8, 0u64).is_err());
        assert!(zeroed(usize::MAX / 8, 0u64).is_err());
        assert!(try_with_capacity::<f64>(usize::MAX / 8).is_err());
        assert!(try_with_capacity::<f64>(3).is_ok_and(|v| v.capacity() >= 3 && v.is_empty()));
    }
}
