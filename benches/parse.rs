//! Parsing speed of typical specs. The goal (`benches/README.md`) is that `ij;jk=>ik` is parsed,
//! inferred and planned in under 1 µs in total, so parsing should take a small fraction of
//! that. Short labels specs such as `2,3` are parsed for every declared tensor.

use criterion::{black_box, criterion_group, criterion_main, Criterion};
use einrow::spec::{parse_einsum, parse_labels, parse_numpy};

fn parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse");
    g.bench_function("labels ...|...->...", |b| b.iter(|| parse_labels(black_box("...|...->..."))));
    g.bench_function("labels ...,16|1000", |b| b.iter(|| parse_labels(black_box("...,16|1000"))));
    g.bench_function("labels 2,3", |b| b.iter(|| parse_labels(black_box("2,3"))));
    g.bench_function("einsum ij;jk=>ik", |b| b.iter(|| parse_einsum(black_box("ij;jk=>ik"))));
    g.bench_function("einsum b|i->o => o|b->i", |b| {
        b.iter(|| parse_einsum(black_box("b|i->o => o|b->i")))
    });
    g.bench_function("einsum conv2d", |b| {
        let spec =
            "... | 2*oh<+kh, 2*ow<+kw, ..ic..; kh, kw, ..ic.. -> ..oc.. => ... | oh, ow, ..oc..";
        b.iter(|| parse_einsum(black_box(spec)))
    });
    g.bench_function("numpy ...ij,...jk->...ik", |b| {
        b.iter(|| parse_numpy(black_box("...ij,...jk->...ik")))
    });
    g.finish();
}

criterion_group!(benches, parse);
criterion_main!(benches);
