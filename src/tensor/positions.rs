//! Visiting every multi-index of a shape in row-major order (an odometer).

/// Calls `f` with every position of `shape` in row-major order (the last index fastest; not
/// at all when a size is 0, once with `[]` for a scalar), stopping at `f`'s first error.
pub fn for_each_position<E>(
    shape: &[usize],
    mut f: impl FnMut(&[usize]) -> Result<(), E>,
) -> Result<(), E> {
    if shape.contains(&0) {
        return Ok(());
    }
    let mut pos = vec![0usize; shape.len()];
    loop {
        f(&pos)?;
        let mut d = shape.len();
        loop {
            if d == 0 {
                return Ok(());
            }
            d -= 1;
            pos[d] += 1;
            if pos[d] < shape[d] {
                break;
            }
            pos[d] = 0;
        }
    }
}

/// The brackets of nested lists written item by item in row-major order (printers of nested
/// JSON arrays and of Vespa's dense form): before each item after the first, the innermost
/// lists its index leaves are closed and opened again.
///
/// ```
/// use einrow::tensor::ListNesting;
/// let mut nest = ListNesting::new(&[2, 2]);
/// let steps: Vec<Option<usize>> = (0..4).map(|_| nest.advance()).collect();
/// assert_eq!(steps, [None, Some(0), Some(1), Some(0)]); // [[a, b], [c, d]]
/// ```
#[derive(Clone, Debug)]
pub struct ListNesting {
    sizes: Vec<usize>,
    index: Vec<usize>,
    started: bool,
}

impl ListNesting {
    /// The walk over lists of these sizes, outermost first.
    pub fn new(sizes: &[usize]) -> ListNesting {
        ListNesting { sizes: sizes.to_vec(), index: vec![0; sizes.len()], started: false }
    }

    /// How deep the lists nest.
    pub fn depth(&self) -> usize {
        self.sizes.len()
    }

    /// Moves to the next item: `None` for the first (every list opens before it), else how
    /// many innermost lists close before the item and open again after the separator.
    pub fn advance(&mut self) -> Option<usize> {
        if !self.started {
            self.started = true;
            return None;
        }
        let mut wrapped = 0;
        for (k, size) in self.sizes.iter().enumerate().rev() {
            self.index[k] += 1;
            if self.index[k] < *size {
                break;
            }
            self.index[k] = 0;
            wrapped += 1;
        }
        Some(wrapped)
    }
}

#[cfg(test)]
mod tests {
    use super::{for_each_position, ListNesting};

    #[test]
    fn list_nesting_closes_the_lists_an_index_leaves() {
        let mut nest = ListNesting::new(&[2, 1, 3]);
        let steps: Vec<Option<usize>> = (0..6).map(|_| nest.advance()).collect();
        assert_eq!(steps, [None, Some(0), Some(0), Some(2), Some(0), Some(0)]);
        assert_eq!(nest.depth(), 3);
        assert_eq!(ListNesting::new(&[]).advance(), None);
    }

    fn positions(shape: &[usize]) -> Vec<Vec<usize>> {
        let mut out = Vec::new();
        for_each_position::<()>(shape, |p| {
            out.push(p.to_vec());
            Ok(())
        })
        .expect("no error");
        out
    }

    #[test]
    fn row_major_order_empty_and_scalar() {
        assert_eq!(positions(&[2, 2]), vec![vec![0, 0], vec![0, 1], vec![1, 0], vec![1, 1]]);
        assert_eq!(positions(&[3, 0]), Vec::<Vec<usize>>::new());
        assert_eq!(positions(&[]), vec![Vec::<usize>::new()]);
    }

    #[test]
    fn stops_at_the_first_error() {
        let mut seen = 0;
        let r = for_each_position(&[4], |p| {
            seen += 1;
            if p[0] == 1 {
                Err("stop")
            } else {
                Ok(())
            }
        });
        assert_eq!((r, seen), (Err("stop"), 2));
    }
}
