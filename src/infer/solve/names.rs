//! Interned names: the labels of dim variables. A program uses few distinct labels many
//! times (every layer's einsum names its `h` and `k`), so each is stored once and referred to
//! by a `u32`. (Tensor names, nearly all distinct, are listed by the graph instead.)

use std::collections::HashMap;

use crate::spec::ast::{same_name, Name};

/// How many names are looked up by a scan: a graph of a few tensors (eager use, one graph
/// per operation) then needs no map. Past that, a scan costs more than a fast hash.
const SHORT_SCAN: usize = 8;

/// The interned names, by id in order of first use.
#[derive(Clone, Default)]
pub struct Names {
    names: Vec<Name>,
    /// The ids by name, made when the scan gets long (a new graph then seeds no hasher).
    ids: Option<HashMap<Name, u32, foldhash::fast::RandomState>>,
}

impl Names {
    /// The id of a name, interning it on first use.
    pub fn intern(&mut self, name: &str) -> u32 {
        let found = match &self.ids {
            None => self.names.iter().position(|n| same_name(n, name)).map(|i| i as u32),
            Some(ids) => ids.get(name).copied(),
        };
        if let Some(i) = found {
            return i;
        }
        let i = u32::try_from(self.names.len()).unwrap_or(u32::MAX);
        self.names.push(Name::new(name));
        match &mut self.ids {
            Some(ids) => {
                ids.insert(Name::new(name), i);
            }
            None if self.names.len() > SHORT_SCAN => {
                let ids = self.names.iter().enumerate().map(|(j, n)| (n.clone(), j as u32));
                self.ids = Some(ids.collect());
            }
            None => {}
        }
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
    fn ids_are_dense_and_stable_across_the_switch_to_the_map() {
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
