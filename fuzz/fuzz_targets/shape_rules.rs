//! A template for fuzzing your own framework's shape rules with cargo-fuzz: the bytes are
//! einrow's random choices, interpreted as a numpy-semantics program with one step copied and
//! mutated (`einrow::fuzzing::numpy_ops`), run through the framework step by step and judged
//! against einrow's verdicts (a result must have numpy's shape, a step numpy refuses must
//! fail). Copy this file, replace `MyFramework` by an adapter to your framework, and list the
//! operations it has in `OPS`. Seeds: `fuzz/seeds/shape_rules`.
//!
//! The stand-in framework below has correct rules for `add` and `transpose`, so the target
//! runs as shipped: `cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run shape_rules seeds/shape_rules`.
#![no_main]

use einrow::fuzzing::gen::Choices;
use einrow::fuzzing::numpy_ops::{
    check_framework, draw_program, near_valid, Framework, NpConfig, NpKind, NpOp,
};
use libfuzzer_sys::fuzz_target;

/// The operations your framework has (numpy's names and parameters).
const OPS: [NpKind; 2] = [NpKind::Add, NpKind::Transpose];

/// Replace with an adapter to your framework: its tensors, and its functions called on each
/// step's operands.
struct MyFramework;

impl Framework for MyFramework {
    type Tensor = Vec<usize>;
    type Error = String;

    fn leaf(&mut self, shape: &[usize], _dtype: &str) -> Vec<usize> {
        shape.to_vec()
    }

    fn apply(&mut self, op: &NpOp, xs: &[&Vec<usize>]) -> Result<Vec<usize>, String> {
        match (op, xs) {
            (NpOp::Add, [a, b]) => {
                let n = a.len().max(b.len());
                let at =
                    |s: &[usize], i: usize| if i + s.len() >= n { s[i + s.len() - n] } else { 1 };
                (0..n)
                    .map(|i| match (at(a, i), at(b, i)) {
                        (x, y) if x == y || y == 1 => Ok(x),
                        (1, y) => Ok(y),
                        (x, y) => Err(format!("cannot broadcast {x} with {y}")),
                    })
                    .collect()
            }
            (NpOp::Transpose { axes: None }, [a]) => Ok(a.iter().rev().copied().collect()),
            (NpOp::Transpose { axes: Some(axes) }, [a]) => {
                let n = a.len() as i64;
                if axes.len() != a.len() {
                    return Err("axes don't match".into());
                }
                let mut seen = vec![false; a.len()];
                axes.iter()
                    .map(|&x| {
                        let i = if (-n..n).contains(&x) {
                            x.rem_euclid(n) as usize
                        } else {
                            return Err("axis out of range".into());
                        };
                        if std::mem::replace(&mut seen[i], true) {
                            return Err("repeated axis".into());
                        }
                        Ok(a[i])
                    })
                    .collect()
            }
            _ => Err(format!("{} is not supported", op.name())),
        }
    }

    fn shape(&self, t: &Vec<usize>) -> Vec<usize> {
        t.clone()
    }
}

fuzz_target!(|data: &[u8]| {
    let words: Vec<u32> =
        data.chunks(4).map(|c| c.iter().fold(0u32, |w, b| (w << 8) | u32::from(*b))).collect();
    let cfg = NpConfig::only(&OPS);
    let mut d = Choices::new(&words);
    let p = draw_program(&cfg, &mut d);
    let p = near_valid(&p, &cfg, &mut d).program;
    if let Err(found) = check_framework(&p, &mut MyFramework) {
        panic!("{found}");
    }
});
