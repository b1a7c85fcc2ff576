//! What the solver knows about an unbound variable, kept small: most variables never get a
//! bound, a link or a cap, so those facts live in a box that only exists when there are some.

use std::collections::HashSet;

use smallvec::SmallVec;

use super::constraint::OriginId;
use super::store::RowId;
use crate::ids::{DimVar, RowVar};
use crate::shape::Dim;

/// The sentinel of an absent `u32` field.
const NONE: u32 = u32::MAX;

/// Bounds and links of a dim variable.
#[derive(Clone, Debug, Default)]
pub struct DimFacts {
    /// Variables known to refine this one (`r ⊑ self`).
    pub lower: SmallVec<[DimVar; 2]>,
    /// Variables this one refines (`self ⊑ o`).
    pub upper: SmallVec<[DimVar; 2]>,
    /// The join of its non-variable lower bounds (the "cap").
    pub cap: Option<Dim>,
    /// A lower bound on the size (from fixed indices).
    pub at_least: u64,
    /// `lower` and `upper` as sets, once one of them is long (a label shared by many operands
    /// gains a link per operand): adding a link then looks it up in O(1), not in the list.
    sets: Option<Box<LinkSets>>,
}

/// The sets of [`DimFacts::sets`].
#[derive(Clone, Debug, Default)]
struct LinkSets {
    lower: HashSet<DimVar>,
    upper: HashSet<DimVar>,
}

/// The length of a link list past which its facts keep the links in sets too.
const LONG_LINKS: usize = 16;

impl DimFacts {
    /// Whether `v` is among the variables known to refine this one.
    pub fn has_lower(&self, v: DimVar) -> bool {
        match &self.sets {
            Some(s) => s.lower.contains(&v),
            None => self.lower.contains(&v),
        }
    }

    /// Whether `v` is among the variables this one refines.
    pub fn has_upper(&self, v: DimVar) -> bool {
        match &self.sets {
            Some(s) => s.upper.contains(&v),
            None => self.upper.contains(&v),
        }
    }

    /// Adds a variable known to refine this one.
    pub fn add_lower(&mut self, v: DimVar) {
        self.lower.push(v);
        self.index_links();
        if let Some(s) = &mut self.sets {
            s.lower.insert(v);
        }
    }

    /// Adds a variable this one refines.
    pub fn add_upper(&mut self, v: DimVar) {
        self.upper.push(v);
        self.index_links();
        if let Some(s) = &mut self.sets {
            s.upper.insert(v);
        }
    }

    /// Builds the sets when a list becomes long.
    fn index_links(&mut self) {
        if self.sets.is_none() && self.lower.len().max(self.upper.len()) > LONG_LINKS {
            let lower = self.lower.iter().copied().collect();
            let upper = self.upper.iter().copied().collect();
            self.sets = Some(Box::new(LinkSets { lower, upper }));
        }
    }
}

/// What is known about a dim variable (kept at its root): 16 bytes, with its facts (when it
/// has some) in a box.
#[derive(Clone, Debug)]
pub struct DimInfo {
    facts: Option<Box<DimFacts>>,
    /// The interned name in the low 31 bits ([`NO_NAME`] for none); the top bit says whether
    /// the variable is a discardable concatenation component.
    name: u32,
    bound_by: u32,
}

// A program has millions of dim variables: keep their side table entry at 16 bytes.
const _: () = assert!(std::mem::size_of::<DimInfo>() == 16);

/// The name bits of a variable without a name.
const NO_NAME: u32 = u32::MAX >> 1;
/// The bit of [`DimInfo::name`] that marks a discardable variable.
const DISCARDABLE: u32 = !NO_NAME;

impl Default for DimInfo {
    fn default() -> DimInfo {
        DimInfo { facts: None, name: NO_NAME, bound_by: NONE }
    }
}

impl DimInfo {
    /// A fresh variable's info with an interned name.
    pub fn named(name: Option<u32>) -> DimInfo {
        let mut info = DimInfo::default();
        info.set_name_id(name);
        info
    }

    /// A concatenation component that may close to size 0.
    pub fn discardable(&self) -> bool {
        self.name & DISCARDABLE != 0
    }

    /// Marks (or unmarks) the variable as a discardable concatenation component.
    pub fn set_discardable(&mut self, on: bool) {
        self.name = if on { self.name | DISCARDABLE } else { self.name & NO_NAME };
    }

    /// Whether `v` is known to refine this one.
    pub fn has_lower(&self, v: DimVar) -> bool {
        self.facts.as_ref().is_some_and(|f| f.has_lower(v))
    }

    /// Whether this one refines `v`.
    pub fn has_upper(&self, v: DimVar) -> bool {
        self.facts.as_ref().is_some_and(|f| f.has_upper(v))
    }

    /// Variables known to refine this one.
    pub fn lower(&self) -> &[DimVar] {
        self.facts.as_ref().map_or(&[], |f| &f.lower)
    }

    /// Variables this one refines.
    pub fn upper(&self) -> &[DimVar] {
        self.facts.as_ref().map_or(&[], |f| &f.upper)
    }

    /// The cap, if any.
    pub fn cap(&self) -> Option<&Dim> {
        self.facts.as_ref().and_then(|f| f.cap.as_ref())
    }

    /// The size lower bound (0 when none).
    pub fn at_least(&self) -> u64 {
        self.facts.as_ref().map_or(0, |f| f.at_least)
    }

    /// The facts, created on first write.
    pub fn facts_mut(&mut self) -> &mut DimFacts {
        self.facts.get_or_insert_with(Box::default)
    }

    /// Takes the facts out (the variable is being bound or united).
    pub fn take_facts(&mut self) -> DimFacts {
        self.facts.take().map(|b| *b).unwrap_or_default()
    }

    /// The interned name.
    pub fn name_id(&self) -> Option<u32> {
        let id = self.name & NO_NAME;
        (id != NO_NAME).then_some(id)
    }

    /// Sets the interned name (ids past 2^31 - 1, never reached, read as no name).
    pub fn set_name_id(&mut self, name: Option<u32>) {
        let id = name.map_or(NO_NAME, |n| n.min(NO_NAME));
        self.name = (self.name & DISCARDABLE) | id;
    }

    /// The constraint that bound it.
    pub fn bound_by(&self) -> Option<OriginId> {
        (self.bound_by != NONE).then_some(OriginId(self.bound_by))
    }

    /// Records the constraint that bound it.
    pub fn set_bound_by(&mut self, o: OriginId) {
        self.bound_by = o.0;
    }
}

/// Bounds and links of a row variable, in one small vector (32 bytes, where three vectors took
/// 72: a large graph holds millions of these): the variables known to refine it, then the
/// variables it refines, then its lower bounds (rows that must broadcast into it, in the row
/// store; the first is the joined cap). Entries are raw indices, typed by the accessors.
#[derive(Clone, Debug, Default)]
pub struct RowLinks {
    items: SmallVec<[u32; 4]>,
    lower: u32,
    upper: u32,
}

// Checked at compile time: the slab of links is one of the solver's largest tables.
const _: () = assert!(std::mem::size_of::<RowLinks>() == 32);

impl RowLinks {
    /// Variables known to refine this one (`r ⊑ self`).
    pub fn lower(&self) -> impl Iterator<Item = RowVar> + '_ {
        self.items[..self.lower as usize].iter().map(|&v| RowVar(v))
    }

    /// Variables this one refines (`self ⊑ o`).
    pub fn upper(&self) -> impl Iterator<Item = RowVar> + '_ {
        let from = self.lower as usize;
        self.items[from..from + self.upper as usize].iter().map(|&v| RowVar(v))
    }

    /// Lower bounds in the row store; the first is the joined cap.
    pub fn caps(&self) -> impl Iterator<Item = RowId> + '_ {
        self.items[(self.lower + self.upper) as usize..].iter().map(|&id| RowId(id))
    }

    /// Adds a variable known to refine this one.
    pub fn push_lower(&mut self, v: RowVar) {
        self.items.insert(self.lower as usize, v.0);
        self.lower += 1;
    }

    /// Adds a variable this one refines.
    pub fn push_upper(&mut self, v: RowVar) {
        self.items.insert((self.lower + self.upper) as usize, v.0);
        self.upper += 1;
    }

    /// Adds a lower bound.
    pub fn push_cap(&mut self, id: RowId) {
        self.items.push(id.0);
    }

    /// Replaces the joined cap (the first lower bound), or adds it when there is none.
    pub fn set_first_cap(&mut self, id: RowId) {
        match self.items.get_mut((self.lower + self.upper) as usize) {
            Some(first) => *first = id.0,
            None => self.items.push(id.0),
        }
    }
}

/// The only item of an iterator, if it has exactly one.
pub fn sole<T>(mut it: impl Iterator<Item = T>) -> Option<T> {
    let first = it.next()?;
    it.next().is_none().then_some(first)
}

/// What is known about a row variable (kept at its root): 8 bytes, with its links (when it
/// has any) in the [`LinkSlab`].
#[derive(Clone, Debug, Default)]
pub struct RowInfo {
    /// Slot of its links in the slab plus one; 0 when it has none.
    pub(in crate::infer) links: u32,
    /// How many templates deep this variable was minted (termination guard).
    pub depth: u8,
    /// Created by a deficit template that added trailing axes: closing it to empty is safe.
    pub safe_to_guess: bool,
    /// Used in an einsum/permute operand or as a compose contraction row.
    pub used_in_spec: bool,
    /// Used as an operand row of a pointwise operation. A parameter row used pointwise only
    /// (a bias) may close to empty; any other open parameter row is an error.
    pub used_in_pointwise: bool,
}

/// The links of row variables, in slots reused once a variable is bound or united.
#[derive(Clone, Default)]
pub struct LinkSlab {
    slots: Vec<RowLinks>,
    free: Vec<u32>,
}

impl LinkSlab {
    /// The links in a slot (`slot` as stored in [`RowInfo`]).
    pub fn get(&self, slot: u32) -> Option<&RowLinks> {
        slot.checked_sub(1).and_then(|i| self.slots.get(i as usize))
    }

    /// The links in a slot, allocating one if there is none yet.
    pub fn get_mut(&mut self, slot: &mut u32) -> &mut RowLinks {
        if *slot == 0 {
            let i = match self.free.pop() {
                Some(i) => i,
                None => {
                    self.slots.push(RowLinks::default());
                    u32::try_from(self.slots.len() - 1).unwrap_or(u32::MAX)
                }
            };
            *slot = i + 1;
        }
        let i = (*slot - 1) as usize;
        &mut self.slots[i]
    }

    /// Takes the links out of a slot and frees it.
    pub fn take(&mut self, slot: u32) -> RowLinks {
        let Some(i) = slot.checked_sub(1) else { return RowLinks::default() };
        self.free.push(i);
        std::mem::take(&mut self.slots[i as usize])
    }
}
