//! The element type an execution check runs a program in: f64, f32, f16, bf16, i64, i32, i16
//! or i8 (every storage type the small integer leaf values fit in; not bool or u8). A program
//! is compared exactly in a type only while every partial sum the reference forms is an
//! integer the type holds exactly; past that it runs in f64 (see [`ExecType::fitting`]).

use crate::ids::{StepId, TensorId};
use crate::infer::Graph;
use crate::project::{run_graph, Compute, ProjectError, Storage};
use crate::tensor::Element;

/// Values of every tensor, in f64.
type Values = Vec<Option<Vec<f64>>>;

/// An element type an execution check runs in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecType {
    /// f64 (integers exact to 2^53).
    F64,
    /// f32 (integers exact to 2^24).
    F32,
    /// float16, computed in f32 (integers exact to 2^11).
    F16,
    /// bfloat16, computed in f32 (integers exact to 2^8).
    BF16,
    /// i64.
    I64,
    /// i32, computed in i64.
    I32,
    /// i16, computed in i64.
    I16,
    /// i8, computed in i64.
    I8,
}

impl ExecType {
    /// Every type, f64 first.
    pub const ALL: [ExecType; 8] = [
        ExecType::F64,
        ExecType::F32,
        ExecType::F16,
        ExecType::BF16,
        ExecType::I64,
        ExecType::I32,
        ExecType::I16,
        ExecType::I8,
    ];

    /// The largest magnitude up to which every integer is held exactly.
    pub fn exact(self) -> f64 {
        match self {
            ExecType::F64 => 9_007_199_254_740_992.0,
            ExecType::F32 => 16_777_216.0,
            ExecType::F16 => 2048.0,
            ExecType::BF16 => 256.0,
            ExecType::I64 => 9_007_199_254_740_992.0,
            ExecType::I32 => 2_147_483_647.0,
            ExecType::I16 => 32767.0,
            ExecType::I8 => 127.0,
        }
    }

    /// `self` if partial sums bounded by `bound` stay exact in it, else f64.
    pub fn fitting(self, bound: f64) -> ExecType {
        if bound <= self.exact() {
            self
        } else {
            ExecType::F64
        }
    }

    /// Runs a solved graph in this type from leaf values given in f64; the results in f64.
    pub fn run(
        self,
        g: &Graph,
        leaves: &[(TensorId, Vec<f64>)],
        compute: &dyn Fn(StepId) -> Compute,
    ) -> Result<Values, ProjectError> {
        match self {
            ExecType::F64 => run_as::<f64>(g, leaves, compute),
            ExecType::F32 => run_as::<f32>(g, leaves, compute),
            ExecType::F16 => run_as::<half::f16>(g, leaves, compute),
            ExecType::BF16 => run_as::<half::bf16>(g, leaves, compute),
            ExecType::I64 => run_as::<i64>(g, leaves, compute),
            ExecType::I32 => run_as::<i32>(g, leaves, compute),
            ExecType::I16 => run_as::<i16>(g, leaves, compute),
            ExecType::I8 => run_as::<i8>(g, leaves, compute),
        }
    }
}

fn run_as<T: Storage + Element>(
    g: &Graph,
    leaves: &[(TensorId, Vec<f64>)],
    compute: &dyn Fn(StepId) -> Compute,
) -> Result<Values, ProjectError> {
    let typed: Vec<(TensorId, Vec<T>)> =
        leaves.iter().map(|(t, v)| (*t, v.iter().map(|&x| T::from_f64(x)).collect())).collect();
    let out = run_graph(g, &typed, compute)?;
    Ok(out.into_iter().map(|v| v.map(|v| v.into_iter().map(Element::to_f64).collect())).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infer::program::Program;
    use crate::project::Compute;

    /// Every type computes the same small integers as f64 (a broadcast product, a compose and
    /// a sum), and a bound past a type's exact range falls back to f64.
    #[test]
    fn every_type_agrees_on_small_integers() {
        let text = "tensor a: 2,3\ntensor b: 3\nc = pointwise a b\nd = compose c c\n";
        let p = Program::parse_text(text).expect("parses");
        let leaves_of = |g: &Graph| {
            let a = g.tensor_ids().next().expect("a");
            let b = g.tensor_ids().nth(1).expect("b");
            vec![(a, vec![1.0, -2.0, 3.0, 0.0, 2.0, -1.0]), (b, vec![2.0, 1.0, -3.0])]
        };
        let mut want = None;
        for ty in ExecType::ALL {
            let built = p.build();
            let g = built.graph;
            let steps = g.steps().to_vec();
            let compute = |st: StepId| {
                Compute::default_for(steps[st.index()].op, steps[st.index()].args.len())
            };
            let leaves = leaves_of(&g);
            let got = ty.run(&g, &leaves, &compute).expect("runs");
            match &want {
                None => want = Some(got),
                Some(w) => assert_eq!(&got, w, "{ty:?}"),
            }
        }
        assert_eq!(ExecType::I8.fitting(200.0), ExecType::F64);
        assert_eq!(ExecType::F16.fitting(2048.0), ExecType::F16);
    }
}
