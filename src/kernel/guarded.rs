//! The slow path for nests with guards (padded convolutions): every point visited by an
//! odometer that updates addresses and guarded indices incrementally, guards tested per
//! point, every access bounds-checked.

use smallvec::SmallVec;

use super::error::KernelError;
use super::nest::{Access, Init, Nest};
use super::scalar::Scalar;

/// Incremental state of one operand: current address and guarded indices.
struct Cursor<'a> {
    acc: &'a Access,
    addr: isize,
    idx: SmallVec<[isize; 4]>,
}

impl<'a> Cursor<'a> {
    fn new(acc: &'a Access) -> Cursor<'a> {
        Cursor { acc, addr: acc.offset, idx: acc.guards.iter().map(|g| g.offset).collect() }
    }

    fn inside(&self) -> bool {
        self.idx.iter().zip(&self.acc.guards).all(|(&i, g)| i >= 0 && (i as usize) < g.len)
    }

    /// Moves `by` steps along loop `d`.
    fn step(&mut self, d: usize, by: isize) {
        self.addr = self.addr.wrapping_add(self.acc.strides[d].wrapping_mul(by));
        for (i, g) in self.idx.iter_mut().zip(&self.acc.guards) {
            *i = i.wrapping_add(g.coeffs[d].wrapping_mul(by));
        }
    }
}

/// Runs a guarded nest (already validated; `Init::Whole` already applied by the caller).
pub fn run<T: Scalar>(nest: &Nest, ins: &[&[T]], out: &mut [T]) -> Result<(), KernelError> {
    let neutral = nest.accum.neutral_value::<T>();
    if let (Init::Touched, Some(z)) = (nest.init, neutral) {
        walk(nest, |o, _| {
            if o.inside() {
                *slot(out, o.addr)? = z;
            }
            Ok(())
        })?;
    }
    let fills: SmallVec<[T; 4]> = nest.inputs.iter().map(|a| T::from_fill(a.fill)).collect();
    walk(nest, |o, cursors| {
        if !o.inside() {
            return Ok(());
        }
        let mut v: Option<T> = None;
        for ((c, buf), &fill) in cursors.iter().zip(ins).zip(&fills) {
            let x = if c.inside() {
                *buf.get(c.addr as usize).ok_or_else(|| oob(c.addr, buf.len()))?
            } else {
                fill
            };
            v = Some(v.map_or(x, |p| nest.combine.apply(p, x)));
        }
        let s = slot(out, o.addr)?;
        if let Some(v) = v {
            *s = nest.accum.apply(*s, v);
        }
        Ok(())
    })
}

/// Calls `f(output cursor, input cursors)` at every point of the nest.
fn walk<'a>(
    nest: &'a Nest,
    mut f: impl FnMut(&Cursor<'a>, &[Cursor<'a>]) -> Result<(), KernelError>,
) -> Result<(), KernelError> {
    let ext = &nest.extents;
    if ext.contains(&0) {
        return Ok(());
    }
    let mut o = Cursor::new(&nest.output);
    let mut cs: SmallVec<[Cursor<'a>; 4]> = nest.inputs.iter().map(Cursor::new).collect();
    let mut p: SmallVec<[usize; 8]> = SmallVec::from_elem(0, ext.len());
    loop {
        f(&o, &cs)?;
        let mut d = ext.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            p[d] += 1;
            if p[d] < ext[d] {
                o.step(d, 1);
                cs.iter_mut().for_each(|c| c.step(d, 1));
                break;
            }
            let back = -((ext[d] - 1) as isize);
            p[d] = 0;
            o.step(d, back);
            cs.iter_mut().for_each(|c| c.step(d, back));
        }
    }
}

fn slot<T>(out: &mut [T], addr: isize) -> Result<&mut T, KernelError> {
    let len = out.len();
    out.get_mut(addr as usize).ok_or_else(|| oob(addr, len))
}

fn oob(addr: isize, len: usize) -> KernelError {
    KernelError::OutOfBounds { operand: "a guarded operand".into(), reach: addr as i128, len }
}
