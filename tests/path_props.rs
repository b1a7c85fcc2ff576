//! Property tests of contraction paths on random einsums (diagonals, size-1 broadcasting,
//! implicit and explicit outputs): random valid paths (single-operand, pairwise and
//! many-operand steps) run like the naive evaluation, through `einsum_optimized` and through
//! `einsum_into`; `optimal` is never above any pairwise
//! path, `auto` never above greedy, optimal or dp; a report's path fed back as an explicit path
//! gives the same report; the sublist form gives the subscripts' result.
#![cfg(feature = "fuzzing")]

use einrow::fuzzing::numpy::naive_einsum;
use einrow::kernel::RunOptions;
use einrow::numpy::{
    einsum, einsum_into, einsum_optimized, einsum_path, einsum_sublist, Optimize, PathOptions,
    StridedMut, StridedRef, Sublist, Subscript,
};
use einrow::tensor::Tensor;
use proptest::prelude::*;

#[derive(Clone, Debug)]
struct Case {
    spec: String,
    shapes: Vec<Vec<usize>>,
    words: Vec<u64>,
}

/// Terms over `a..f` (sizes 1-3, some axes broadcast as 1), an optional explicit output of
/// labels the terms use, and random words to draw paths and values from.
fn case() -> impl Strategy<Value = Case> {
    (
        prop::collection::vec(prop::collection::vec(0..6usize, 0..=3), 1..=6),
        prop::array::uniform6(1..=3usize),
        any::<u64>(),
        any::<bool>(),
        prop::collection::vec(any::<u64>(), 8),
    )
        .prop_map(|(terms, sizes, bits, explicit, words)| {
            let letter = |l: usize| (b'a' + l as u8) as char;
            let mut shapes = Vec::new();
            let mut axis = 0;
            for term in &terms {
                let mut shape = Vec::new();
                for (k, &l) in term.iter().enumerate() {
                    // A label repeated in a term keeps its size (a diagonal); others may be 1.
                    let repeated = term[..k].contains(&l);
                    axis += 1;
                    let one = !repeated && bits >> (axis % 64) & 1 == 1 && axis % 3 == 0;
                    shape.push(if one { 1 } else { sizes[l] });
                }
                shapes.push(shape);
            }
            let texts: Vec<String> =
                terms.iter().map(|t| t.iter().map(|&l| letter(l)).collect()).collect();
            let mut spec = texts.join(",");
            if explicit {
                let mut used: Vec<usize> = terms.iter().flatten().copied().collect();
                used.sort_unstable();
                used.dedup();
                let out: String = used
                    .iter()
                    .filter(|&&l| bits >> (l + 40) & 1 == 1)
                    .map(|&l| letter(l))
                    .collect();
                spec = format!("{spec}->{out}");
            }
            Case { spec, shapes, words }
        })
}

/// A random valid path over `n` operands: steps of 1 to 3 positions (at most `n` steps of
/// one position), drawn from `words`.
fn random_path(n: usize, words: &[u64]) -> Vec<Vec<usize>> {
    let mut path = Vec::new();
    let mut left = n;
    let mut singles = 0;
    let mut i = 0usize;
    let mut draw = || {
        i += 1;
        words[i % words.len()].rotate_left((i * 7) as u32) ^ (i as u64).wrapping_mul(0x9E37_79B9)
    };
    while left > 1 || path.is_empty() {
        let w = draw();
        let mut k = 1 + (w % left.min(3) as u64) as usize;
        if k == 1 && singles >= n {
            k = 2.min(left);
        }
        if k == 1 {
            singles += 1;
        }
        let mut order: Vec<usize> = (0..left).collect();
        for j in (1..left).rev() {
            order.swap(j, (draw() % (j as u64 + 1)) as usize);
        }
        path.push(order[..k].to_vec());
        left = left - k + 1;
    }
    path
}

fn values(case: &Case) -> Vec<Vec<f64>> {
    let mut s = case.words[0] | 1;
    case.shapes
        .iter()
        .map(|sh| {
            (0..sh.iter().product::<usize>())
                .map(|_| {
                    s ^= s << 13;
                    s ^= s >> 7;
                    s ^= s << 17;
                    (s % 7) as f64 - 3.0
                })
                .collect()
        })
        .collect()
}

fn tensors(case: &Case, data: &[Vec<f64>]) -> Vec<Tensor> {
    case.shapes
        .iter()
        .zip(data)
        .map(|(s, d)| Tensor::from_vec(s, d.clone()).expect("tensor"))
        .collect()
}

fn flops(case: &Case, optimize: Optimize) -> u128 {
    let shapes: Vec<&[usize]> = case.shapes.iter().map(Vec::as_slice).collect();
    einsum_path(&case.spec, &shapes, &PathOptions::new(optimize)).expect("plan").opt_flops()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn random_paths_run_like_the_naive_evaluation(case in case()) {
        let data = values(&case);
        let Ok((shape, want)) = naive_einsum(&case.spec, &case.shapes, &data) else {
            return Ok(()); // not a valid einsum (an output label twice)
        };
        let ts = tensors(&case, &data);
        let refs: Vec<&Tensor> = ts.iter().collect();
        let path = random_path(case.shapes.len(), &case.words);
        for optimize in [Optimize::Explicit(path.clone()), Optimize::Greedy, Optimize::Optimal, Optimize::Dp, Optimize::Auto] {
            let got = einsum_optimized(&case.spec, &refs, &PathOptions::new(optimize.clone()))
                .map_err(|e| TestCaseError::fail(format!("{optimize}: {e}")))?;
            prop_assert_eq!(got.shape(), shape.as_slice());
            prop_assert_eq!(got.to_f64_vec(), want.clone(), "{}", optimize);
        }
        // The strided path of bindings along the same random path (its single-operand steps
        // that sum nothing are views of the caller's arrays or of intermediates).
        let inputs: Vec<StridedRef<'_, f64>> = case.shapes.iter().zip(&data)
            .map(|(s, d)| StridedRef::contiguous(d, s).expect("fits"))
            .collect();
        let mut out = vec![0.0f64; want.len()];
        let mut view = StridedMut::contiguous(&mut out, &shape).expect("fits");
        let options = PathOptions::new(Optimize::Explicit(path));
        einsum_into(&case.spec, &inputs, &mut view, Some(&options), &RunOptions::default())
            .map_err(|e| TestCaseError::fail(format!("einsum_into: {e}")))?;
        prop_assert_eq!(out, want);
    }

    #[test]
    fn optimal_and_auto_are_never_above_the_others(case in case()) {
        let shapes: Vec<&[usize]> = case.shapes.iter().map(Vec::as_slice).collect();
        let Ok(auto) = einsum_path(&case.spec, &shapes, &PathOptions::default()) else {
            return Ok(());
        };
        let optimal = flops(&case, Optimize::Optimal);
        let others = [flops(&case, Optimize::Greedy), flops(&case, Optimize::Dp)];
        prop_assert!(auto.opt_flops() <= optimal);
        prop_assert!(others.iter().all(|&f| auto.opt_flops() <= f));
        let path = random_path(case.shapes.len(), &case.words);
        if path.iter().all(|s| s.len() == 2) {
            prop_assert!(optimal <= flops(&case, Optimize::Explicit(path)));
        }
        let again = einsum_path(&case.spec, &shapes, &PathOptions::new(Optimize::Explicit(auto.path().to_vec())))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(again.contractions(), auto.contractions());
        prop_assert_eq!(again.naive_flops(), auto.naive_flops());
    }

    #[test]
    fn sublists_evaluate_like_their_subscripts(case in case()) {
        let data = values(&case);
        let ts = tensors(&case, &data);
        let refs: Vec<&Tensor> = ts.iter().collect();
        let Ok(want) = einsum(&case.spec, &refs) else { return Ok(()) };
        let (ins, out) = match case.spec.split_once("->") {
            Some((i, o)) => (i, Some(o)),
            None => (case.spec.as_str(), None),
        };
        // Letter `a` + k is sublist label 26 + k.
        let labels = |t: &str| t.chars().map(|c| Subscript::Label(26 + (c as u8 - b'a') as i64)).collect::<Vec<_>>();
        let mut sub = ins.split(',').fold(Sublist::new(), |s, t| s.input(labels(t)));
        if let Some(o) = out {
            sub = sub.output(labels(o));
        }
        let got = einsum_sublist(&refs, &sub).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert_eq!(got.shape(), want.shape());
        prop_assert_eq!(got.to_f64_vec(), want.to_f64_vec());
    }
}
