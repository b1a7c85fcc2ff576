//! An einsum over dense Vespa tensors whose labels are their dimension names
//! ([`named_einsum`]), and its errors ([`NamedError`]), which speak of those names: the
//! single letters the einsum runs on internally never reach the caller.

use std::collections::HashMap;

use super::convert::{from_vespa, to_vespa, ConvertError};
use super::vespa::Tensor as VespaTensor;
use crate::code::{Coded, ErrorCode};
use crate::tensor::Tensor;

/// The letters the dimension names stand for in the einsum, in order of first appearance.
const LETTERS: &[u8; 52] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// Why a [`named_einsum`] cannot be evaluated, in the caller's dimension names. Operands are
/// counted from 0, in the order given; output positions index the output names given.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NamedError {
    /// Two operands give a dimension different sizes, neither of them 1 (a size 1
    /// broadcasts).
    #[error("dimension mismatch: `{name}` is {earlier_size} in operand {earlier} but {size} in operand {operand}")]
    Size {
        /// The dimension name.
        name: String,
        /// The operand where the conflict shows.
        operand: usize,
        /// Its size there.
        size: usize,
        /// The operand that fixed the size before.
        earlier: usize,
        /// The size it fixed.
        earlier_size: usize,
    },
    /// An output dimension named twice.
    #[error("output dimension `{name}` is named twice (output positions {first} and {second})")]
    RepeatedOutput {
        /// The dimension name.
        name: String,
        /// Its first position in the output names.
        first: usize,
        /// Its second position.
        second: usize,
    },
    /// An output dimension no operand has.
    #[error("output dimension `{name}` is in no operand")]
    UnknownOutput {
        /// The dimension name.
        name: String,
        /// Its position in the output names.
        position: usize,
    },
    /// More distinct dimension names than the einsum has labels for.
    #[error("the operands have {count} distinct dimension names; at most {} can be joined", LETTERS.len())]
    TooManyNames {
        /// Distinct names seen when the limit was passed.
        count: usize,
    },
    /// An operand that cannot be read densely (a mapped dimension), or whose data the tensor
    /// layer refuses; why is the [`source`](std::error::Error::source) (a
    /// `Box<ConvertError>`, as the two types nest).
    #[error("reading operand {operand}")]
    Operand {
        /// The operand.
        operand: usize,
        /// Why.
        source: Box<ConvertError>,
    },
}

impl Coded for NamedError {
    fn code(&self) -> ErrorCode {
        match self {
            NamedError::Size { .. } => ErrorCode::Mismatch,
            NamedError::RepeatedOutput { .. } | NamedError::UnknownOutput { .. } => {
                ErrorCode::Label
            }
            NamedError::TooManyNames { .. } => ErrorCode::Unsupported,
            NamedError::Operand { source, .. } => source.code(),
        }
    }
}

/// The distinct dimension names of the operands, each with its size so far (numpy's rule: a
/// size 1 broadcasts, any other fixes the size) and the operand that fixed it.
#[derive(Default)]
struct Dims {
    index: HashMap<String, usize>,
    names: Vec<String>,
    sizes: Vec<(usize, Option<usize>)>,
}

impl Dims {
    /// The letter of `name` in operand `k` of size `size`, after checking the size.
    fn add(&mut self, name: &str, size: usize, k: usize) -> Result<char, NamedError> {
        let i = match self.index.get(name) {
            Some(&i) => i,
            None => {
                let i = self.names.len();
                if i == LETTERS.len() {
                    return Err(NamedError::TooManyNames { count: i + 1 });
                }
                self.index.insert(name.to_string(), i);
                self.names.push(name.to_string());
                self.sizes.push((1, None));
                i
            }
        };
        let (cur, fixed) = &mut self.sizes[i];
        match *fixed {
            None if size != 1 => (*cur, *fixed) = (size, Some(k)),
            Some(earlier) if size != 1 && size != *cur => {
                return Err(NamedError::Size {
                    name: name.to_string(),
                    operand: k,
                    size,
                    earlier,
                    earlier_size: *cur,
                });
            }
            _ => {}
        }
        Ok(char::from(LETTERS[i]))
    }
}

/// An einsum over dense Vespa tensors whose labels are their dimension names: dimensions with
/// the same name are the same axis (they join; a size 1 broadcasts), names not in `output`
/// are summed over. Every error names dimensions as the operands and `output` do
/// ([`NamedError`], in [`ConvertError::Named`]).
///
/// ```
/// use einrow::formats::convert::read_vespa;
/// use einrow::formats::named::named_einsum;
/// let m = read_vespa("tensor(x[2],y[3]):[[1,2,3],[4,5,6]]")?;
/// let v = read_vespa("tensor(y[3]):[1,1,1]")?;
/// let (mut sums, sum) = (String::new(), named_einsum(&["x"], &[&m, &v])?);
/// sum.write_text(&mut sums)?;
/// assert_eq!(sums, "tensor(x[2]):[6.0, 15.0]");
/// let w = read_vespa("tensor(y[4]):[1,1,1,1]")?;
/// let e = named_einsum(&["x"], &[&m, &w]).unwrap_err();
/// assert_eq!(e.to_string(), "dimension mismatch: `y` is 3 in operand 0 but 4 in operand 1");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn named_einsum(
    output: &[&str],
    operands: &[&VespaTensor],
) -> Result<VespaTensor, ConvertError> {
    let mut dims = Dims::default();
    let mut terms = Vec::with_capacity(operands.len());
    let mut tensors: Vec<Tensor> = Vec::with_capacity(operands.len());
    for (k, v) in operands.iter().enumerate() {
        let n =
            from_vespa(v).map_err(|e| NamedError::Operand { operand: k, source: Box::new(e) })?;
        let mut term = String::new();
        for (name, &size) in n.names.iter().flatten().zip(n.tensor.shape()) {
            term.push(dims.add(name, size, k)?);
        }
        terms.push(term);
        tensors.push(n.tensor);
    }
    let mut out_term = String::new();
    let mut written: HashMap<&str, usize> = HashMap::with_capacity(output.len());
    for (position, &name) in output.iter().enumerate() {
        if let Some(&first) = written.get(name) {
            let name = name.to_string();
            return Err(NamedError::RepeatedOutput { name, first, second: position }.into());
        }
        written.insert(name, position);
        let Some(&i) = dims.index.get(name) else {
            return Err(NamedError::UnknownOutput { name: name.to_string(), position }.into());
        };
        out_term.push(char::from(LETTERS[i]));
    }
    // Every size and label is checked above: what the einsum can still refuse (a result too
    // large to allocate) names no label.
    let spec = format!("{}->{out_term}", terms.join(","));
    let refs: Vec<&Tensor> = tensors.iter().collect();
    let result = crate::numpy::einsum(&spec, &refs)?;
    let out_names: Vec<String> = output.iter().map(|s| s.to_string()).collect();
    to_vespa(&result, &out_names)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formats::convert::read_vespa;
    use proptest::prelude::*;

    fn named(output: &[&str], texts: &[&str]) -> Result<String, String> {
        let vs: Vec<VespaTensor> = texts.iter().map(|t| read_vespa(t).expect("reads")).collect();
        let refs: Vec<&VespaTensor> = vs.iter().collect();
        let literal = |v: VespaTensor| {
            let mut text = String::new();
            v.write_text(&mut text).expect("writes to a string");
            text
        };
        // The message and its causes', as a report prints them.
        let chained = |e: ConvertError| {
            let mut text = e.to_string();
            let mut cause = std::error::Error::source(&e);
            while let Some(c) = cause {
                text = format!("{text}: {c}");
                cause = c.source();
            }
            text
        };
        named_einsum(output, &refs).map(literal).map_err(chained)
    }

    #[test]
    fn errors_name_the_dimensions() {
        let m = "tensor(x[2],y[3]):[[1,2,3],[4,5,6]]";
        assert_eq!(
            named(&["x"], &[m, "tensor(y[4]):[1,1,1,1]"]),
            Err("dimension mismatch: `y` is 3 in operand 0 but 4 in operand 1".into())
        );
        // The operand that fixed the size is named, past operands of size 1.
        assert_eq!(
            named(&[], &["tensor(z[1]):[1]", "tensor(z[2]):[1,2]", "tensor(z[3]):[1,2,3]"]),
            Err("dimension mismatch: `z` is 2 in operand 1 but 3 in operand 2".into())
        );
        assert_eq!(
            named(&["x", "y", "x"], &[m]),
            Err("output dimension `x` is named twice (output positions 0 and 2)".into())
        );
        assert_eq!(named(&["q"], &[m]), Err("output dimension `q` is in no operand".into()));
        let mapped = named(&["x"], &[m, "tensor(x{}):{a:1}"]).unwrap_err();
        assert!(
            mapped.starts_with("reading operand 1: tensor(x{}) has mapped dimensions"),
            "{mapped}"
        );
        assert_eq!(
            named(&["y", "x"], &[m]),
            Ok("tensor(x[2],y[3]):[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]".into())
        );
    }

    /// Operands over the names `xx`, `yy`, `batch` and `d_1` (no name is one letter, so a
    /// leaked internal label would show), each dimension of size 1 to 3, and output names
    /// drawn from those and `zz`, which no operand has.
    fn cases() -> impl Strategy<Value = (Vec<Vec<(usize, usize)>>, Vec<usize>)> {
        let operand = prop::collection::btree_map(0..4usize, 1..=3usize, 0..=3)
            .prop_map(|m| m.into_iter().collect::<Vec<_>>());
        (prop::collection::vec(operand, 1..=4), prop::collection::vec(0..5usize, 0..=3))
    }

    const NAMES: [&str; 5] = ["xx", "yy", "batch", "d_1", "zz"];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        /// The rule: a named einsum fails exactly when the names' sizes conflict (neither 1)
        /// or an output name is repeated or in no operand, and its error names dimensions
        /// only as the caller wrote them.
        #[test]
        fn errors_speak_of_the_callers_names((operands, output) in cases()) {
            let texts: Vec<String> = operands
                .iter()
                .map(|dims| {
                    let ty: Vec<String> = dims.iter().map(|&(n, s)| format!("{}[{s}]", NAMES[n])).collect();
                    let cells: usize = dims.iter().map(|&(_, s)| s).product();
                    let values: Vec<String> = (0..cells).map(|i| i.to_string()).collect();
                    format!("tensor({}):[{}]", ty.join(","), values.join(","))
                })
                .collect();
            let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
            let out: Vec<&str> = output.iter().map(|&n| NAMES[n]).collect();
            // The rule, written plainly.
            let mut sizes: Vec<Option<usize>> = vec![None; NAMES.len()];
            let mut conflict = false;
            for dims in &operands {
                for &(n, s) in dims {
                    match sizes[n] {
                        _ if s == 1 => {}
                        None => sizes[n] = Some(s),
                        Some(cur) => conflict |= cur != s,
                    }
                }
            }
            let present = |n: usize| operands.iter().flatten().any(|&(m, _)| m == n);
            let repeated = (0..output.len()).any(|i| output[..i].contains(&output[i]));
            let unknown = output.iter().any(|&n| !present(n));
            match named(&out, &refs) {
                Ok(_) => prop_assert!(!conflict && !repeated && !unknown),
                Err(message) => {
                    prop_assert!(conflict || repeated || unknown, "{}", message);
                    // Every name the message quotes is one of the caller's.
                    for quoted in message.split('`').skip(1).step_by(2) {
                        prop_assert!(NAMES.contains(&quoted), "{}", message);
                    }
                    prop_assert!(!message.contains("label") && !message.contains("subscript"), "{}", message);
                }
            }
        }
    }

    #[test]
    fn at_most_52_names_are_joined() {
        let one = |i: usize| format!("tensor(d{i}[1]):[{i}]");
        let texts: Vec<String> = (0..53).map(one).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        assert!(named(&[], &refs[..52]).is_ok());
        assert_eq!(
            named(&[], &refs),
            Err("the operands have 53 distinct dimension names; at most 52 can be joined".into())
        );
    }
}
