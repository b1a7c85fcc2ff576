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

#[cfg(test)]
mod tests {
    use super::for_each_position;

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
