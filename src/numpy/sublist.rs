//! numpy's sublist format, `einsum(op0, [0, 1], op1, [1, 2], [0, 2])`: each operand with a
//! list of integer labels, and an optional output list.
//!
//! Labels are 0–51, numpy's range: label `k` is the subscript letter `k` of
//! `A..=Z` then `a..=z` (so 0 is `A` and 26 is `a`; the implicit output, in letter order, is
//! in label order). `Ellipsis` may appear once per list. A sublist is converted to
//! subscripts and evaluated by the same code as subscripts (`einsum_sublist`), so every rule and error is the
//! same; messages name labels by their letters.

use crate::code::{Coded, ErrorCode};

/// The labels numpy allows in sublists: `0..LABELS`.
pub const SUBLIST_LABELS: i64 = 52;

/// One item of a sublist: a label or numpy's `Ellipsis`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Subscript {
    /// A label, 0–51.
    Label(i64),
    /// The broadcast dimensions (`...`).
    Ellipsis,
}

impl From<i64> for Subscript {
    fn from(label: i64) -> Subscript {
        Subscript::Label(label)
    }
}

impl From<i32> for Subscript {
    fn from(label: i32) -> Subscript {
        Subscript::Label(i64::from(label))
    }
}

impl From<u32> for Subscript {
    fn from(label: u32) -> Subscript {
        Subscript::Label(i64::from(label))
    }
}

impl From<usize> for Subscript {
    fn from(label: usize) -> Subscript {
        Subscript::Label(i64::try_from(label).unwrap_or(i64::MAX))
    }
}

/// Why a sublist cannot be converted to subscripts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SublistError {
    /// A label outside `0..=51`.
    #[error("label {label} in {} (item {position}) is outside numpy's sublist range 0..=51", place(*.operand))]
    LabelRange {
        /// The label given.
        label: i64,
        /// The operand whose list has it (`None`: the output list).
        operand: Option<usize>,
        /// Its index in the list.
        position: usize,
    },
    /// A second `Ellipsis` in one list.
    #[error("{} has Ellipsis twice (items {first} and {second}); a list has at most one", place(*.operand))]
    TwoEllipses {
        /// The operand whose list has them (`None`: the output list).
        operand: Option<usize>,
        /// The first one's index.
        first: usize,
        /// The second one's index.
        second: usize,
    },
}

fn place(operand: Option<usize>) -> String {
    match operand {
        Some(k) => format!("the sublist of operand {k}"),
        None => "the output sublist".to_string(),
    }
}

impl Coded for SublistError {
    fn code(&self) -> ErrorCode {
        match self {
            SublistError::LabelRange { .. } => ErrorCode::Bounds,
            SublistError::TwoEllipses { .. } => ErrorCode::Syntax,
        }
    }
}

/// An einsum in the sublist format: one label list per operand and an optional output list.
///
/// ```
/// use einrow::numpy::{Sublist, Subscript};
/// // numpy: einsum(a, [0, 1], b, [1], [0])
/// let spec = Sublist::new().input([0, 1]).input([1]).output([0]);
/// assert_eq!(spec.to_subscripts()?, "AB,B->A");
/// // Ellipsis as numpy allows it: einsum(a, [Ellipsis, 1], [Ellipsis])
/// let sums = Sublist::new().input([Subscript::Ellipsis, 1.into()]).output([Subscript::Ellipsis]);
/// # #[cfg(feature = "kernel")] {
/// use einrow::{numpy::einsum_sublist, tensor::Tensor};
/// let a = Tensor::from_vec(&[2, 2], vec![1.0f64, 2.0, 3.0, 4.0])?;
/// let b = Tensor::from_vec(&[2], vec![1.0f64, 1.0])?;
/// assert_eq!(einsum_sublist(&[&a, &b], &spec)?.to_f64_vec(), vec![3.0, 7.0]);
/// assert_eq!(einsum_sublist(&[&a], &sums)?.to_f64_vec(), vec![3.0, 7.0]);
/// # }
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sublist {
    inputs: Vec<Vec<Subscript>>,
    output: Option<Vec<Subscript>>,
}

impl Sublist {
    /// An einsum with no operands yet.
    pub fn new() -> Sublist {
        Sublist::default()
    }

    /// Adds the next operand's labels.
    pub fn input<I>(mut self, labels: I) -> Sublist
    where
        I: IntoIterator,
        I::Item: Into<Subscript>,
    {
        self.inputs.push(labels.into_iter().map(Into::into).collect());
        self
    }

    /// Sets the output's labels (without it the output is implicit, as in numpy).
    pub fn output<I>(mut self, labels: I) -> Sublist
    where
        I: IntoIterator,
        I::Item: Into<Subscript>,
    {
        self.output = Some(labels.into_iter().map(Into::into).collect());
        self
    }

    /// Each operand's labels.
    pub fn inputs(&self) -> &[Vec<Subscript>] {
        &self.inputs
    }

    /// The output's labels, when given.
    pub fn output_labels(&self) -> Option<&[Subscript]> {
        self.output.as_deref()
    }

    /// The equivalent numpy subscripts (label `k` as the `k`-th letter of `A..=Za..=z`).
    pub fn to_subscripts(&self) -> Result<String, SublistError> {
        let mut text = String::new();
        for (k, list) in self.inputs.iter().enumerate() {
            if k > 0 {
                text.push(',');
            }
            write_list(&mut text, list, Some(k))?;
        }
        if let Some(out) = &self.output {
            text.push_str("->");
            write_list(&mut text, out, None)?;
        }
        Ok(text)
    }
}

fn write_list(
    text: &mut String,
    list: &[Subscript],
    operand: Option<usize>,
) -> Result<(), SublistError> {
    let mut ellipsis: Option<usize> = None;
    for (position, item) in list.iter().enumerate() {
        match *item {
            Subscript::Ellipsis => {
                if let Some(first) = ellipsis {
                    return Err(SublistError::TwoEllipses { operand, first, second: position });
                }
                ellipsis = Some(position);
                text.push_str("...");
            }
            Subscript::Label(label) => {
                text.push(letter(label).ok_or(SublistError::LabelRange {
                    label,
                    operand,
                    position,
                })?)
            }
        }
    }
    Ok(())
}

/// The subscript letter of a sublist label.
fn letter(label: i64) -> Option<char> {
    let k = u8::try_from(label).ok().filter(|&k| i64::from(k) < SUBLIST_LABELS)?;
    Some(if k < 26 { (b'A' + k) as char } else { (b'a' + k - 26) as char })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_map_to_numpys_letters() {
        let s = Sublist::new().input([0, 25, 26, 51]).input([Subscript::Ellipsis, 3.into()]);
        assert_eq!(s.to_subscripts().unwrap(), "AZaz,...D");
        let s = Sublist::new().input([1usize]).output(Vec::<Subscript>::new());
        assert_eq!(s.to_subscripts().unwrap(), "B->");
    }

    #[test]
    fn out_of_range_labels_and_double_ellipses_are_coded() {
        for bad in [-1i64, 52, i64::MAX, i64::MIN] {
            let e = Sublist::new().input([0i64]).input([1, bad]).to_subscripts().unwrap_err();
            assert_eq!(e, SublistError::LabelRange { label: bad, operand: Some(1), position: 1 });
            assert_eq!(e.code(), ErrorCode::Bounds);
        }
        let e = Sublist::new().input([0]).output([7, 52]).to_subscripts().unwrap_err();
        assert_eq!(e, SublistError::LabelRange { label: 52, operand: None, position: 1 });
        let two = [Subscript::Ellipsis, Subscript::Label(0), Subscript::Ellipsis];
        let e = Sublist::new().input(two).to_subscripts().unwrap_err();
        assert_eq!(e, SublistError::TwoEllipses { operand: Some(0), first: 0, second: 2 });
        assert_eq!(e.code(), ErrorCode::Syntax);
    }
}
