//! The `serde` feature's form of a [`Scheme`]: what it stores, tensors and steps by position,
//! specs as text. Reading one back checks that the parts fit together (see [`Scheme`]'s
//! documentation), parses the specs again and recounts what instances are sized by.

use std::collections::HashMap;
use std::sync::Arc;

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use smallvec::SmallVec;

use super::core::{SchemeData, Var};
use super::form::{Item, TensorForm};
use super::Scheme;
use crate::code::ErrorCode;
use crate::ids::{GraphId, StepId, TensorId};
use crate::infer::error::InferError;
use crate::infer::graph::{Handle, Leaf, Step, StepSpec};
use crate::infer::op::OpKind;
use crate::infer::warnings::Warning;
use crate::spec::ast::{Name, RowKind};
use crate::spec::lexer::MAX_INT;
use crate::spec::{for_each_label, parse_einsum};

/// A symbolic variable: its name, its handle's number in the graph solved, what the solution
/// says of it.
#[derive(Serialize, Deserialize)]
struct VarForm {
    name: Name,
    handle: u32,
    rank_fixed: bool,
    min: u64,
}

/// A tensor: its name, what it is, where its rows are in the items.
#[derive(Serialize, Deserialize)]
struct TensorOut {
    name: Name,
    leaf: Option<Leaf>,
    rows: TensorForm,
}

/// A step's spec: its text and its labels, in the order the step's label items take them.
#[derive(Serialize, Deserialize)]
struct SpecForm {
    text: Name,
    labels: Vec<Name>,
}

/// A step: tensors by position, its spec, where its labels are in the label items.
#[derive(Serialize, Deserialize)]
struct StepForm {
    op: OpKind,
    out: usize,
    args: Vec<usize>,
    spec: Option<SpecForm>,
    labels: (u32, u32),
}

/// A warning, tensors and steps by position.
#[derive(Serialize, Deserialize)]
enum WarningForm {
    ParameterBatch { tensor: usize, name: Name, row: RowKind, axes: String },
    ResultOnlyLabel { step: usize, label: Name, size: u64, closed: bool },
    ClosedRow { tensor: usize, name: Name, row: RowKind },
    ClosedDim { tensor: usize, name: Name, dim: String, size: u64 },
}

#[derive(Serialize, Deserialize)]
struct SchemeForm {
    vars: Vec<VarForm>,
    tensors: Vec<TensorOut>,
    items: Vec<Item>,
    steps: Vec<StepForm>,
    label_items: Vec<Item>,
    warnings: Vec<WarningForm>,
}

impl Serialize for Scheme {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let d = &*self.data;
        let vars = d.vars.iter().map(|v| VarForm {
            name: v.name.clone(),
            handle: v.handle.number(),
            rank_fixed: v.rank_fixed,
            min: v.min,
        });
        let tensors = d.tensors.iter().enumerate().map(|(i, rows)| TensorOut {
            name: d.names.get(i).cloned().unwrap_or_default(),
            leaf: d.leaves.get(i).copied().flatten(),
            rows: *rows,
        });
        let steps = d.steps.iter().enumerate().map(|(i, s)| StepForm {
            op: s.op,
            out: s.out.index(),
            args: s.args.iter().map(|a| a.index()).collect(),
            spec: s
                .spec
                .as_ref()
                .map(|sp| SpecForm { text: sp.text.clone(), labels: sp.labels().to_vec() }),
            labels: d.labels.get(i).copied().unwrap_or_default(),
        });
        let warnings = d.warnings.iter().map(|w| match w.clone() {
            Warning::ParameterBatch { tensor, name, row, axes } => {
                WarningForm::ParameterBatch { tensor: tensor.index(), name, row, axes }
            }
            Warning::ResultOnlyLabel { step, label, size, closed } => {
                WarningForm::ResultOnlyLabel { step: step.index(), label, size, closed }
            }
            Warning::ClosedRow { tensor, name, row } => {
                WarningForm::ClosedRow { tensor: tensor.index(), name, row }
            }
            Warning::ClosedDim { tensor, name, dim, size } => {
                WarningForm::ClosedDim { tensor: tensor.index(), name, dim, size }
            }
        });
        SchemeForm {
            vars: vars.collect(),
            tensors: tensors.collect(),
            items: d.items.clone(),
            steps: steps.collect(),
            label_items: d.label_items.clone(),
            warnings: warnings.collect(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Scheme {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Scheme, D::Error> {
        scheme_from(SchemeForm::deserialize(d)?).map_err(D::Error::custom)
    }
}

fn bad(msg: String) -> InferError {
    InferError::Usage { code: ErrorCode::Value, message: format!("not a consistent scheme: {msg}") }
}

/// Checks items over the variables `vars`: variables that exist, sizes at most 2^62.
fn check_items(what: &str, items: &[Item], vars: &[Var]) -> Result<(), InferError> {
    for (i, item) in items.iter().enumerate() {
        let ok = match *item {
            Item::Size(n) => n <= MAX_INT,
            Item::Var(k) => (k as usize) < vars.len(),
            // An affine item is of a variable's single axis: the variable keeps its rank.
            Item::Affine { var, scale, .. } => {
                vars.get(var as usize).is_some_and(|v| v.rank_fixed) && scale <= MAX_INT
            }
        };
        if !ok {
            let n = vars.len();
            return Err(bad(format!("{what} {i} is {item:?}, over {n} variables")));
        }
    }
    Ok(())
}

/// Whether `(start, len)` lies within `n` entries.
fn within(start: u32, len: u32, n: usize) -> bool {
    u64::from(start) + u64::from(len) <= n as u64
}

/// Whether an operation takes `n` operands, and whether it comes with a spec.
fn arity_fits(op: OpKind, n: usize, spec: bool) -> bool {
    let arity = match op {
        OpKind::Pointwise => (1..=3).contains(&n),
        OpKind::Compose | OpKind::Einsum => n == 2,
        OpKind::Transpose | OpKind::Permute | OpKind::BatchSlice => n == 1,
        OpKind::Einsum3 => n == 3,
        OpKind::Concat | OpKind::Numpy => n > 0,
    };
    let spec_op = matches!(op, OpKind::Permute | OpKind::Einsum | OpKind::Einsum3 | OpKind::Concat);
    arity && spec == spec_op
}

/// A step read back: checked against the scheme's tensors and label items, its spec parsed
/// (once per text and labels).
fn step_from(
    (i, s): (usize, StepForm),
    graph: GraphId,
    (tensors, label_items): (usize, usize),
    specs: &mut HashMap<(Name, Vec<Name>), Arc<StepSpec>>,
) -> Result<Step, InferError> {
    let (start, len) = s.labels;
    let fits = s.out < tensors && s.args.iter().all(|&a| a < tensors && a != s.out);
    if !fits
        || !arity_fits(s.op, s.args.len(), s.spec.is_some())
        || !within(start, len, label_items)
    {
        return Err(bad(format!("step {i} ({}) does not fit the scheme's tensors", s.op.name())));
    }
    let spec = match s.spec {
        None if len == 0 => None,
        None => return Err(bad(format!("step {i} has label sizes but no spec"))),
        Some(SpecForm { text, labels }) => {
            let mut sorted = labels.clone();
            sorted.sort_unstable();
            sorted.dedup();
            if labels.len() != len as usize || sorted.len() != labels.len() {
                return Err(bad(format!("step {i}'s labels do not match its label sizes")));
            }
            let spec = match specs.get(&(text.clone(), labels.clone())) {
                Some(spec) => spec.clone(),
                None => {
                    let parsed = parse_einsum(&text).map_err(|error| InferError::Spec {
                        step: StepId::new(i, graph),
                        spec: text.to_string(),
                        error,
                    })?;
                    let mut mentioned = Vec::new();
                    let slots = std::iter::once(&parsed.lhs).chain(&parsed.rhs);
                    for axis in slots.flat_map(|s| s.rows()).flat_map(|(_, row)| row.axes()) {
                        for_each_label(&axis.kind, axis.span, |l, _| mentioned.push(l));
                    }
                    if let Some(l) = labels.iter().find(|l| !mentioned.contains(&l.as_str())) {
                        return Err(bad(format!("step {i}'s spec has no label `{l}`")));
                    }
                    let spec = Arc::new(StepSpec::with_labels(text.clone(), parsed, &labels));
                    specs.insert((text, labels), spec.clone());
                    spec
                }
            };
            Some(spec)
        }
    };
    let args = s.args.iter().map(|&a| TensorId::new(a, graph)).collect::<SmallVec<_>>();
    Ok(Step::detached(s.op, TensorId::new(s.out, graph), args, spec))
}

/// Checks a scheme's form and builds the scheme.
fn scheme_from(f: SchemeForm) -> Result<Scheme, InferError> {
    let limit = u32::MAX as usize;
    let counts = [f.vars.len(), f.tensors.len(), f.items.len(), f.steps.len(), f.label_items.len()];
    if counts.iter().any(|&n| n > limit) {
        return Err(bad("more than 2^32 variables, tensors, steps or items".into()));
    }
    let graph = GraphId::fresh();
    let n_vars = f.vars.len();
    let mut vars = Vec::with_capacity(n_vars);
    for v in f.vars {
        if v.min > MAX_INT {
            return Err(bad(format!("variable `{}` needs at least {} elements", v.name, v.min)));
        }
        let handle = Handle::detached(graph, v.handle);
        vars.push(Var { handle, name: v.name, rank_fixed: v.rank_fixed, min: v.min });
    }
    check_items("item", &f.items, &vars)?;
    check_items("label item", &f.label_items, &vars)?;
    let (mut names, mut leaves, mut tensors) = (Vec::new(), Vec::new(), Vec::new());
    let (mut uses, mut sizes) = (vec![0usize; n_vars], 0usize);
    for (t, tensor) in f.tensors.into_iter().enumerate() {
        for (start, len, leading) in tensor.rows.rows {
            if !within(start, len, f.items.len()) || leading > len {
                return Err(bad(format!("tensor {t}'s rows are not within the items")));
            }
        }
        for kind in RowKind::ALL {
            for item in tensor.rows.row_items(kind, &f.items) {
                match item.var() {
                    Some(k) => uses[k as usize] += 1,
                    None => sizes += 1,
                }
            }
        }
        names.push(tensor.name);
        leaves.push(tensor.leaf);
        tensors.push(tensor.rows);
    }
    let mut specs = HashMap::new();
    let (mut steps, mut labels) = (Vec::with_capacity(f.steps.len()), Vec::new());
    let room = (tensors.len(), f.label_items.len());
    for (i, s) in f.steps.into_iter().enumerate() {
        labels.push(s.labels);
        steps.push(step_from((i, s), graph, room, &mut specs)?);
    }
    let tensor = |t: usize| {
        (t < tensors.len())
            .then(|| TensorId::new(t, graph))
            .ok_or_else(|| bad(format!("a warning names tensor {t}")))
    };
    let mut warnings = Vec::with_capacity(f.warnings.len());
    for w in f.warnings {
        warnings.push(match w {
            WarningForm::ParameterBatch { tensor: t, name, row, axes } => {
                Warning::ParameterBatch { tensor: tensor(t)?, name, row, axes }
            }
            WarningForm::ResultOnlyLabel { step, label, size, closed } => {
                if step >= steps.len() {
                    return Err(bad(format!("a warning names step {step}")));
                }
                Warning::ResultOnlyLabel { step: StepId::new(step, graph), label, size, closed }
            }
            WarningForm::ClosedRow { tensor: t, name, row } => {
                Warning::ClosedRow { tensor: tensor(t)?, name, row }
            }
            WarningForm::ClosedDim { tensor: t, name, dim, size } => {
                Warning::ClosedDim { tensor: tensor(t)?, name, dim, size }
            }
        });
    }
    let data = SchemeData {
        graph,
        vars,
        tensors,
        items: f.items,
        labels,
        label_items: f.label_items,
        steps,
        names,
        leaves,
        uses,
        sizes,
        warnings,
    };
    Ok(Scheme { data: Arc::new(data) })
}
