//! Plans of one spec over operands of known sizes, without building a graph: what an eager
//! framework asks on every call (numpy's `einsum`, with OCANNL specs).
//!
//! The common case — operand axes that agree, a spec of labels, placeholders and row variables
//! — is read off the operands (`infer::lower::bindings`, as the graph's direct evaluation does) and
//! planned at once. Every other case (fixed indices, strided or concatenated axes, result axes
//! no operand fixes, and every error) goes through a graph of one step, so the answer and the
//! explained errors are exactly those of [`Graph`]; the `eager` integration test checks that
//! both routes give the same plans and errors.

use smallvec::SmallVec;

use super::concrete::Concrete;
use super::derive::{assemble, derive_plan, Compute};
use super::error::ProjectError;
use super::plan::IndexPlan;
use super::sizes::Sizes;
use super::spec::{spec_parts, LabelSizes, SpecSizes};
use crate::code::ErrorCode;
use crate::infer::lower::bindings::{read_off, reads_off, DirectSolution, OperandRows};
use crate::infer::{Graph, InferError, OpKind};
use crate::shape::{rows_text, Basis, Solved};
use crate::spec::ast::{EinsumSpec, Name, RowKind};
use crate::spec::lexer::MAX_INT;
use crate::spec::parse_einsum_into;

/// The name of the `i`-th operand (from 0) in the errors of [`plan_einsum`], as the failing
/// step's statement shows it (`t2 = einsum "ij;jk=>ik" a b`): `a` to `z`, then `x26`, `x27`… (the operand's index)
pub fn operand_name(i: usize) -> String {
    match u8::try_from(i) {
        Ok(k) if k < 26 => char::from(b'a' + k).to_string(),
        _ => format!("x{i}"),
    }
}

/// The plan of an OCANNL spec (`rhs1;rhs2=>lhs`) over operands of these sizes, with the
/// default [`Compute`] of its operation: a permute for one operand, an einsum for two, einsum3
/// for three, a concatenation (`a;b;c;d=>a^b^c^d`) for more.
///
/// The same plan as [`derive_plan`] gives after declaring the operands in a [`Graph`], adding
/// the step and solving. Errors are the graph's too: the failing statement names the operands
/// after [`operand_name`] and the result after them (`t2 = einsum "…" a b`). Only sizes
/// count: operands of the same sizes split differently into leading and trailing flanks have
/// the same plan. To plan many specs, an [`EinsumPlanner`] reuses one plan's buffers.
///
/// ```
/// use einrow::project::{plan_einsum, Concrete};
///
/// let plan = plan_einsum("ij;jk=>ik", &[&Concrete::output(&[2, 3]), &Concrete::output(&[3, 4])])?;
/// assert_eq!(plan.result_dims, vec![2, 4]);
/// assert!(plan.to_string().contains("j in 0..3"));
///
/// let err = plan_einsum("ij;jk=>ik", &[&Concrete::output(&[2, 3]), &Concrete::output(&[5, 4])])
///     .unwrap_err();
/// assert_eq!(einrow::Coded::code(&err), einrow::ErrorCode::Mismatch);
/// # Ok::<(), einrow::project::ProjectError>(())
/// ```
pub fn plan_einsum(spec: &str, operands: &[&Concrete]) -> Result<IndexPlan, ProjectError> {
    let mut planner = EinsumPlanner::new();
    planner.plan(spec, operands)?;
    Ok(planner.into_plan())
}

/// Plans one spec after another, as an eager framework does on every call, writing each plan
/// into the same buffers: after the first few calls, planning a spec the operands settle
/// allocates nothing for the plan. Each call parses, reads off or solves, and plans in full
/// ([`plan_einsum`] is one call on a fresh planner); only memory is reused.
///
/// ```
/// use einrow::project::{Concrete, EinsumPlanner};
///
/// let mut planner = EinsumPlanner::new();
/// let (a, b) = (Concrete::output(&[2, 3]), Concrete::output(&[3, 4]));
/// assert_eq!(planner.plan("ij;jk=>ik", &[&a, &b])?.result_dims, vec![2, 4]);
/// assert_eq!(planner.plan("ij=>ji", &[&a])?.result_dims, vec![3, 2]);
/// # Ok::<(), einrow::project::ProjectError>(())
/// ```
#[derive(Clone, Debug)]
pub struct EinsumPlanner {
    /// The last spec parsed.
    spec: EinsumSpec,
    /// The last plan made.
    plan: IndexPlan,
}

impl Default for EinsumPlanner {
    fn default() -> Self {
        EinsumPlanner::new()
    }
}

impl EinsumPlanner {
    /// A planner with empty buffers.
    pub fn new() -> EinsumPlanner {
        EinsumPlanner { spec: EinsumSpec::default(), plan: IndexPlan::empty(OpKind::Permute) }
    }

    /// The plan of `spec` over `operands`, as [`plan_einsum`] gives it, borrowed until the
    /// next call. After an error the planner holds no meaningful plan.
    pub fn plan(&mut self, spec: &str, operands: &[&Concrete]) -> Result<&IndexPlan, ProjectError> {
        let op = match operands.len() {
            0 => return Err(usage(ErrorCode::Arity, "a spec needs at least one operand".into())),
            1 => OpKind::Permute,
            2 => OpKind::Einsum,
            3 => OpKind::Einsum3,
            _ => OpKind::Concat,
        };
        check_sizes(operands)?;
        let read = reads_off(op)
            .then(|| read_off_plan((spec, &mut self.spec), operands, op, &mut self.plan));
        match read.flatten() {
            Some(done) => done?,
            None => self.plan = plan_through_graph(spec, operands, op)?,
        }
        Ok(&self.plan)
    }

    /// The last plan made.
    pub fn into_plan(self) -> IndexPlan {
        self.plan
    }
}

/// Sizes above 2^62 are an error of the operand that has one.
fn check_sizes(operands: &[&Concrete]) -> Result<(), ProjectError> {
    for (i, c) in operands.iter().enumerate() {
        let mut sizes = c.rows.iter().flat_map(|r| r.beg.iter().chain(&r.dims));
        if let Some(big) = sizes.find(|s| **s > MAX_INT) {
            let name = operand_name(i);
            let message = format!("operand `{name}` has a size of {big}; sizes are at most 2^62");
            return Err(usage(ErrorCode::Value, message));
        }
    }
    Ok(())
}

/// The plan, written into `plan` (the spec parsed into `spec`), when the step's solution can be read off the operands;
/// `None` when it needs the solver (or does not parse: the graph reports that).
fn read_off_plan(
    (text, spec): (&str, &mut EinsumSpec),
    operands: &[&Concrete],
    op: OpKind,
    plan: &mut IndexPlan,
) -> Option<Result<(), ProjectError>> {
    parse_einsum_into(text, spec).ok()?;
    let spec = &*spec;
    if spec.rhs.len() != operands.len() {
        return None;
    }
    let mut solution = DirectSolution::default();
    read_off(spec, &mut solution, |i, dims: &mut SmallVec<[Solved; 8]>| {
        operands.get(i).map(|c| push_solved(c, dims))
    })?;
    // Filled in place: a `Sizes` is a hundred bytes, and collecting moves each one.
    let mut args: SmallVec<[Sizes; 3]> = SmallVec::new();
    args.resize_with(operands.len(), Sizes::default);
    for (a, c) in args.iter_mut().zip(operands) {
        a.set_concrete(c);
    }
    // The result's rows lie one after the other in `dims`, in `RowKind::ALL` order.
    let mut starts = [0; 3];
    let mut next = 0;
    for (start, (len, _)) in starts.iter_mut().zip(solution.rows) {
        *start = next;
        next += len;
    }
    let out = Sizes::from_rows(|kind, dims| {
        let (k, (len, leading)) = (kind.index(), solution.rows[kind.index()]);
        let row = solution.dims.get(starts[k]..starts[k] + len).unwrap_or_default();
        dims.extend(row.iter().map(|s| s.size));
        leading
    });
    let labels: SmallVec<[(&Name, Option<u64>); 8]> =
        solution.labels.iter().map(|&(n, s)| (n, Some(s.size))).collect();
    let labels = LabelSizes(&labels);
    let compute = Compute::default_for(op, operands.len());
    let parts = spec_parts(spec, SpecSizes { out: &out, args: &args, labels }, &mut plan.parts);
    Some(parts.map(|()| assemble(plan, (op, compute), &out, &args)))
}

/// Appends an operand's sizes (plain, of the default basis) row by row in [`RowKind::ALL`]
/// order; returns its rows.
fn push_solved(c: &Concrete, dims: &mut SmallVec<[Solved; 8]>) -> OperandRows {
    let solved = |size: &u64| Solved { size: *size, basis: Basis::DEFAULT };
    RowKind::ALL.map(|kind| {
        let row = c.row(kind);
        for size in row.beg.iter().chain(&row.dims) {
            dims.push(solved(size));
        }
        (row.len(), row.beg.len())
    })
}

/// The plan through a graph of one step: the operands declared with their sizes, the step
/// added, solved and planned.
fn plan_through_graph(
    spec: &str,
    operands: &[&Concrete],
    op: OpKind,
) -> Result<IndexPlan, ProjectError> {
    let mut g = Graph::new();
    let mut args: SmallVec<[crate::ids::TensorId; 3]> = SmallVec::new();
    for (i, c) in operands.iter().enumerate() {
        args.push(g.declare(&operand_name(i), Some(&shape_text(c)), false)?);
    }
    g.add_step(op, &args, Some(spec))?;
    g.solve()?;
    let step = g.step_at(0);
    derive_plan(&g, step, Compute::default_for(op, operands.len()), 0)
}

/// A shape string of a concrete shape (`2|4->3`): each row's sizes in order, kinds not
/// needed left out.
fn shape_text(c: &Concrete) -> String {
    let row = |kind| {
        let r = c.row(kind);
        let sizes = r.beg.iter().chain(&r.dims).map(u64::to_string);
        sizes.collect::<Vec<_>>().join(",")
    };
    rows_text(&row(RowKind::Batch), &row(RowKind::Input), &row(RowKind::Output))
}

fn usage(code: ErrorCode, message: String) -> ProjectError {
    ProjectError::Infer(InferError::Usage { code, message })
}

#[cfg(test)]
mod tests {
    use super::shape_text;
    use crate::project::{Concrete, ConcreteRow};
    use crate::shape::parse_shape_string;
    use crate::spec::ast::RowKind;

    fn shape_of(rows: [&[u64]; 3]) -> Concrete {
        Concrete { rows: rows.map(|r| ConcreteRow { beg: vec![], dims: r.to_vec() }) }
    }

    /// Every combination of empty and non-empty rows reads back as the same sizes.
    #[test]
    fn shape_texts_read_back_as_the_same_rows() {
        let rows: [&[u64]; 3] = [&[2, 3], &[4], &[5, 6]];
        for mask in 0..8 {
            let pick: [&[u64]; 3] =
                std::array::from_fn(|k| if mask & (1 << k) != 0 { rows[k] } else { &[] });
            let text = shape_text(&shape_of(pick));
            let parsed = parse_shape_string(&text).expect("parses");
            for kind in RowKind::ALL {
                let row = parsed.row(kind);
                let sizes: Vec<u64> = row.beg.iter().chain(&row.dims).map(|a| a.size).collect();
                assert_eq!(sizes, pick[kind.index()], "{kind:?} row of `{text}`");
                assert!(row.var.is_none(), "`{text}` is closed");
            }
        }
    }
}
