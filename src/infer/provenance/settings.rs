//! The axes a [`set_dim`](crate::infer::Graph::set_dim) gave their size: a label captured from
//! a step stands for every axis the step's spec puts the label on; a row variable for the axes
//! it covers, when it covers exactly one (a row's setting sizes one axis only then).

use std::collections::HashMap;

use super::declared::Declared;
use super::links::{label_axes, row_axes, view, Views};
use crate::ids::TensorId;
use crate::infer::error::{AxisRef, SetBy};
use crate::infer::graph::{SetDimAt, SetDimRecord};
use crate::infer::Graph;
use crate::spec::ast::ShapeSpec;

/// Each axis a setting sized, with the setting (the first one, when several did).
pub fn set_axes(
    g: &Graph,
    views: &mut Views,
    declared: &dyn Fn(TensorId) -> Option<Declared>,
) -> HashMap<AxisRef, SetBy> {
    let mut out: HashMap<AxisRef, SetBy> = HashMap::new();
    for r in g.set_dim_records() {
        let by = SetBy { handle: r.name.to_string(), step: step_of(&r), size: r.size };
        for a in axes_of(g, views, declared, &r) {
            out.entry(a).or_insert_with(|| by.clone());
        }
    }
    out
}

fn step_of(r: &SetDimRecord) -> Option<crate::ids::StepId> {
    match r.at {
        SetDimAt::Step(s, _) => Some(s),
        SetDimAt::Leaf(..) | SetDimAt::Free => None,
    }
}

/// The axes one setting sized.
fn axes_of(
    g: &Graph,
    views: &mut Views,
    declared: &dyn Fn(TensorId) -> Option<Declared>,
    r: &SetDimRecord,
) -> Vec<AxisRef> {
    match r.at {
        SetDimAt::Step(s, row) => {
            let Some(step) = g.steps().get(s.index()) else { return Vec::new() };
            let Some(spec) = step.spec.as_ref().map(|sp| &sp.parsed) else { return Vec::new() };
            let slots = spec.rhs.iter().zip(step.args.iter().copied());
            let slots: Vec<(&ShapeSpec, TensorId)> = slots.chain([(&spec.lhs, step.out)]).collect();
            if row {
                let groups = row_axes(g, views, &slots, r.name.as_str());
                groups.into_iter().filter(|grp| grp.len() == 1).map(|grp| grp[0]).collect()
            } else {
                label_axes(g, views, &slots, r.name.as_str())
            }
        }
        SetDimAt::Leaf(t, kind) => {
            let Some(d) = declared(t) else { return Vec::new() };
            let covered = d.covered(kind, view(g, views, t, kind));
            match covered.as_slice() {
                [one] => vec![AxisRef { tensor: t, kind, axis: *one }],
                _ => Vec::new(),
            }
        }
        SetDimAt::Free => Vec::new(),
    }
}
