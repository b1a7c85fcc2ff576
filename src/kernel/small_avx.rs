//! Small f32 matrix products with AVX2 and FMA: the lean panels of `prepared.rs` whose rows
//! are 4, 8 or 16 points, a block of 4 or 8 rows at once, every row held in one or two
//! vector registers across the panel's runs (out row += a · run, one fused multiply-add per
//! register and run).
//!
//! Chosen when the nest is prepared, on x86-64 processors that report AVX2 and FMA, for
//! nests that add products (`+=` of `*`); the values are those of the generic panel loops
//! but for the rounding of the fused multiply-add (one rounding where the loops round the
//! product and the sum). Elsewhere, and for other element types, the generic loops run.

/// A block of rows of a small product: `rows` output rows of `n` points, row `r` at
/// `at + r·row` for each operand (output, input read once per run, input read along it),
/// each accumulating `m` runs, run `j` at `+ j·run`.
#[derive(Clone, Copy, Debug)]
pub struct Block {
    rows: usize,
    n: usize,
    m: usize,
    row: [isize; 3],
    run: [isize; 3],
}

impl Block {
    /// The block for rows of `n` points along an outer loop of `extent` rows, if the
    /// processor has AVX2 and FMA and the shape is one the kernels take: `n` of 4, 8 or 16,
    /// distinct rows (`|row[0]| ≥ n`) and `extent` a multiple of the block's rows.
    pub fn new(
        n: usize,
        m: usize,
        extent: usize,
        row: [isize; 3],
        run: [isize; 3],
    ) -> Option<Block> {
        if !detected() || !matches!(n, 4 | 8 | 16) || row[0].unsigned_abs() < n || m == 0 {
            return None;
        }
        // Eight rows where their registers fit (16 of them; two per row of 16).
        let rows = match extent {
            _ if extent.is_multiple_of(8) && n <= 8 => 8,
            _ if extent.is_multiple_of(4) => 4,
            _ => return None,
        };
        Some(Block { rows, n, m, row, run })
    }

    /// The rows a block takes.
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// Adds the block whose rows start at `at` (output, input read once, input read along
    /// the runs) into `out`; `None` (nothing written) if an address leaves its buffer.
    pub fn run(&self, at: [isize; 3], once: &[f32], along: &[f32], out: &mut [f32]) -> Option<()> {
        let lo_hi = |k: usize, width: usize, len: usize| {
            span(at[k], self.row[k], self.rows, self.run[k], self.m, width, len)
        };
        lo_hi(0, self.n, out.len())?;
        lo_hi(1, 1, once.len())?;
        lo_hi(2, self.n, along.len())?;
        #[cfg(target_arch = "x86_64")]
        {
            let p = Ptrs { out: out.as_mut_ptr(), once: once.as_ptr(), along: along.as_ptr() };
            // SAFETY: a `Block` exists only where the processor reported AVX2 and FMA
            // (`Block::new`), and every address the block reads or writes lies within the
            // spans checked above for each buffer (`span`).
            unsafe { avx::dispatch(self, at, p) };
            Some(())
        }
        #[cfg(not(target_arch = "x86_64"))]
        None
    }
}

/// Whether the processor has AVX2 and FMA (the answer cached by the standard library).
fn detected() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
    }
    #[cfg(not(target_arch = "x86_64"))]
    false
}

/// Checks that every address `base + r·row + j·run + w` (`r < rows`, `j < m`, `w < width`)
/// lies in `0..len`: the extremes are at the corners.
fn span(
    base: isize,
    row: isize,
    rows: usize,
    run: isize,
    m: usize,
    width: usize,
    len: usize,
) -> Option<()> {
    let reach = |s: isize, k: usize| s.checked_mul(isize::try_from(k.checked_sub(1)?).ok()?);
    let (r, j) = (reach(row, rows)?, reach(run, m)?);
    let lo = base.checked_add(r.min(0))?.checked_add(j.min(0))?;
    let hi = base.checked_add(r.max(0))?.checked_add(j.max(0))?;
    let last = hi.checked_add(isize::try_from(width).ok()? - 1)?;
    (lo >= 0 && usize::try_from(last).ok()? < len).then_some(())
}

/// The buffers' first elements.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Ptrs {
    out: *mut f32,
    once: *const f32,
    along: *const f32,
}

#[cfg(target_arch = "x86_64")]
mod avx {
    use std::arch::x86_64::{
        __m128, __m256, _mm256_broadcast_ss, _mm256_fmadd_ps, _mm256_loadu_ps, _mm256_storeu_ps,
        _mm_broadcast_ss, _mm_fmadd_ps, _mm_loadu_ps, _mm_storeu_ps,
    };

    use super::{Block, Ptrs};

    /// Runs the kernel for the block's shape.
    ///
    /// # Safety
    /// The processor supports AVX2 and FMA, and every address of the block (see [`Block`])
    /// lies within its buffer.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn dispatch(b: &Block, at: [isize; 3], p: Ptrs) {
        // SAFETY: the caller's guarantees, passed on.
        unsafe {
            // The input read along the runs shared by all rows (a plain matrix product's
            // right operand): its runs loaded once for the block.
            match (b.n, b.rows, b.row[2] == 0) {
                (4, 4, true) => block::<X4, 4, 1, true>(b, at, p),
                (4, 4, false) => block::<X4, 4, 1, false>(b, at, p),
                (4, _, true) => block::<X4, 8, 1, true>(b, at, p),
                (4, _, false) => block::<X4, 8, 1, false>(b, at, p),
                (8, 4, true) => block::<Y8, 4, 1, true>(b, at, p),
                (8, 4, false) => block::<Y8, 4, 1, false>(b, at, p),
                (8, _, true) => block::<Y8, 8, 1, true>(b, at, p),
                (8, _, false) => block::<Y8, 8, 1, false>(b, at, p),
                (_, _, true) => block::<Y8, 4, 2, true>(b, at, p),
                (_, _, false) => block::<Y8, 4, 2, false>(b, at, p),
            }
        }
    }

    /// `R` rows of `C` registers `V` each; `SHARED`: every row reads the same runs.
    ///
    /// # Safety
    /// As [`dispatch`]; `C` registers of `V` are the block's `n` points, `R` its rows, and
    /// `SHARED` says the rows' runs are one (`row[2] == 0`).
    #[inline(always)]
    unsafe fn block<V: Lanes, const R: usize, const C: usize, const SHARED: bool>(
        b: &Block,
        at: [isize; 3],
        p: Ptrs,
    ) {
        // SAFETY: every address below is `at + r·row + j·run + w` for `r < rows`, `j < m`,
        // `w < n`, within the buffer by the caller's guarantee; the intrinsics need AVX2 and
        // FMA, which the caller's processor has.
        unsafe {
            let out = |r: usize, c: usize| {
                p.out.offset(at[0] + r as isize * b.row[0] + (c * V::W) as isize)
            };
            let mut acc = [[V::load(out(0, 0)); C]; R];
            for (r, acc) in acc.iter_mut().enumerate() {
                for (c, acc) in acc.iter_mut().enumerate() {
                    *acc = V::load(out(r, c));
                }
            }
            let (mut x, mut y) = (p.once.offset(at[1]), p.along.offset(at[2]));
            for _ in 0..b.m {
                let mut runs = [V::load(y); C];
                if SHARED {
                    for (c, v) in runs.iter_mut().enumerate() {
                        *v = V::load(y.add(c * V::W));
                    }
                }
                for (r, acc) in acc.iter_mut().enumerate() {
                    let a = V::splat(x.offset(r as isize * b.row[1]));
                    let yr = y.offset(r as isize * b.row[2]);
                    for (c, acc) in acc.iter_mut().enumerate() {
                        let v = if SHARED { runs[c] } else { V::load(yr.add(c * V::W)) };
                        *acc = V::fma(a, v, *acc);
                    }
                }
                // Wrapping: past the last run the addresses may leave the buffers, unread.
                (x, y) = (x.wrapping_offset(b.run[1]), y.wrapping_offset(b.run[2]));
            }
            for (r, acc) in acc.iter().enumerate() {
                for (c, acc) in acc.iter().enumerate() {
                    acc.store(out(r, c));
                }
            }
        }
    }

    /// A vector register of `W` f32 lanes.
    trait Lanes: Copy {
        const W: usize;
        /// # Safety
        /// `p` is valid for `W` reads; the processor has AVX2.
        unsafe fn load(p: *const f32) -> Self;
        /// # Safety
        /// `p` is valid for `W` writes; the processor has AVX2.
        unsafe fn store(self, p: *mut f32);
        /// # Safety
        /// `p` is valid for a read; the processor has AVX2.
        unsafe fn splat(p: *const f32) -> Self;
        /// `a · b + c`, rounded once.
        ///
        /// # Safety
        /// The processor has FMA.
        unsafe fn fma(a: Self, b: Self, c: Self) -> Self;
    }

    /// Four lanes (rows of 4).
    #[derive(Clone, Copy)]
    struct X4(__m128);

    /// Eight lanes (rows of 8, or half a row of 16).
    #[derive(Clone, Copy)]
    struct Y8(__m256);

    impl Lanes for X4 {
        const W: usize = 4;
        #[inline(always)]
        unsafe fn load(p: *const f32) -> X4 {
            // SAFETY: the caller's guarantees.
            X4(unsafe { _mm_loadu_ps(p) })
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            // SAFETY: the caller's guarantees.
            unsafe { _mm_storeu_ps(p, self.0) }
        }
        #[inline(always)]
        unsafe fn splat(p: *const f32) -> X4 {
            // SAFETY: the caller's guarantees.
            X4(unsafe { _mm_broadcast_ss(&*p) })
        }
        #[inline(always)]
        unsafe fn fma(a: X4, b: X4, c: X4) -> X4 {
            // SAFETY: the caller's guarantees.
            X4(unsafe { _mm_fmadd_ps(a.0, b.0, c.0) })
        }
    }

    impl Lanes for Y8 {
        const W: usize = 8;
        #[inline(always)]
        unsafe fn load(p: *const f32) -> Y8 {
            // SAFETY: the caller's guarantees.
            Y8(unsafe { _mm256_loadu_ps(p) })
        }
        #[inline(always)]
        unsafe fn store(self, p: *mut f32) {
            // SAFETY: the caller's guarantees.
            unsafe { _mm256_storeu_ps(p, self.0) }
        }
        #[inline(always)]
        unsafe fn splat(p: *const f32) -> Y8 {
            // SAFETY: the caller's guarantees.
            Y8(unsafe { _mm256_broadcast_ss(&*p) })
        }
        #[inline(always)]
        unsafe fn fma(a: Y8, b: Y8, c: Y8) -> Y8 {
            // SAFETY: the caller's guarantees.
            Y8(unsafe { _mm256_fmadd_ps(a.0, b.0, c.0) })
        }
    }
}
