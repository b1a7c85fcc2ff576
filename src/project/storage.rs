//! [`Storage`]: the element types a compiled plan runs in. The compute types (f32, f64, i64
//! with wrapping arithmetic, bool, complex64, complex128) run as they are; float16 and
//! bfloat16 are computed in f32 and the narrower integers in i64 (as everywhere in einrow:
//! `DType::compute_dtype`), through buffers of the compute type kept in the executable's
//! scratch space.
//!
//! Integer plans are integer arithmetic: a padded read yields the accumulation's neutral
//! element in i64 (`i64::MIN` for a maximum, where floats read −∞), and combines wrap, so
//! `max= x[padded] - w` can pick a wrapped padding value where f64 would keep −∞.

use super::compiled::{Executable, Scratch};
use super::error::ProjectError;
use super::view::{View, ViewMut};
use crate::kernel::{RunOptions, Scalar};
use crate::tensor::{Complex128, Complex64, Element};

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
    impl Sealed for i64 {}
    impl Sealed for bool {}
    impl Sealed for half::f16 {}
    impl Sealed for half::bf16 {}
    impl Sealed for i8 {}
    impl Sealed for u8 {}
    impl Sealed for i16 {}
    impl Sealed for i32 {}
    impl Sealed for crate::tensor::Complex64 {}
    impl Sealed for crate::tensor::Complex128 {}
}

/// An element type a compiled plan runs in: any of einrow's storage types (sealed): f32, f64,
/// i64, bool, f16, bf16, i8, u8, i16, i32, complex64, complex128.
pub trait Storage: Element + crate::numpy::Stored + sealed::Sealed {
    /// The least value (−∞ for floats, `false` for bool): a maximum over nothing.
    #[doc(hidden)]
    const LOWEST: Self;
    /// The greatest value (+∞ for floats, `true` for bool): a minimum over nothing.
    #[doc(hidden)]
    const HIGHEST: Self;

    /// Runs `exe` on contiguous slices whose lengths were checked.
    #[doc(hidden)]
    fn run_contiguous(
        exe: &Executable,
        inputs: &[&[Self]],
        output: &mut [Self],
        opts: &RunOptions,
    ) -> Result<(), ProjectError>;

    /// Runs `exe` on views whose sizes were checked.
    #[doc(hidden)]
    fn run_views(
        exe: &Executable,
        inputs: &[View<'_, Self>],
        output: &mut ViewMut<'_, Self>,
        opts: &RunOptions,
    ) -> Result<(), ProjectError>;
}

/// The compute types, with their scratch buffers and conversions.
trait Compute: Scalar {
    fn bufs(s: &mut Scratch) -> &mut Vec<Vec<Self>>;
    fn of<S: Element>(x: S) -> Self;
    fn to<S: Element>(self) -> S;
}

impl Compute for f32 {
    fn bufs(s: &mut Scratch) -> &mut Vec<Vec<f32>> {
        &mut s.f32s
    }
    fn of<S: Element>(x: S) -> f32 {
        x.to_f32()
    }
    fn to<S: Element>(self) -> S {
        S::from_f32(self)
    }
}

impl Compute for i64 {
    fn bufs(s: &mut Scratch) -> &mut Vec<Vec<i64>> {
        &mut s.i64s
    }
    fn of<S: Element>(x: S) -> i64 {
        x.to_i64()
    }
    fn to<S: Element>(self) -> S {
        S::from_i64(self)
    }
}

impl Compute for f64 {
    fn bufs(s: &mut Scratch) -> &mut Vec<Vec<f64>> {
        &mut s.f64s
    }
    fn of<S: Element>(x: S) -> f64 {
        x.to_f64()
    }
    fn to<S: Element>(self) -> S {
        S::from_f64(self)
    }
}

macro_rules! direct {
    ($t:ty, $lo:expr, $hi:expr) => {
        impl Storage for $t {
            const LOWEST: $t = $lo;
            const HIGHEST: $t = $hi;

            fn run_contiguous(
                exe: &Executable,
                inputs: &[&[$t]],
                output: &mut [$t],
                opts: &RunOptions,
            ) -> Result<(), ProjectError> {
                exe.run_direct(inputs, output, opts)
            }

            fn run_views(
                exe: &Executable,
                inputs: &[View<'_, $t>],
                output: &mut ViewMut<'_, $t>,
                opts: &RunOptions,
            ) -> Result<(), ProjectError> {
                let contiguous = inputs.iter().all(|v| v.layout.is_contiguous())
                    && output.layout.is_contiguous();
                if contiguous {
                    // Offset 0, row-major, sizes checked: each view starts its slice.
                    let (lens, len) = exe.lens();
                    let bufs: smallvec::SmallVec<[&[$t]; 4]> = inputs
                        .iter()
                        .zip(lens)
                        .map(|(v, &n)| v.data.get(..n).unwrap_or_default())
                        .collect();
                    let out = output.data.get_mut(..len).unwrap_or_default();
                    return exe.run_direct(&bufs, out, opts);
                }
                let ins: smallvec::SmallVec<[_; 4]> =
                    inputs.iter().map(|v| (v.data, &v.layout)).collect();
                let layout = &output.layout;
                exe.with_scratch(|s| exe.run_strided(s, &ins, (&mut *output.data, layout), opts))
            }
        }
    };
}

direct!(f32, f32::NEG_INFINITY, f32::INFINITY);
direct!(f64, f64::NEG_INFINITY, f64::INFINITY);
direct!(i64, i64::MIN, i64::MAX);
direct!(bool, false, true);
direct!(Complex64, Complex64::NEG_INFINITY, Complex64::INFINITY);
direct!(Complex128, Complex128::NEG_INFINITY, Complex128::INFINITY);

macro_rules! converted {
    ($t:ty, $c:ty, $lo:expr, $hi:expr) => {
        impl Storage for $t {
            const LOWEST: $t = $lo;
            const HIGHEST: $t = $hi;

            fn run_contiguous(
                exe: &Executable,
                inputs: &[&[$t]],
                output: &mut [$t],
                opts: &RunOptions,
            ) -> Result<(), ProjectError> {
                exe.with_scratch(|s| {
                    let sources = inputs.iter().map(|i| Source::Slice(i));
                    convert_run::<$t, $c>(exe, s, sources, output, opts)
                })
            }

            fn run_views(
                exe: &Executable,
                inputs: &[View<'_, $t>],
                output: &mut ViewMut<'_, $t>,
                opts: &RunOptions,
            ) -> Result<(), ProjectError> {
                exe.with_scratch(|s| {
                    let sources = inputs.iter().map(|v| Source::View(v));
                    convert_run_into::<$t, $c>(exe, s, sources, &mut Target::View(output), opts)
                })
            }
        }
    };
}

converted!(half::f16, f32, half::f16::NEG_INFINITY, half::f16::INFINITY);
converted!(half::bf16, f32, half::bf16::NEG_INFINITY, half::bf16::INFINITY);
converted!(i8, i64, i8::MIN, i8::MAX);
converted!(u8, i64, u8::MIN, u8::MAX);
converted!(i16, i64, i16::MIN, i16::MAX);
converted!(i32, i64, i32::MIN, i32::MAX);

/// An operand of a converted run.
enum Source<'s, 'a, S> {
    Slice(&'s [S]),
    View(&'s View<'a, S>),
}

/// Where a converted run writes.
enum Target<'s, 'a, S> {
    Slice(&'s mut [S]),
    View(&'s mut ViewMut<'a, S>),
}

fn convert_run<'s, 'a: 's, S: Storage, C: Compute>(
    exe: &Executable,
    scratch: &mut Scratch,
    sources: impl Iterator<Item = Source<'s, 'a, S>>,
    output: &mut [S],
    opts: &RunOptions,
) -> Result<(), ProjectError> {
    convert_run_into::<S, C>(exe, scratch, sources, &mut Target::Slice(output), opts)
}

/// Converts the operands into buffers of the compute type, runs the contiguous nests, and
/// converts the result back (scratch buffers keep their capacity from call to call). A
/// maximum or minimum over nothing is the storage type's own extreme (int8's −128, not the
/// low bits of int64's least value).
fn convert_run_into<'s, 'a: 's, S: Storage, C: Compute>(
    exe: &Executable,
    scratch: &mut Scratch,
    sources: impl Iterator<Item = Source<'s, 'a, S>>,
    output: &mut Target<'_, '_, S>,
    opts: &RunOptions,
) -> Result<(), ProjectError> {
    let (lens, out_len) = exe.lens();
    let bufs = C::bufs(scratch);
    bufs.resize_with(lens.len() + 1, Vec::new);
    let (out_buf, in_bufs) = bufs.split_last_mut().ok_or_else(empty)?;
    for (buf, src) in in_bufs.iter_mut().zip(sources) {
        buf.clear();
        match src {
            Source::Slice(s) => buf.extend(s.iter().map(|&x| C::of(x))),
            Source::View(v) => v.layout.for_each_address(|a| buf.push(C::of(v.data[a]))),
        }
    }
    out_buf.clear();
    if exe.accumulates() {
        // The result adds into what the output holds: read it in the compute type.
        match output {
            Target::Slice(out) => out_buf.extend(out.iter().map(|&x| C::of(x))),
            Target::View(view) => {
                let data = &*view.data;
                view.layout.for_each_address(|a| out_buf.push(C::of(data[a])));
            }
        }
    }
    out_buf.resize(out_len, C::ZERO);
    let ins: smallvec::SmallVec<[&[C]; 4]> = in_bufs.iter().map(|b| b.as_slice()).collect();
    exe.run_direct(&ins, out_buf, opts)?;
    let extremes = exe.fill_value().is_infinite();
    let back = |v: C| match v {
        _ if !extremes => v.to(),
        v if v == C::NEG_INFINITY => S::LOWEST,
        v if v == C::INFINITY => S::HIGHEST,
        v => v.to(),
    };
    match output {
        Target::Slice(out) => {
            for (o, &v) in out.iter_mut().zip(out_buf.iter()) {
                *o = back(v);
            }
        }
        Target::View(view) => {
            let mut values = out_buf.iter();
            let data = &mut *view.data;
            view.layout.for_each_address(|a| {
                if let Some(&v) = values.next() {
                    data[a] = back(v);
                }
            });
        }
    }
    Ok(())
}

fn empty() -> ProjectError {
    ProjectError::Data("no buffers".into())
}
