//! Plans of recent einsums, keyed by subscripts, operand shapes and path options: an einsum
//! called again on arrays of the same shapes is neither parsed, analysed nor planned again.
//! Looking a plan up allocates nothing; the cache holds at most [`CAPACITY`] plans and is
//! emptied when full (a program cycles through few einsums).

use std::collections::HashMap;
use std::hash::{BuildHasher, Hash, Hasher};
use std::sync::{Arc, Mutex};

use einrow::numpy::{EinsumError, EinsumPlan, MemoryLimit, Optimize, PathOptions};

/// The most plans kept.
pub const CAPACITY: usize = 256;

/// A plan with what each call reads of it.
pub struct Planned {
    /// The plan.
    pub plan: EinsumPlan,
    /// Its work ([`EinsumPlan::work`]), counted once.
    pub work: u128,
}

struct Entry {
    spec: Box<str>,
    plan: Arc<Planned>,
    path: Option<PathOptions>,
}

#[derive(Default)]
struct Plans {
    by_hash: HashMap<u64, Vec<Entry>>,
    len: usize,
}

static PLANS: Mutex<Option<Plans>> = Mutex::new(None);

/// A fixed hasher: keys are only compared within one process.
struct Fixed;

impl BuildHasher for Fixed {
    type Hasher = std::collections::hash_map::DefaultHasher;
    fn build_hasher(&self) -> Self::Hasher {
        std::collections::hash_map::DefaultHasher::new()
    }
}

fn key_hash(spec: &str, shapes: &[&[usize]], path: Option<&PathOptions>) -> u64 {
    let mut h = Fixed.build_hasher();
    spec.hash(&mut h);
    for s in shapes {
        s.hash(&mut h);
    }
    if let Some(p) = path {
        p.optimize.name().hash(&mut h);
        if let Optimize::Explicit(steps) = &p.optimize {
            steps.hash(&mut h);
        }
        match p.memory_limit {
            None => 0u64.hash(&mut h),
            Some(MemoryLimit::MaxInput) => 1u64.hash(&mut h),
            Some(MemoryLimit::Elements(n)) => (2u64, n).hash(&mut h),
        }
    }
    h.finish()
}

fn matches(e: &Entry, spec: &str, shapes: &[&[usize]], path: Option<&PathOptions>) -> bool {
    &*e.spec == spec
        && e.path.as_ref() == path
        && e.plan.plan.shapes().len() == shapes.len()
        && e.plan.plan.shapes().iter().zip(shapes).all(|(a, b)| a.as_slice() == *b)
}

/// The plan of `spec` on operands of `shapes` along `path`, made at most once while cached.
pub fn plan(
    spec: &str,
    shapes: &[&[usize]],
    path: Option<&PathOptions>,
) -> Result<Arc<Planned>, EinsumError> {
    let hash = key_hash(spec, shapes, path);
    {
        let guard = PLANS.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(plans) = guard.as_ref() {
            if let Some(bucket) = plans.by_hash.get(&hash) {
                if let Some(e) = bucket.iter().find(|e| matches(e, spec, shapes, path)) {
                    return Ok(e.plan.clone());
                }
            }
        }
    }
    // Planned without the lock: planning a large path takes time.
    let plan = EinsumPlan::new(spec, shapes, path)?;
    let plan = Arc::new(Planned { work: plan.work(), plan });
    let mut guard = PLANS.lock().unwrap_or_else(|p| p.into_inner());
    let plans = guard.get_or_insert_with(Plans::default);
    if plans.len >= CAPACITY {
        plans.by_hash.clear();
        plans.len = 0;
    }
    let entry = Entry { spec: spec.into(), plan: plan.clone(), path: path.cloned() };
    plans.by_hash.entry(hash).or_default().push(entry);
    plans.len += 1;
    Ok(plan)
}
