//! Interned names: labels of dim variables and names of tensors. A program uses few distinct
//! names many times (every layer declares a `gamma`), so each is stored once and referred to
//! by a `u32`.

use std::collections::HashMap;

use crate::spec::ast::Name;

/// The interned names, by id in order of first use. Looked up by a fast hash (a linear scan
/// of a few names cost more: comparing a `Name` with a `&str` is not a plain `memcmp`).
#[derive(Clone, Default)]
pub struct Names {
    names: Vec<Name>,
    ids: HashMap<Name, u32, foldhash::fast::RandomState>,
}

impl Names {
    /// The id of a name, interning it on first use.
    pub fn intern(&mut self, name: &str) -> u32 {
        if let Some(&i) = self.ids.get(name) {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        let name = Name::new(name);
        self.names.push(name.clone());
        self.ids.insert(name, i);
        i
    }

    /// The name with an id.
    pub fn get(&self, id: u32) -> Option<&Name> {
        self.names.get(id as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::Names;

    #[test]
    fn ids_are_dense_and_stable() {
        let mut names = Names::default();
        let words: Vec<String> = (0..40).map(|i| format!("n{i}")).collect();
        let ids: Vec<u32> = words.iter().map(|w| names.intern(w)).collect();
        assert_eq!(ids, (0..40).collect::<Vec<u32>>());
        for (w, id) in words.iter().zip(&ids) {
            assert_eq!(names.intern(w), *id);
            assert_eq!(names.get(*id).map(|n| n.as_str()), Some(w.as_str()));
        }
        assert_eq!(names.get(40), None);
    }
}
