//! einsum over a caller's strided arrays into a caller's strided output
//! ([`einrow::numpy::EinsumPlan`], [`einrow::numpy::einsum_into`]): random views (zero,
//! negative and gapped strides, offsets) and random output layouts give the naive reference's
//! values along every path, write nothing outside the output view, and bad arrays are coded
//! errors.
#![cfg(feature = "fuzzing")]

use einrow::code::{Coded, ErrorCode};
use einrow::fuzzing::numpy::naive_einsum;
use einrow::fuzzing::views::{einsum_view_cases, StridedView};
use einrow::kernel::{RunOptions, Scalar};
use einrow::numpy::{
    einsum_into, EinsumError, EinsumPlan, Optimize, PathOptions, StridedMut, StridedRef,
};
use einrow::tensor::Layout;
use proptest::prelude::*;

/// An output layout of `shape` over a buffer: per axis the packed stride, a gapped one or a
/// negated one (by `choice`), an offset making every address valid, and the buffer length.
fn output_layout(shape: &[usize], choice: u32) -> (Layout, usize) {
    let mut strides = vec![0isize; shape.len()];
    let mut extent: isize = 1;
    for i in (0..shape.len()).rev() {
        strides[i] = match (choice >> (2 * i)) % 3 {
            0 => extent,
            1 => extent * 2,
            _ => -extent,
        };
        extent = strides[i].abs() * shape[i].max(1) as isize;
    }
    let low: isize = shape
        .iter()
        .zip(&strides)
        .map(|(&n, &s)| if s < 0 { s * (n as isize - 1).max(0) } else { 0 })
        .sum();
    let offset = (-low) as usize + (choice as usize >> 20) % 2;
    let layout = Layout::from_parts(shape, &strides, offset).expect("a valid layout");
    let len = layout.address_range().map_or(offset + 1, |(_, hi)| hi as usize + 2);
    (layout, len)
}

/// Runs the plan in `T` on the views' buffers into a strided output; the output's logical
/// values, or the error. Elements outside the output view must keep their sentinel.
fn run_views<T: Scalar>(
    plan: &EinsumPlan,
    views: &[StridedView],
    choice: u32,
) -> Result<Vec<f64>, String> {
    let bufs: Vec<Vec<T>> =
        views.iter().map(|v| v.buffer.iter().map(|&x| T::from_f64(x)).collect()).collect();
    let inputs: Vec<StridedRef<'_, T>> = views
        .iter()
        .zip(&bufs)
        .map(|(v, b)| {
            let layout = Layout::from_parts(&v.shape, &v.strides, v.offset).expect("layout");
            StridedRef::new(b, layout).expect("the view fits its buffer")
        })
        .collect();
    let (layout, len) = output_layout(plan.output_shape(), choice);
    let sentinel = T::from_f64(-1234.0);
    let mut out = vec![sentinel; len];
    let mut view = StridedMut::new(&mut out, layout.clone()).expect("a disjoint output");
    plan.run(&inputs, &mut view, &RunOptions::default()).map_err(|e| e.to_string())?;
    let mut inside = vec![false; len];
    let mut values = Vec::new();
    layout.for_each_address(|a| {
        inside[a] = true;
        values.push(out[a].to_f64());
    });
    if let Some(a) = (0..len).find(|&a| !inside[a] && out[a] != sentinel) {
        return Err(format!("address {a} outside the output view was written"));
    }
    Ok(values)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn strided_runs_match_the_naive_reference(
        (case, views, _) in einsum_view_cases(),
        choice in any::<u32>(),
        strategy in 0usize..3,
    ) {
        let logical: Vec<Vec<f64>> = views.iter().map(StridedView::logical).collect();
        let reference = naive_einsum(&case.spec, &case.shapes, &logical);
        let shapes: Vec<&[usize]> = case.shapes.iter().map(|s| s.as_slice()).collect();
        let path = [None, Some(PathOptions::new(Optimize::Greedy)), Some(PathOptions::default())];
        let plan = EinsumPlan::new(&case.spec, &shapes, path[strategy].as_ref());
        match (plan, reference) {
            (Ok(plan), Ok((shape, want))) => {
                prop_assert_eq!(plan.output_shape(), shape.as_slice());
                let f64s = run_views::<f64>(&plan, &views, choice).map_err(TestCaseError::fail)?;
                prop_assert_eq!(&f64s, &want, "{} f64", case.spec);
                let f32s = run_views::<f32>(&plan, &views, choice).map_err(TestCaseError::fail)?;
                prop_assert_eq!(&f32s, &want, "{} f32", case.spec);
            }
            (Err(_), Err(_)) => {}
            (Ok(_), Err(e)) => prop_assert!(false, "{}: planned, the reference fails: {e}", case.spec),
            (Err(e), Ok(_)) => {
                // A memory limit or path error is not the reference's business; an analysis
                // error is a disagreement.
                prop_assert!(matches!(e, EinsumError::Path(_)), "{}: {e}", case.spec);
            }
        }
    }
}

#[test]
fn a_plan_is_reused_across_arrays_and_layouts() {
    let plan = EinsumPlan::new("ij,jk->ik", &[&[2, 3], &[3, 2]], None).expect("plans");
    let a: Vec<f64> = (1..=6).map(f64::from).collect();
    let b: Vec<f64> = (1..=6).map(|x| f64::from(x) * 10.0).collect();
    let mut first = [0.0; 4];
    let inputs = [
        StridedRef::contiguous(&a, &[2, 3]).unwrap(),
        StridedRef::contiguous(&b, &[3, 2]).unwrap(),
    ];
    plan.run(
        &inputs,
        &mut StridedMut::contiguous(&mut first, &[2, 2]).unwrap(),
        &RunOptions::default(),
    )
    .expect("runs");
    assert_eq!(first, [220.0, 280.0, 490.0, 640.0]);
    // The same plan on a's transpose read as a 2x3 array, into a transposed output.
    let at = StridedRef::new(&a, Layout::from_parts(&[2, 3], &[1, 2], 0).unwrap()).unwrap();
    let mut second = [0.0; 4];
    let mut out =
        StridedMut::new(&mut second, Layout::from_parts(&[2, 2], &[1, 2], 0).unwrap()).unwrap();
    plan.run(&[at, StridedRef::contiguous(&b, &[3, 2]).unwrap()], &mut out, &RunOptions::default())
        .expect("runs");
    // at = [[1,3,5],[2,4,6]]; at·b = [[350,440],[440,560]], stored column-major.
    assert_eq!(second, [350.0, 440.0, 440.0, 560.0]);
    // Back to the first layouts, with other values, twice (the second run reuses the nest
    // the first prepared), and from a clone of the plan.
    let c: Vec<f64> = a.iter().map(|x| -x).collect();
    for p in [&plan, &plan, &plan.clone()] {
        let mut again = [9.0; 4];
        let inputs = [
            StridedRef::contiguous(&c, &[2, 3]).unwrap(),
            StridedRef::contiguous(&b, &[3, 2]).unwrap(),
        ];
        let mut out = StridedMut::contiguous(&mut again, &[2, 2]).unwrap();
        p.run(&inputs, &mut out, &RunOptions::default()).expect("runs");
        assert_eq!(again, [-220.0, -280.0, -490.0, -640.0]);
    }
}

#[test]
fn bad_arrays_are_coded_errors() {
    let data = [1.0f64; 6];
    // A layout reaching outside its slice.
    let far = Layout::from_parts(&[2, 3], &[3, 2], 0).unwrap();
    assert_eq!(StridedRef::new(&data, far).unwrap_err().code(), ErrorCode::Bounds);
    // Outputs whose elements overlap: stride 0, and interleaved axes.
    let mut out = [0.0f64; 6];
    for (shape, strides) in
        [(&[2, 3][..], &[0isize, 1][..]), (&[2, 3], &[1, 1]), (&[3, 2], &[1, 2])]
    {
        let layout = Layout::from_parts(shape, strides, 0).unwrap();
        let e = StridedMut::new(&mut out, layout).unwrap_err();
        assert!(matches!(e, EinsumError::OutputOverlap { .. }), "{shape:?} {strides:?}: {e}");
        assert_eq!(e.code(), ErrorCode::Value);
    }
    // A stride 0 along a single element is fine.
    assert!(StridedMut::new(&mut out, Layout::from_parts(&[1, 3], &[0, 1], 0).unwrap()).is_ok());
    // Operands and outputs of other shapes than planned.
    let plan = EinsumPlan::new("ij->j", &[&[2, 3]], None).unwrap();
    let opts = RunOptions::default();
    let wrong_in = StridedRef::contiguous(&data, &[3, 2]).unwrap();
    let mut o = [0.0f64; 3];
    let e = plan.run(&[wrong_in], &mut StridedMut::contiguous(&mut o, &[3]).unwrap(), &opts);
    assert!(matches!(e, Err(EinsumError::WrongShape { operand: Some(0), .. })), "{e:?}");
    let right = StridedRef::contiguous(&data, &[2, 3]).unwrap();
    let mut o2 = [0.0f64; 2];
    let e = plan.run(
        std::slice::from_ref(&right),
        &mut StridedMut::contiguous(&mut o2, &[2]).unwrap(),
        &opts,
    );
    assert_eq!(e.unwrap_err().code(), ErrorCode::Mismatch);
    let e = plan.run(
        &[right.clone(), right],
        &mut StridedMut::contiguous(&mut o, &[3]).unwrap(),
        &opts,
    );
    assert_eq!(e.unwrap_err().code(), ErrorCode::Arity);
    // Analysis errors are einsum's.
    let e = einsum_into::<f64>(
        "ij,jk->ik",
        &[],
        &mut StridedMut::contiguous(&mut o, &[3]).unwrap(),
        None,
        &opts,
    );
    assert_eq!(e.unwrap_err().code(), ErrorCode::Arity);
}

#[test]
fn empty_operands_give_zeros_and_single_operands_views() {
    let none: [f64; 0] = [];
    let plan = EinsumPlan::new("ij,jk->ik", &[&[2, 0], &[0, 2]], None).unwrap();
    let mut out = [7.0f64; 4];
    let ins = [
        StridedRef::contiguous(&none, &[2, 0]).unwrap(),
        StridedRef::contiguous(&none, &[0, 2]).unwrap(),
    ];
    plan.run(&ins, &mut StridedMut::contiguous(&mut out, &[2, 2]).unwrap(), &RunOptions::default())
        .unwrap();
    assert_eq!(out, [0.0; 4]);
    let diag = EinsumPlan::new("ii->i", &[&[3, 3]], None).unwrap();
    assert_eq!(diag.view_strides(&[3, 1]).unwrap(), Some(vec![4]));
    let t = EinsumPlan::new("ij->ji", &[&[2, 3]], None).unwrap();
    assert_eq!(t.view_strides(&[-3, 1]).unwrap(), Some(vec![1, -3]));
    let sum = EinsumPlan::new("ij->i", &[&[2, 3]], None).unwrap();
    assert_eq!(sum.view_strides(&[3, 1]).unwrap(), None);
}
