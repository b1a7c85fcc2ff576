//! Dense n-dimensional arrays (row-major) for index arrays and boolean masks, with the nested
//! JSON list form.
//!
//! An index array of a transform has one extent per input dimension: either the size of that
//! dimension (the array depends on it) or 1 (broadcast: the array does not depend on it). Its
//! positions are relative to the input domain's lower bounds.

use serde_json::Value;

use super::error::{JsonPath, TsError, TsResult};
use super::interval::MAX_RANK;

/// The largest number of elements einrow materialises in one array, and in all the index
/// arrays one composition computes together (a composition recomputes the index array of
/// every output dimension, so without a shared limit a transform with many index-array
/// outputs would multiply the limit by its output rank).
pub const MAX_ARRAY_ELEMENTS: usize = 1 << 24;

/// A dense row-major array.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct NdArray<T> {
    shape: Vec<usize>,
    data: Vec<T>,
}

/// An array of indices.
pub type IndexArray = NdArray<i64>;

/// The number of elements of `shape`, checked against [`MAX_ARRAY_ELEMENTS`].
pub fn element_count(shape: &[usize]) -> TsResult<usize> {
    shape
        .iter()
        .try_fold(1usize, |acc, &n| acc.checked_mul(n))
        .filter(|&n| n <= MAX_ARRAY_ELEMENTS)
        .ok_or_else(|| {
            TsError::bounds(format!(
                "an array of shape {shape:?} has more than {MAX_ARRAY_ELEMENTS} elements"
            ))
        })
}

/// The elements the index arrays computed by one composition may still hold, out of
/// [`MAX_ARRAY_ELEMENTS`] in all.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ElementBudget {
    left: usize,
}

impl ElementBudget {
    /// The whole budget.
    pub(crate) fn new() -> ElementBudget {
        ElementBudget { left: MAX_ARRAY_ELEMENTS }
    }

    /// Takes the elements of an array of `shape` for output dimension `dim`, before it is
    /// allocated.
    pub(crate) fn take(&mut self, shape: &[usize], dim: usize) -> TsResult<()> {
        let n = element_count(shape)?;
        if n > self.left {
            return Err(TsError::bounds(format!(
                "the index array for output dimension {dim} would have shape {shape:?}, more \
                 than the {} elements left of the {MAX_ARRAY_ELEMENTS} that the index arrays \
                 of one composition may hold in all",
                self.left
            )));
        }
        self.left -= n;
        Ok(())
    }
}

/// Calls `f` with every position of `shape` in row-major order (not at all when a size is 0).
pub fn for_each_position(shape: &[usize], f: impl FnMut(&[usize]) -> TsResult<()>) -> TsResult<()> {
    crate::tensor::for_each_position(shape, f)
}

impl<T: Clone> NdArray<T> {
    /// An array from its shape and row-major data; the lengths must agree.
    pub fn new(shape: Vec<usize>, data: Vec<T>) -> TsResult<NdArray<T>> {
        if shape.len() > MAX_RANK {
            return Err(TsError::rank(format!("array rank {} exceeds {MAX_RANK}", shape.len())));
        }
        let n = element_count(&shape)?;
        if n != data.len() {
            return Err(TsError::mismatch(format!(
                "array of shape {shape:?} needs {n} elements, got {}",
                data.len()
            )));
        }
        Ok(NdArray { shape, data })
    }

    /// A rank-0 array holding `value`.
    pub fn scalar(value: T) -> NdArray<T> {
        NdArray { shape: Vec::new(), data: vec![value] }
    }

    /// The extents.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The elements in row-major order.
    pub fn data(&self) -> &[T] {
        &self.data
    }

    /// The number of dimensions.
    pub fn rank(&self) -> usize {
        self.shape.len()
    }

    /// The element at `pos` (one coordinate per dimension), if inside.
    pub fn get(&self, pos: &[usize]) -> Option<&T> {
        if pos.len() != self.shape.len() {
            return None;
        }
        let mut flat = 0usize;
        for (&p, &n) in pos.iter().zip(&self.shape) {
            if p >= n {
                return None;
            }
            flat = flat * n + p;
        }
        self.data.get(flat)
    }

    /// Whether every extent is 1 (the array holds a single value).
    pub fn is_singleton(&self) -> bool {
        self.shape.iter().all(|&n| n == 1)
    }

    /// Builds an array of `shape` whose element at each position is `f(position)`.
    pub fn from_fn(
        shape: Vec<usize>,
        mut f: impl FnMut(&[usize]) -> TsResult<T>,
    ) -> TsResult<NdArray<T>> {
        let n = element_count(&shape)?;
        let mut data = Vec::with_capacity(n);
        for_each_position(&shape, |pos| {
            data.push(f(pos)?);
            Ok(())
        })?;
        NdArray::new(shape, data)
    }

    /// Reads a nested JSON list (a bare scalar is rank 0); `leaf` converts each scalar.
    pub fn from_json(
        v: &Value,
        path: &JsonPath,
        leaf: &dyn Fn(&Value, &JsonPath) -> TsResult<T>,
    ) -> TsResult<NdArray<T>> {
        let mut shape = Vec::new();
        let mut probe = v;
        while let Value::Array(items) = probe {
            shape.push(items.len());
            if shape.len() > MAX_RANK {
                return Err(TsError::rank(format!("nested array deeper than {MAX_RANK}")).at(path));
            }
            match items.first() {
                Some(first) => probe = first,
                None => break,
            }
        }
        element_count(&shape).map_err(|e| e.at(path))?;
        let mut data = Vec::new();
        collect_leaves(v, path, &shape, &mut data, leaf)?;
        NdArray::new(shape, data).map_err(|e| e.at(path))
    }
}

fn collect_leaves<T>(
    v: &Value,
    path: &JsonPath,
    shape: &[usize],
    out: &mut Vec<T>,
    leaf: &dyn Fn(&Value, &JsonPath) -> TsResult<T>,
) -> TsResult<()> {
    match (shape.split_first(), v) {
        (None, Value::Array(_)) => {
            Err(TsError::syntax("nested array is not rectangular (too deep here)").at(path))
        }
        (None, _) => {
            out.push(leaf(v, path)?);
            Ok(())
        }
        (Some((&n, rest)), Value::Array(items)) if items.len() == n => {
            for (i, item) in items.iter().enumerate() {
                collect_leaves(item, &path.index(i), rest, out, leaf)?;
            }
            Ok(())
        }
        (Some((&n, _)), Value::Array(items)) => Err(TsError::syntax(format!(
            "nested array is not rectangular: {} items where {n} were expected",
            items.len()
        ))
        .at(path)),
        (Some(_), _) => Err(TsError::syntax(format!(
            "nested array is not rectangular: expected a list, but received: {v}"
        ))
        .at(path)),
    }
}

impl<T: Clone + Into<Value>> NdArray<T> {
    /// The nested JSON list form (a bare scalar for rank 0).
    pub fn to_json(&self) -> Value {
        fn build<T: Clone + Into<Value>>(shape: &[usize], data: &[T]) -> Value {
            match shape.split_first() {
                None => data.first().cloned().map_or(Value::Null, Into::into),
                Some((&n, rest)) => {
                    let stride: usize = rest.iter().product();
                    Value::Array(
                        (0..n)
                            .map(|i| {
                                let lo = (i * stride).min(data.len());
                                let hi = ((i + 1) * stride).min(data.len());
                                build(rest, &data[lo..hi])
                            })
                            .collect(),
                    )
                }
            }
        }
        build(&self.shape, &self.data)
    }
}

/// Reads a JSON integer as `i64`: integers, and floats with an integral value.
pub fn json_i64(v: &Value) -> Option<i64> {
    match v {
        Value::Number(n) => n.as_i64().or_else(|| {
            let x = n.as_f64()?;
            let in_range = (-9_223_372_036_854_775_808.0..9_223_372_036_854_775_808.0).contains(&x);
            (in_range && x.fract() == 0.0).then_some(x as i64)
        }),
        _ => None,
    }
}

/// Reads one index-array element.
pub fn index_leaf(v: &Value, path: &JsonPath) -> TsResult<i64> {
    json_i64(v).ok_or_else(|| {
        TsError::value(format!("Expected 64-bit signed integer, but received: {v}")).at(path)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: Value) -> TsResult<IndexArray> {
        IndexArray::from_json(&v, &JsonPath::root(), &index_leaf)
    }

    #[test]
    fn nested_round_trip() {
        for v in [json!(5), json!([]), json!([1, 2]), json!([[1], [2], [3]]), json!([[[]]])] {
            let a = parse(v.clone()).unwrap();
            assert_eq!(a.to_json(), v);
        }
        assert_eq!(parse(json!([[1, 2], [3, 4]])).unwrap().get(&[1, 0]), Some(&3));
    }

    #[test]
    fn nested_errors() {
        for v in [json!([[1], 2]), json!([1, [2]]), json!([[1, 2], [3]]), json!([1.5]), json!("x")]
        {
            assert!(parse(v.clone()).is_err(), "{v}");
        }
        let e = parse(json!([[1, 2], [3, "x"]])).unwrap_err();
        assert_eq!(e.path().as_str(), "/1/1");
    }

    #[test]
    fn positions_in_row_major_order() {
        let a = IndexArray::from_fn(vec![2, 3], |p| Ok((p[0] * 10 + p[1]) as i64)).unwrap();
        assert_eq!(a.data(), &[0, 1, 2, 10, 11, 12]);
        assert_eq!(json_i64(&json!(3.0)), Some(3));
        assert_eq!(json_i64(&json!(1e300)), None);
    }
}
