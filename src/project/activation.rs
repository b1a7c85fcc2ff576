//! Elementwise activations applied natively between the steps of a [`Training`] run: see
//! [`Activations`].

use super::error::ProjectError;
use super::storage::Storage;
use super::training::Training;
use super::training_run::Hooks;
use crate::ids::{GraphId, StepId, TensorId};
use crate::infer::{Graph, InferError};
use crate::ErrorCode;

/// An elementwise function applied in place to a step's result, whose derivative the
/// backward pass computes from the result alone (so nothing else is kept for it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Activation {
    /// `max(x, 0)`; derivative 1 where the result is positive, else 0.
    Relu,
    /// `x` where positive, else `eˣ − 1`; derivative 1 where the result is positive, else
    /// `y + 1`.
    Elu,
    /// `1 / (1 + e⁻ˣ)`; derivative `y (1 − y)`.
    Sigmoid,
    /// `tanh x`; derivative `1 − y²`.
    Tanh,
    /// `ln(1 + eˣ)`; derivative `1 − e⁻ʸ` (the sigmoid of `x`).
    Softplus,
}

impl Activation {
    /// Every activation, in declaration order.
    pub const ALL: [Activation; 5] = [
        Activation::Relu,
        Activation::Elu,
        Activation::Sigmoid,
        Activation::Tanh,
        Activation::Softplus,
    ];

    /// The activation's name in lowercase (`relu`, `elu`, `sigmoid`, `tanh`, `softplus`).
    pub fn name(self) -> &'static str {
        match self {
            Activation::Relu => "relu",
            Activation::Elu => "elu",
            Activation::Sigmoid => "sigmoid",
            Activation::Tanh => "tanh",
            Activation::Softplus => "softplus",
        }
    }

    /// The activation named `name` (as [`Activation::name`] writes it).
    pub fn from_name(name: &str) -> Option<Activation> {
        Activation::ALL.into_iter().find(|a| a.name() == name)
    }

    /// `f(x)`.
    pub fn value(self, x: f64) -> f64 {
        match self {
            Activation::Relu => x.max(0.0),
            Activation::Elu if x > 0.0 => x,
            Activation::Elu => x.exp_m1(),
            Activation::Sigmoid => 1.0 / (1.0 + (-x).exp()),
            Activation::Tanh => x.tanh(),
            // ln(1 + eˣ) without overflow: max(x, 0) + ln(1 + e^−|x|).
            Activation::Softplus => x.max(0.0) + (-x.abs()).exp().ln_1p(),
        }
    }

    /// `f′(x)` written through the result `y = f(x)`.
    pub fn derivative_at_result(self, y: f64) -> f64 {
        match self {
            Activation::Relu if y > 0.0 => 1.0,
            Activation::Relu => 0.0,
            Activation::Elu if y > 0.0 => 1.0,
            Activation::Elu => y + 1.0,
            Activation::Sigmoid => y * (1.0 - y),
            Activation::Tanh => 1.0 - y * y,
            Activation::Softplus => -(-y).exp_m1(),
        }
    }

    /// Applies the activation to `xs` in place.
    pub fn apply<T: Storage>(self, xs: &mut [T]) {
        match self {
            // Every element is written (a select, not a branch: signs that mix at random would
            // mispredict), and the widening to f64 is exact, so the loop vectorises.
            Activation::Relu => {
                let zero = T::default();
                for x in xs.iter_mut() {
                    // NaN stays NaN, as numpy's maximum keeps it.
                    *x = if x.to_f64() < 0.0 { zero } else { *x };
                }
            }
            _ => xs.iter_mut().for_each(|x| *x = T::from_f64(self.value(x.to_f64()))),
        }
    }

    /// Multiplies `grad` in place by the derivative, read from `result` (of the same length).
    pub fn chain<T: Storage>(self, result: &[T], grad: &mut [T]) {
        match self {
            Activation::Relu => {
                let zero = T::default();
                for (g, y) in grad.iter_mut().zip(result) {
                    *g = if y.to_f64() > 0.0 { *g } else { zero };
                }
            }
            _ => {
                for (g, y) in grad.iter_mut().zip(result) {
                    *g = T::from_f64(g.to_f64() * self.derivative_at_result(y.to_f64()));
                }
            }
        }
    }
}

impl std::fmt::Display for Activation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// [`Hooks`] that apply [`Activation`]s natively: each chosen step's result after it runs
/// forward, and the activation's derivative to the step's gradient before its gradient plans
/// run. No copies and no calls out: the cost is one pass over the result each way.
///
/// ```
/// use einrow::infer::{Graph, ShapeBuilder};
/// use einrow::project::{Activation, Activations, Compute, Training};
///
/// let mut g = Graph::new();
/// let x = g.input("x", &ShapeBuilder::new().batch([2]).output([2]))?;
/// let w = g.parameter("w", &ShapeBuilder::new().input([2]).output([1]))?;
/// let h = g.compose(w, x)?;
/// let loss = g.einsum("b|o => ", &[h])?; // Σ relu(w·x)
/// g.solve()?;
/// let computes: Vec<Compute> =
///     g.steps().iter().map(|s| Compute::default_for(s.op, s.args.len())).collect();
/// let train = Training::compile(&g, loss, &[w], &|s| computes[s.index()])?;
/// let mut acts = Activations::new(&train);
/// acts.set(&g, h, Activation::Relu)?;
/// let mut ws = train.workspace::<f32>()?;
/// let (xs, w0) = ([1.0, 2.0, -3.0, -1.0], [1.0, 1.0]);
/// let mut dw = [0.0f32; 2];
/// train.run(&mut ws, &[&xs, &w0], &mut [&mut dw], &mut acts)?;
/// // h = [3, −4] → relu [3, 0]: only the first row reaches the loss.
/// assert_eq!(ws.value(&train, loss)?, [3.0]);
/// assert_eq!(dw, [1.0, 2.0]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Activations {
    graph: GraphId,
    by_step: Vec<Option<Activation>>,
}

impl Activations {
    /// No activations yet, for the steps of `train`'s graph.
    pub fn new(train: &Training) -> Activations {
        let steps = train.forward.iter().map(|f| f.step.index() + 1).max().unwrap_or(0);
        Activations { graph: train.graph, by_step: vec![None; steps] }
    }

    /// Applies `f` to the result of the step that computes `t`. Errors (`name`): `graph` is
    /// not the training's, or `t` is a leaf or a tensor of another graph.
    pub fn set(
        &mut self,
        graph: &Graph,
        t: TensorId,
        f: Activation,
    ) -> Result<&mut Self, ProjectError> {
        if graph.id() != self.graph {
            let message = "the graph is not the one the training was compiled from".to_string();
            return Err(InferError::Usage { code: ErrorCode::Name, message }.into());
        }
        let Some(step) = graph.producer(t)? else {
            let name = graph.name(t)?;
            let message = format!("`{name}` is a leaf: an activation applies to a step's result");
            return Err(InferError::Usage { code: ErrorCode::Name, message }.into());
        };
        self.set_step(step, f)
    }

    /// Applies `f` to the result of `step`. Errors (`name`): a step of another graph.
    pub fn set_step(&mut self, step: StepId, f: Activation) -> Result<&mut Self, ProjectError> {
        let slot = self.by_step.get_mut(step.index()).filter(|_| step.belongs_to(self.graph));
        let slot = slot.ok_or_else(|| {
            let message = format!("step {step} is not a step of the training's graph");
            InferError::Usage { code: ErrorCode::Name, message }
        })?;
        *slot = Some(f);
        Ok(self)
    }

    /// The activation applied to `step`'s result, if any.
    pub fn get(&self, step: StepId) -> Option<Activation> {
        self.by_step.get(step.index()).copied().flatten()
    }
}

impl<T: Storage> Hooks<T> for Activations {
    fn forward(&mut self, step: StepId, result: &mut [T]) -> Result<(), ProjectError> {
        if let Some(f) = self.get(step) {
            f.apply(result);
        }
        Ok(())
    }

    fn backward(&mut self, step: StepId, result: &[T], grad: &mut [T]) -> Result<(), ProjectError> {
        if let Some(f) = self.get(step) {
            f.chain(result, grad);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each derivative, read from the result, against a central difference of the function.
    #[test]
    fn derivatives_match_central_differences() {
        let h = 1e-6;
        for f in Activation::ALL {
            for k in -40..=40 {
                let x = f64::from(k) / 8.0 + 0.01;
                let want = (f.value(x + h) - f.value(x - h)) / (2.0 * h);
                let got = f.derivative_at_result(f.value(x));
                assert!((got - want).abs() < 1e-6, "{f} at {x}: {got} vs {want}");
            }
        }
    }

    #[test]
    fn names_round_trip_and_extremes_stay_finite() {
        for f in Activation::ALL {
            assert_eq!(Activation::from_name(f.name()), Some(f));
            for x in [-1e300, -745.0, 0.0, 745.0, 1e300] {
                let y = f.value(x);
                assert!(y.is_finite() && f.derivative_at_result(y).is_finite(), "{f} at {x}");
            }
        }
        assert_eq!(Activation::from_name("gelu"), None);
    }

    #[test]
    fn applied_in_every_float_type_and_on_empty_slices() {
        let xs = [-2.0f64, -0.5, 0.0, 0.5, 2.0];
        for f in Activation::ALL {
            let mut a: Vec<f32> = xs.iter().map(|&x| x as f32).collect();
            let mut b: Vec<half::bf16> = xs.iter().map(|&x| half::bf16::from_f64(x)).collect();
            f.apply(&mut a);
            f.apply(&mut b);
            f.apply::<f64>(&mut []);
            for ((x, a), b) in xs.iter().zip(&a).zip(&b) {
                assert!((f64::from(*a) - f.value(*x)).abs() < 1e-6, "{f} f32 at {x}");
                assert!((b.to_f64() - f.value(*x)).abs() < 1e-2, "{f} bf16 at {x}");
            }
            let mut g = vec![3.0f32; a.len()];
            f.chain(&a, &mut g);
            for (g, y) in g.iter().zip(&a) {
                let want = 3.0 * f.derivative_at_result(f64::from(*y));
                assert!((f64::from(*g) - want).abs() < 1e-5, "{f} chain at {y}");
            }
        }
        let mut nan = [f32::NAN, -1.0];
        Activation::Relu.apply(&mut nan);
        assert!(nan[0].is_nan() && nan[1] == 0.0);
    }
}
