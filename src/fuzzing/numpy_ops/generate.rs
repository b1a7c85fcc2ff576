//! Drawing valid programs and einsum cases from any source of choices ([`Draw`]): the
//! simplest choices give the simplest case (one step over `float64` operands of shape `(2,)`).

use super::builder::Builder;
use super::config::NpConfig;
use super::op::NpKind;
use super::program::NpProgram;
use crate::fuzzing::gen::Draw;

/// A valid program of up to `cfg.max_steps` steps (a step too large to draw is left out): each step's operands are earlier results
/// (most often the latest) or fresh leaves made to fit, so that numpy computes every step.
///
/// ```
/// use einrow::fuzzing::gen::Choices;
/// use einrow::fuzzing::numpy_ops::{draw_program, NpConfig, Outcome};
///
/// let words: Vec<u32> = (0..200u32).map(|i| i.wrapping_mul(2654435761)).collect();
/// let p = draw_program(&NpConfig::default(), &mut Choices::new(&words));
/// assert!(p.evaluate().iter().all(|o| matches!(o, Outcome::Value(_))));
/// ```
pub fn draw_program(cfg: &NpConfig, d: &mut dyn Draw) -> NpProgram {
    let mut b = Builder::new(cfg);
    let steps = 1 + d.below(cfg.steps());
    for _ in 0..steps {
        let kind = cfg.op(d.below(cfg.total_weight()));
        super::steps::step(&mut b, d, kind);
    }
    b.program
}

/// A valid einsum case: one einsum step over fresh operands (up to `cfg.max_operands`), with
/// diagonals, `...`, size-1 and size-0 axes, implicit and explicit outputs.
pub fn draw_einsum_case(cfg: &NpConfig, d: &mut dyn Draw) -> NpProgram {
    let mut b = Builder::new(cfg);
    if super::steps::step(&mut b, d, NpKind::Einsum).is_none() {
        // Too many loop points: the simplest einsum instead, a sum over a fresh operand.
        let a = b.fresh(d, vec![2]);
        b.push(crate::fuzzing::numpy_ops::NpOp::Einsum { subscripts: "i".into() }, vec![a]);
    }
    b.program
}
