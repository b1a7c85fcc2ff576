//! Five shape-rule bugs planted in a toy framework (`planted_bugs/toy.rs`), each hunted two
//! ways with the same seeds: einrow's kit (near-valid programs of the operation, judged by
//! `check_framework`) and a proptest property over plain random shapes and axes, as a user
//! would write one without einrow. Rust has no numpy: the baseline's oracle is numpy's rules
//! as einrow states them (its verdicts, which the Python package's tests check against numpy
//! itself), so the comparison is of the inputs each draws. Both must find every bug, the kit
//! in fewer examples; with no bug planted, neither reports anything.
//!
//! `cargo test --test planted_bugs -- --nocapture` prints the examples each took.

#![cfg(feature = "fuzzing")]

#[path = "planted_bugs/einsum.rs"]
mod einsum;
#[path = "planted_bugs/toy.rs"]
mod toy;

use einrow::fuzzing::numpy_ops::strategies::{hunt, hunt_programs, near_valid_np_programs};
use einrow::fuzzing::numpy_ops::{check_framework, NpConfig, NpKind, NpOp, NpProgram};
use proptest::collection::vec;
use proptest::prelude::*;
use proptest::strategy::BoxedStrategy;
use toy::{Bug, Toy};

const SEEDS: [u64; 3] = [1, 2, 3];
const MAX: usize = 2000;

/// The kit: near-valid programs of one operation, judged step by step.
fn kit(bug: Bug, kind: NpKind, seed: u64, max: usize) -> Option<usize> {
    let mut toy = Toy { bugs: vec![bug] };
    let cfg = NpConfig::only(&[kind]);
    hunt_programs(&cfg, true, seed, max, 0, &mut |p| check_framework(p, &mut toy).is_err())
        .map(|h| h.examples)
}

/// A program of leaves of these shapes and one step per operation (each over earlier values).
fn program(leaves: &[Vec<usize>], steps: &[(NpOp, Vec<usize>)]) -> NpProgram {
    let mut p = NpProgram::default();
    for s in leaves {
        p.leaf(s.clone(), "float64");
    }
    for (op, args) in steps {
        p.step(op.clone(), args.clone());
    }
    p
}

fn shape() -> impl Strategy<Value = Vec<usize>> {
    vec(0usize..=5, 0..=4)
}

/// The baseline's property for each bug: plain random shapes and parameters.
fn baseline(bug: Bug) -> BoxedStrategy<NpProgram> {
    match bug {
        Bug::BroadcastDerived => (shape(), shape(), shape())
            .prop_map(|(a, b, c)| {
                program(&[a, b, c], &[(NpOp::Add, vec![0, 1]), (NpOp::Add, vec![3, 2])])
            })
            .boxed(),
        Bug::EinsumDiagonal => {
            (vec("[ijk]{0,3}", 1..=2), proptest::option::of("[ijk]{0,3}"), vec(0usize..=4, 3))
                .prop_map(|(terms, out, sizes)| {
                    let size = |c: char| sizes[(c as u8 - b'i') as usize];
                    let leaves: Vec<Vec<usize>> =
                        terms.iter().map(|t| t.chars().map(size).collect()).collect();
                    let spec = format!(
                        "{}{}",
                        terms.join(","),
                        out.map_or(String::new(), |o| format!("->{o}"))
                    );
                    let args = (0..terms.len()).collect();
                    program(&leaves, &[(NpOp::Einsum { subscripts: spec }, args)])
                })
                .boxed()
        }
        Bug::MatmulLeadingOne => (shape(), shape())
            .prop_map(|(a, b)| program(&[a, b], &[(NpOp::Matmul, vec![0, 1])]))
            .boxed(),
        Bug::ConcatRanks => (shape(), shape(), -4i64..4)
            .prop_map(|(a, b, axis)| {
                program(&[a, b], &[(NpOp::Concatenate { axis: Some(axis) }, vec![0, 1])])
            })
            .boxed(),
        Bug::PermuteNegative => shape()
            .prop_flat_map(|s| {
                let n = s.len();
                (
                    Just(s),
                    Just((0..n).collect::<Vec<usize>>()).prop_shuffle(),
                    vec(any::<bool>(), n),
                )
            })
            .prop_map(|(s, perm, neg)| {
                let n = s.len() as i64;
                let axes = perm
                    .iter()
                    .zip(neg)
                    .map(|(&p, m)| if m { p as i64 - n } else { p as i64 })
                    .collect();
                program(&[s], &[(NpOp::Transpose { axes: Some(axes) }, vec![0])])
            })
            .boxed(),
    }
}

fn base(bug: Bug, planted: Vec<Bug>, seed: u64, max: usize) -> Option<usize> {
    let mut toy = Toy { bugs: planted };
    hunt(&baseline(bug), seed, max, 0, &mut |p| check_framework(p, &mut toy).is_err())
        .map(|h| h.examples)
}

const BUGS: [(Bug, NpKind); 5] = [
    (Bug::BroadcastDerived, NpKind::Add),
    (Bug::EinsumDiagonal, NpKind::Einsum),
    (Bug::MatmulLeadingOne, NpKind::Matmul),
    (Bug::ConcatRanks, NpKind::Concatenate),
    (Bug::PermuteNegative, NpKind::Transpose),
];

#[test]
fn the_kit_finds_each_bug_in_fewer_examples() {
    for (bug, kind) in BUGS {
        let counts: Vec<(Option<usize>, Option<usize>)> =
            SEEDS.iter().map(|&s| (kit(bug, kind, s, MAX), base(bug, vec![bug], s, MAX))).collect();
        println!("{bug:?}: examples to the first failure (kit, proptest baseline) per seed {SEEDS:?}: {counts:?}");
        let (k, b): (Vec<_>, Vec<_>) = counts.iter().copied().unzip();
        let (k, b): (Option<Vec<usize>>, Option<Vec<usize>>) =
            (k.into_iter().collect(), b.into_iter().collect());
        let (k, b) = (k.expect("the kit finds it"), b.expect("the baseline finds it"));
        assert!(k.iter().sum::<usize>() < b.iter().sum::<usize>(), "{bug:?}: {counts:?}");
    }
}

#[test]
fn nothing_is_reported_without_a_bug() {
    for (bug, kind) in BUGS {
        let clean = Toy { bugs: Vec::new() };
        for s in SEEDS {
            let strategy = near_valid_np_programs(NpConfig::only(&[kind]));
            let mut toy = Toy { bugs: clean.bugs.clone() };
            let found = hunt(&strategy, s, 500, 0, &mut |p| check_framework(p, &mut toy).is_err());
            assert!(
                found.is_none(),
                "{:?}",
                found.map(|h| check_framework(&h.first, &mut Toy { bugs: Vec::new() }))
            );
            assert_eq!(base(bug, Vec::new(), s, 500), None);
        }
    }
}

#[test]
fn a_found_bug_shrinks_to_a_small_program() {
    let strategy = near_valid_np_programs(NpConfig::only(&[NpKind::Concatenate]));
    let mut toy = Toy { bugs: vec![Bug::ConcatRanks] };
    let found = hunt(&strategy, 1, MAX, 2000, &mut |p| check_framework(p, &mut toy).is_err())
        .expect("found");
    let shrunk = einrow::fuzzing::numpy_ops::shrink_np_program(&found.shrunk, 2000, &mut |p| {
        check_framework(p, &mut Toy { bugs: vec![Bug::ConcatRanks] }).is_err()
    });
    assert_eq!(shrunk.steps().count(), 1, "{}", shrunk.to_text());
    let why = check_framework(&shrunk, &mut toy).expect_err("still fails");
    assert!(why.to_string().contains("error[rank]"), "{why}");
}
