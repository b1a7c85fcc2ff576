//! numpy operations as a framework's shape rules see them: the function's name and its
//! parameters exactly as numpy takes them (an integer `axis`, possibly negative, a `axes`
//! permutation, einsum subscripts, a target shape with `-1`), so that a framework's own
//! functions can be called on a step without translating it.

use serde_json::{json, Map, Value};

/// An `axis=` argument that may be absent (`None`: every axis), one axis or a tuple.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Axes {
    /// `axis=None`.
    All,
    /// `axis=k` (negative counts from the end).
    One(i64),
    /// `axis=(k, l, ...)`.
    Many(Vec<i64>),
}

impl Axes {
    fn to_json(&self) -> Value {
        match self {
            Axes::All => Value::Null,
            Axes::One(a) => json!(a),
            Axes::Many(v) => json!(v),
        }
    }

    fn from_json(v: &Value) -> Result<Axes, String> {
        match v {
            Value::Null => Ok(Axes::All),
            Value::Array(_) => ints(v).map(Axes::Many),
            _ => int(v).map(Axes::One),
        }
    }

    fn text(&self) -> String {
        match self {
            Axes::All => "None".into(),
            Axes::One(a) => a.to_string(),
            Axes::Many(v) => tuple_text(v),
        }
    }
}

/// The kind of a numpy operation, without its parameters (what a configuration weights).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NpKind {
    /// `numpy.add`.
    Add,
    /// `numpy.matmul`.
    Matmul,
    /// `numpy.einsum`.
    Einsum,
    /// `numpy.concatenate`.
    Concatenate,
    /// `numpy.stack`.
    Stack,
    /// `numpy.transpose`.
    Transpose,
    /// `numpy.sum`.
    Sum,
    /// `numpy.expand_dims`.
    ExpandDims,
    /// `numpy.squeeze`.
    Squeeze,
    /// `numpy.reshape`.
    Reshape,
}

impl NpKind {
    /// Every kind.
    pub const ALL: [NpKind; 10] = [
        NpKind::Add,
        NpKind::Matmul,
        NpKind::Einsum,
        NpKind::Concatenate,
        NpKind::Stack,
        NpKind::Transpose,
        NpKind::Sum,
        NpKind::ExpandDims,
        NpKind::Squeeze,
        NpKind::Reshape,
    ];

    /// numpy's name of the function (`add`, `matmul`, `einsum`, `concatenate`, `stack`,
    /// `transpose`, `sum`, `expand_dims`, `squeeze`, `reshape`).
    pub fn name(self) -> &'static str {
        match self {
            NpKind::Add => "add",
            NpKind::Matmul => "matmul",
            NpKind::Einsum => "einsum",
            NpKind::Concatenate => "concatenate",
            NpKind::Stack => "stack",
            NpKind::Transpose => "transpose",
            NpKind::Sum => "sum",
            NpKind::ExpandDims => "expand_dims",
            NpKind::Squeeze => "squeeze",
            NpKind::Reshape => "reshape",
        }
    }

    /// The kind of a numpy function name.
    pub fn from_name(name: &str) -> Option<NpKind> {
        NpKind::ALL.into_iter().find(|k| k.name() == name)
    }

    /// Whether the function takes its operands as one list (`concatenate`, `stack`).
    pub fn takes_list(self) -> bool {
        matches!(self, NpKind::Concatenate | NpKind::Stack)
    }
}

/// A numpy operation with its parameters.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum NpOp {
    /// `numpy.add(a, b)`: elementwise, the operands broadcast.
    Add,
    /// `numpy.matmul(a, b)`: 1-D operands promoted, batch axes broadcast.
    Matmul,
    /// `numpy.einsum(subscripts, *operands)`.
    Einsum {
        /// The subscripts.
        subscripts: String,
    },
    /// `numpy.concatenate(operands, axis=axis)` (`None`: the operands flattened).
    Concatenate {
        /// The axis.
        axis: Option<i64>,
    },
    /// `numpy.stack(operands, axis=axis)`.
    Stack {
        /// The new axis' position in the result.
        axis: i64,
    },
    /// `numpy.transpose(a, axes=axes)` (`None`: the axes reversed).
    Transpose {
        /// The permutation (entries may be negative).
        axes: Option<Vec<i64>>,
    },
    /// `numpy.sum(a, axis=axis, keepdims=keepdims)`.
    Sum {
        /// The axes summed.
        axis: Axes,
        /// Whether summed axes stay, with size 1.
        keepdims: bool,
    },
    /// `numpy.expand_dims(a, axis)`.
    ExpandDims {
        /// The new axis' position in the result.
        axis: i64,
    },
    /// `numpy.squeeze(a, axis=axis)` (`None`: every size-1 axis).
    Squeeze {
        /// The axis removed.
        axis: Option<i64>,
    },
    /// `numpy.reshape(a, shape)` (one entry may be `-1`).
    Reshape {
        /// The target shape.
        shape: Vec<i64>,
    },
}

impl NpOp {
    /// The operation's kind.
    pub fn kind(&self) -> NpKind {
        match self {
            NpOp::Add => NpKind::Add,
            NpOp::Matmul => NpKind::Matmul,
            NpOp::Einsum { .. } => NpKind::Einsum,
            NpOp::Concatenate { .. } => NpKind::Concatenate,
            NpOp::Stack { .. } => NpKind::Stack,
            NpOp::Transpose { .. } => NpKind::Transpose,
            NpOp::Sum { .. } => NpKind::Sum,
            NpOp::ExpandDims { .. } => NpKind::ExpandDims,
            NpOp::Squeeze { .. } => NpKind::Squeeze,
            NpOp::Reshape { .. } => NpKind::Reshape,
        }
    }

    /// numpy's name of the function.
    pub fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The keyword parameters as numpy names them (`{"axis": -1}`, `{"axes": [1, 0]}`,
    /// `{"subscripts": "ij->ji"}`, `{"shape": [2, -1]}`); `{}` for `add` and `matmul`.
    pub fn params(&self) -> Map<String, Value> {
        let mut m = Map::new();
        match self {
            NpOp::Add | NpOp::Matmul => {}
            NpOp::Einsum { subscripts } => {
                m.insert("subscripts".into(), json!(subscripts));
            }
            NpOp::Concatenate { axis } | NpOp::Squeeze { axis } => {
                m.insert("axis".into(), json!(axis));
            }
            NpOp::Stack { axis } | NpOp::ExpandDims { axis } => {
                m.insert("axis".into(), json!(axis));
            }
            NpOp::Transpose { axes } => {
                m.insert("axes".into(), json!(axes));
            }
            NpOp::Sum { axis, keepdims } => {
                m.insert("axis".into(), axis.to_json());
                m.insert("keepdims".into(), json!(keepdims));
            }
            NpOp::Reshape { shape } => {
                m.insert("shape".into(), json!(shape));
            }
        }
        m
    }

    /// The operation as JSON: `{"op": name, ...params}`.
    pub fn to_json(&self) -> Value {
        let mut m = self.params();
        m.insert("op".into(), json!(self.name()));
        Value::Object(m)
    }

    /// Reads [`NpOp::to_json`]'s form back.
    pub fn from_json(v: &Value) -> Result<NpOp, String> {
        let name = v["op"].as_str().ok_or("an operation needs \"op\", a numpy function name")?;
        let kind = NpKind::from_name(name).ok_or_else(|| format!("unknown operation {name:?}"))?;
        let opt = |key: &str| -> Result<Option<i64>, String> {
            if v[key].is_null() {
                Ok(None)
            } else {
                int(&v[key]).map(Some)
            }
        };
        Ok(match kind {
            NpKind::Add => NpOp::Add,
            NpKind::Matmul => NpOp::Matmul,
            NpKind::Einsum => {
                let s = v["subscripts"].as_str().ok_or("einsum needs \"subscripts\"")?;
                NpOp::Einsum { subscripts: s.to_string() }
            }
            NpKind::Concatenate => NpOp::Concatenate { axis: opt("axis")? },
            NpKind::Stack => NpOp::Stack { axis: int(&v["axis"])? },
            NpKind::Transpose => {
                let axes = if v["axes"].is_null() { None } else { Some(ints(&v["axes"])?) };
                NpOp::Transpose { axes }
            }
            NpKind::Sum => NpOp::Sum {
                axis: Axes::from_json(&v["axis"])?,
                keepdims: v["keepdims"].as_bool().unwrap_or(false),
            },
            NpKind::ExpandDims => NpOp::ExpandDims { axis: int(&v["axis"])? },
            NpKind::Squeeze => NpOp::Squeeze { axis: opt("axis")? },
            NpKind::Reshape => NpOp::Reshape { shape: ints(&v["shape"])? },
        })
    }

    /// The call as numpy code over operands named `names`:
    /// `np.concatenate([x0, t1], axis=-1)`.
    pub fn call_text(&self, names: &[String]) -> String {
        let list = || format!("[{}]", names.join(", "));
        let args = names.join(", ");
        let body = match self {
            NpOp::Add | NpOp::Matmul => args,
            NpOp::Einsum { subscripts } if names.is_empty() => format!("{subscripts:?}"),
            NpOp::Einsum { subscripts } => format!("{subscripts:?}, {args}"),
            NpOp::Concatenate { axis } => format!("{}, axis={}", list(), opt_text(*axis)),
            NpOp::Stack { axis } => format!("{}, axis={axis}", list()),
            NpOp::Transpose { axes } => {
                let axes = axes.as_deref().map_or("None".into(), tuple_text);
                format!("{args}, axes={axes}")
            }
            NpOp::Sum { axis, keepdims } => {
                let keep = if *keepdims { "True" } else { "False" };
                format!("{args}, axis={}, keepdims={keep}", axis.text())
            }
            NpOp::ExpandDims { axis } => format!("{args}, axis={axis}"),
            NpOp::Squeeze { axis } => format!("{args}, axis={}", opt_text(*axis)),
            NpOp::Reshape { shape } => format!("{args}, {}", tuple_text(shape)),
        };
        format!("np.{}({body})", self.name())
    }
}

fn opt_text(a: Option<i64>) -> String {
    a.map_or("None".into(), |a| a.to_string())
}

/// A Python tuple: `(1,)`, `(0, -1)`, `()`.
pub fn tuple_text<T: ToString>(items: &[T]) -> String {
    match items {
        [one] => format!("({},)", one.to_string()),
        _ => format!("({})", items.iter().map(ToString::to_string).collect::<Vec<_>>().join(", ")),
    }
}

fn int(v: &Value) -> Result<i64, String> {
    v.as_i64().ok_or_else(|| format!("expected an integer, found {v}"))
}

fn ints(v: &Value) -> Result<Vec<i64>, String> {
    let items = v.as_array().ok_or_else(|| format!("expected a list of integers, found {v}"))?;
    items.iter().map(int).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips_and_call_texts() {
        let ops = [
            NpOp::Add,
            NpOp::Einsum { subscripts: "ii->i".into() },
            NpOp::Concatenate { axis: Some(-1) },
            NpOp::Concatenate { axis: None },
            NpOp::Transpose { axes: Some(vec![-1, 0]) },
            NpOp::Sum { axis: Axes::Many(vec![0, -1]), keepdims: true },
            NpOp::Squeeze { axis: None },
            NpOp::Reshape { shape: vec![-1] },
        ];
        for op in ops {
            assert_eq!(NpOp::from_json(&op.to_json()), Ok(op.clone()));
        }
        let names = ["a".to_string(), "b".to_string()];
        let concat = NpOp::Concatenate { axis: Some(-1) };
        assert_eq!(concat.call_text(&names), "np.concatenate([a, b], axis=-1)");
        let reshape = NpOp::Reshape { shape: vec![-1] };
        assert_eq!(reshape.call_text(&names[..1]), "np.reshape(a, (-1,))");
        assert!(NpOp::from_json(&json!({"op": "conv"})).is_err());
    }
}
