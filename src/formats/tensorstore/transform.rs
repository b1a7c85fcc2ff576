//! Index transforms: an input domain and one output index map per output dimension.

use std::fmt;

use super::array::IndexArray;
use super::domain::{check_rank, Dim, IndexDomain};
use super::error::{JsonPath, TsError, TsResult};
use super::interval::Interval;

/// How one output index is computed from the input index vector `in`.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
#[non_exhaustive]
pub enum OutputMap {
    /// `out = offset`.
    Constant {
        /// The output index.
        offset: i64,
    },
    /// `out = offset + stride·in[input_dimension]` (`stride ≠ 0`).
    SingleInputDimension {
        /// Added to the scaled input index.
        offset: i64,
        /// Multiplies the input index; never 0 (that is a constant map).
        stride: i64,
        /// The input dimension read.
        input_dimension: usize,
    },
    /// `out = offset + stride·array[in − origin]`, where `array` has one extent per input
    /// dimension (the dimension's size, or 1 to broadcast) and values are checked against
    /// `bounds` only when used.
    IndexArray {
        /// Added to the scaled array value.
        offset: i64,
        /// Multiplies the array value.
        stride: i64,
        /// The array, positioned relative to the input domain's lower bounds.
        array: IndexArray,
        /// The closed interval the array values must lie in (`(-inf, +inf)` for no limit).
        bounds: Interval,
    },
}

impl OutputMap {
    /// `out = offset`.
    pub fn constant(offset: i64) -> OutputMap {
        OutputMap::Constant { offset }
    }

    /// `out = offset + stride·in[input_dimension]`; a stride of 0 gives a constant map.
    pub fn single(offset: i64, stride: i64, input_dimension: usize) -> OutputMap {
        if stride == 0 {
            OutputMap::Constant { offset }
        } else {
            OutputMap::SingleInputDimension { offset, stride, input_dimension }
        }
    }

    /// `out = in[input_dimension]`.
    pub fn identity(input_dimension: usize) -> OutputMap {
        OutputMap::SingleInputDimension { offset: 0, stride: 1, input_dimension }
    }

    /// The offset.
    pub fn offset(&self) -> i64 {
        match self {
            OutputMap::Constant { offset }
            | OutputMap::SingleInputDimension { offset, .. }
            | OutputMap::IndexArray { offset, .. } => *offset,
        }
    }

    /// The stride (0 for a constant map).
    pub fn stride(&self) -> i64 {
        match self {
            OutputMap::Constant { .. } => 0,
            OutputMap::SingleInputDimension { stride, .. }
            | OutputMap::IndexArray { stride, .. } => *stride,
        }
    }
}

/// How one output dimension of [`IndexTransform::from_axis_maps`] reads the input.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AxisMap {
    /// `out = offset + stride·in[dim]` (a stride of 0 makes it constant).
    Input {
        /// Input dimension.
        dim: usize,
        /// Stride.
        stride: i64,
        /// Offset.
        offset: i64,
    },
    /// `out = value`.
    Constant(i64),
}

/// A map from an input index domain to an output index space.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct IndexTransform {
    domain: IndexDomain,
    output: Vec<OutputMap>,
}

fn shape_text(shape: impl IntoIterator<Item = String>) -> String {
    format!("{{{}}}", shape.into_iter().collect::<Vec<_>>().join(", "))
}

fn check_index_array(o: usize, array: &IndexArray, domain: &IndexDomain) -> TsResult<()> {
    let rank = domain.rank();
    if array.rank() != rank {
        return Err(TsError::rank(format!(
            "Index array for output dimension {o} has rank {} but must have rank {rank}",
            array.rank()
        )));
    }
    for (i, (d, &n)) in domain.dims().iter().zip(array.shape()).enumerate() {
        if n == 1 {
            continue;
        }
        let size = d.interval().size();
        if i64::try_from(n).ok() != Some(size) {
            return Err(TsError::mismatch(format!(
                "Index array for output dimension {o} has shape {} which does not match \
                 input_shape {}",
                shape_text(array.shape().iter().map(usize::to_string)),
                shape_text(domain.shape().iter().map(i64::to_string)),
            )));
        }
        if d.is_implicit() {
            return Err(TsError::bounds(format!(
                "Index array for output dimension {o} depends on input dimension {i} with \
                 implicit bounds"
            )));
        }
        if !d.interval().is_bounded() {
            return Err(TsError::bounds(format!(
                "Index array for output dimension {o} depends on input dimension {i} with \
                 infinite bounds"
            )));
        }
    }
    Ok(())
}

impl IndexTransform {
    /// A transform from its domain and output maps, validated: input dimensions in range,
    /// index arrays of the input rank whose extents match the domain (or are 1) and that
    /// depend only on explicit finite dimensions. Single-input maps with stride 0 become
    /// constant; index arrays become constant 0 when the domain is explicitly empty.
    pub fn new(domain: IndexDomain, output: Vec<OutputMap>) -> TsResult<IndexTransform> {
        check_rank(output.len())?;
        let rank = domain.rank();
        let empty = domain.is_explicitly_empty();
        let mut maps = Vec::with_capacity(output.len());
        for (o, map) in output.into_iter().enumerate() {
            let map = match map {
                OutputMap::SingleInputDimension { input_dimension, .. }
                    if input_dimension >= rank =>
                {
                    return Err(TsError::bounds(format!(
                        "Input dimension {input_dimension} specified for output dimension {o} is outside \
                         valid range [0, {rank})"
                    ))
                    .at(&JsonPath::root().index(o)));
                }
                OutputMap::SingleInputDimension { offset, stride, input_dimension } => {
                    OutputMap::single(offset, stride, input_dimension)
                }
                OutputMap::IndexArray { ref array, .. } => {
                    check_index_array(o, array, &domain)
                        .map_err(|e| e.at(&JsonPath::root().index(o)))?;
                    if empty {
                        OutputMap::constant(0)
                    } else {
                        map
                    }
                }
                constant => constant,
            };
            maps.push(map);
        }
        Ok(IndexTransform { domain, output: maps })
    }

    /// The identity transform over `domain`.
    pub fn identity(domain: IndexDomain) -> IndexTransform {
        let output = (0..domain.rank()).map(OutputMap::identity).collect();
        IndexTransform { domain, output }
    }

    /// A transform over `[0, input_shape)` whose output dimensions are given by `maps`.
    /// This is how an operand's index map in a projection plan is exported.
    pub fn from_axis_maps(input_shape: &[u64], maps: &[AxisMap]) -> TsResult<IndexTransform> {
        let domain = IndexDomain::from_shape(input_shape)?;
        let output = maps
            .iter()
            .map(|m| match *m {
                AxisMap::Input { dim, stride, offset } => OutputMap::single(offset, stride, dim),
                AxisMap::Constant(v) => OutputMap::constant(v),
            })
            .collect();
        IndexTransform::new(domain, output)
    }

    /// A transform over `[0, input_shape)` with one output per input dimension:
    /// `out[i] = offsets[i] + strides[i]·in[i]` (constant `offsets[i]` when the stride is 0).
    pub fn from_strided(
        input_shape: &[u64],
        offsets: &[i64],
        strides: &[i64],
    ) -> TsResult<IndexTransform> {
        if offsets.len() != input_shape.len() || strides.len() != input_shape.len() {
            return Err(TsError::arity(format!(
                "{} dimensions, {} offsets and {} strides",
                input_shape.len(),
                offsets.len(),
                strides.len()
            )));
        }
        let maps: Vec<AxisMap> = (0..input_shape.len())
            .map(|i| AxisMap::Input { dim: i, stride: strides[i], offset: offsets[i] })
            .collect();
        IndexTransform::from_axis_maps(input_shape, &maps)
    }

    pub(crate) fn from_parts(domain: IndexDomain, output: Vec<OutputMap>) -> IndexTransform {
        IndexTransform { domain, output }
    }

    /// The input domain.
    pub fn domain(&self) -> &IndexDomain {
        &self.domain
    }

    /// The output index maps.
    pub fn output(&self) -> &[OutputMap] {
        &self.output
    }

    /// The input rank.
    pub fn input_rank(&self) -> usize {
        self.domain.rank()
    }

    /// The output rank.
    pub fn output_rank(&self) -> usize {
        self.output.len()
    }

    /// Whether the output maps are `out[i] = in[i]` for every input dimension.
    pub fn is_identity_map(&self) -> bool {
        self.output.len() == self.domain.rank()
            && self.output.iter().enumerate().all(|(i, m)| *m == OutputMap::identity(i))
    }

    /// Splits the transform into its domain and output maps.
    pub fn into_parts(self) -> (IndexDomain, Vec<OutputMap>) {
        (self.domain, self.output)
    }

    /// The input dimensions.
    pub fn dims(&self) -> &[Dim] {
        self.domain.dims()
    }
}

fn write_array(f: &mut fmt::Formatter<'_>, a: &IndexArray) -> fmt::Result {
    fn rec(f: &mut fmt::Formatter<'_>, shape: &[usize], data: &[i64]) -> fmt::Result {
        match shape.split_first() {
            None => write!(f, "{}", data.first().copied().unwrap_or(0)),
            Some((&n, rest)) => {
                let stride: usize = rest.iter().product();
                write!(f, "{{")?;
                for i in 0..n {
                    if i > 0 {
                        write!(f, ", ")?;
                    }
                    let lo = (i * stride).min(data.len());
                    let hi = ((i + 1) * stride).min(data.len());
                    rec(f, rest, &data[lo..hi])?;
                }
                write!(f, "}}")
            }
        }
    }
    rec(f, a.shape(), a.data())
}

impl fmt::Display for IndexTransform {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Rank {} -> {} index space transform:", self.input_rank(), self.output_rank())?;
        writeln!(f, "  Input domain:")?;
        for (i, d) in self.domain.dims().iter().enumerate() {
            write!(f, "    {i}: {}", d.bounds)?;
            if !d.label.is_empty() {
                write!(f, " {:?}", d.label)?;
            }
            writeln!(f)?;
        }
        writeln!(f, "  Output index maps:")?;
        for (o, m) in self.output.iter().enumerate() {
            write!(f, "    out[{o}] = {}", m.offset())?;
            match m {
                OutputMap::Constant { .. } => {}
                OutputMap::SingleInputDimension { stride, input_dimension, .. } => {
                    write!(f, " + {stride} * in[{input_dimension}]")?;
                }
                OutputMap::IndexArray { stride, array, bounds, .. } => {
                    let b = if *bounds == Interval::INFINITE {
                        "(-inf, +inf)".to_string()
                    } else {
                        bounds.to_string()
                    };
                    write!(f, " + {stride} * bounded({b}, array(in)), where array =\n      ")?;
                    write_array(f, array)?;
                }
            }
            writeln!(f)?;
        }
        Ok(())
    }
}
