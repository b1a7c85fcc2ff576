//! Shapes that broadcast: plain numpy broadcasting of several shapes, or shapes following a
//! signature whose terms share row variables (`..b..ij,..b..jk`: the `..b..` parts broadcast
//! as numpy broadcasts, each letter is one core axis of one size everywhere, as in a numpy
//! gufunc), with einrow's verdict: each row's broadcast, each letter's size, or the error.

use serde_json::{json, Value};

use super::builder::Builder;
use super::config::NpConfig;
use super::mutate::edit_shape;
use super::verdict::{broadcast_shapes, shape_text, Rejection};
use crate::code::ErrorCode;
use crate::fuzzing::gen::Draw;

/// One item of a signature term.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SigItem {
    /// A core axis.
    Letter(char),
    /// A row variable (`...` is named `...`).
    Row(String),
}

/// A signature: one term per shape, each of letters and at most one row variable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Signature {
    /// The terms.
    pub terms: Vec<Vec<SigItem>>,
}

impl Signature {
    /// Parses `..b..ij,..b..jk` (terms separated by commas; `...` or `..name..`, letters).
    ///
    /// ```
    /// use einrow::fuzzing::numpy_ops::Signature;
    /// assert_eq!(Signature::parse("..b..ij,...j").unwrap().terms.len(), 2);
    /// assert!(Signature::parse("..b..i..c..").is_err());
    /// ```
    pub fn parse(text: &str) -> Result<Signature, String> {
        let mut terms = Vec::new();
        for term in text.split(',') {
            let mut items = Vec::new();
            let mut rest = term.trim();
            while !rest.is_empty() {
                if let Some(r) = rest.strip_prefix("...") {
                    items.push(SigItem::Row("...".into()));
                    rest = r;
                } else if let Some(r) = rest.strip_prefix("..") {
                    let end =
                        r.find("..").ok_or_else(|| format!("{term:?}: an unclosed `..name..`"))?;
                    let name = &r[..end];
                    if name.is_empty()
                        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                    {
                        return Err(format!(
                            "{term:?}: a row variable's name is letters and digits"
                        ));
                    }
                    items.push(SigItem::Row(name.to_string()));
                    rest = &r[end + 2..];
                } else {
                    let c = rest.chars().next().unwrap_or(' ');
                    if !c.is_ascii_alphabetic() {
                        return Err(format!("{term:?}: {c:?} is not a letter"));
                    }
                    items.push(SigItem::Letter(c));
                    rest = &rest[1..];
                }
            }
            if items.iter().filter(|i| matches!(i, SigItem::Row(_))).count() > 1 {
                return Err(format!("{term:?}: a term has at most one row variable"));
            }
            terms.push(items);
        }
        Ok(Signature { terms })
    }

    fn plain(n: usize) -> Signature {
        Signature { terms: vec![vec![SigItem::Row("...".into())]; n] }
    }

    fn rows(&self) -> Vec<String> {
        let mut out: Vec<String> = Vec::new();
        for item in self.terms.iter().flatten() {
            if let SigItem::Row(r) = item {
                if !out.contains(r) {
                    out.push(r.clone());
                }
            }
        }
        out
    }
}

/// Shapes to broadcast, with or without a signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BroadcastCase {
    /// The signature (`None`: every shape is one row, numpy's plain broadcasting).
    pub signature: Option<Signature>,
    /// The shapes.
    pub shapes: Vec<Vec<usize>>,
}

/// einrow's verdict on a broadcast case.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Broadcast {
    /// The broadcast shape when there is one row variable (plain broadcasting: of the whole
    /// shapes).
    pub result: Option<Vec<usize>>,
    /// Each row variable's broadcast.
    pub rows: Vec<(String, Vec<usize>)>,
    /// Each letter's size.
    pub letters: Vec<(char, usize)>,
}

impl BroadcastCase {
    fn sig(&self) -> Signature {
        self.signature.clone().unwrap_or_else(|| Signature::plain(self.shapes.len()))
    }

    /// Draws `n` shapes (or one per term of `signature`) that broadcast.
    pub fn draw(
        cfg: &NpConfig,
        n: usize,
        signature: Option<Signature>,
        d: &mut dyn Draw,
    ) -> BroadcastCase {
        let b = Builder::new(cfg);
        let sig = signature.clone().unwrap_or_else(|| Signature::plain(n));
        let rows: Vec<(String, Vec<usize>)> =
            sig.rows().into_iter().map(|r| (r, b.shape(d, 0))).collect();
        let mut letters: Vec<(char, usize)> = Vec::new();
        let mut shapes = Vec::new();
        for term in &sig.terms {
            let mut s = Vec::new();
            for item in term {
                match item {
                    SigItem::Letter(c) => match letters.iter().find(|(l, _)| l == c) {
                        Some((_, size)) => s.push(*size),
                        None => {
                            let size = b.size(d);
                            letters.push((*c, size));
                            s.push(size);
                        }
                    },
                    SigItem::Row(r) => {
                        let full = rows.iter().find(|(n, _)| n == r).map_or(&[][..], |(_, v)| v);
                        let drop = d.below(full.len() + 1);
                        s.extend(full[drop..].iter().map(|&x| if d.one_in(4) { 1 } else { x }));
                    }
                }
            }
            shapes.push(s);
        }
        BroadcastCase { signature, shapes }
    }

    /// One shape edited: most often an axis facing a size other than 1 in the others' shapes
    /// set to another size (a conflict), else a generic edit (a size changed, an axis
    /// inserted, removed or swapped); an edit that still broadcasts is drawn again a few
    /// times.
    pub fn mutate(&self, cfg: &NpConfig, d: &mut dyn Draw) -> BroadcastCase {
        let b = Builder::new(cfg);
        let mut out = self.clone();
        for _ in 0..3 {
            out = self.clone();
            if out.shapes.is_empty() {
                return out;
            }
            let i = d.below(out.shapes.len());
            let conflict = if d.below(3) == 2 { None } else { self.conflict(&b, d, i) };
            out.shapes[i] = conflict.unwrap_or_else(|| edit_shape(&b, d, &self.shapes[i]));
            if out.verdict().is_err() {
                break;
            }
        }
        out
    }

    /// Shape `i` with an axis that faces a size other than 1 in another shape (right-aligned)
    /// set to a different size; `None` when no axis faces one.
    fn conflict(&self, b: &Builder, d: &mut dyn Draw, i: usize) -> Option<Vec<usize>> {
        let s = &self.shapes[i];
        let facing = |j: usize| -> Option<usize> {
            let from_end = s.len() - j;
            self.shapes
                .iter()
                .enumerate()
                .filter(|(k, o)| *k != i && o.len() >= from_end)
                .map(|(_, o)| o[o.len() - from_end])
                .find(|&x| x != 1)
        };
        let spots: Vec<(usize, usize)> =
            (0..s.len()).filter_map(|j| facing(j).map(|x| (j, x))).collect();
        let &(j, x) = spots.get(d.below(spots.len().max(1)))?;
        let mut t = s.clone();
        let new = b.solid_size(d);
        t[j] = if new == x { x + 1 } else { new };
        Some(t)
    }

    /// einrow's verdict: each row's broadcast and each letter's size, or the error.
    pub fn verdict(&self) -> Result<Broadcast, Rejection> {
        let sig = self.sig();
        if sig.terms.len() != self.shapes.len() {
            let msg = format!("{} shapes for {} terms", self.shapes.len(), sig.terms.len());
            return Err(Rejection::new(ErrorCode::Arity, msg));
        }
        let mut parts: Vec<(String, Vec<usize>)> = Vec::new();
        let mut letters: Vec<(char, usize)> = Vec::new();
        for (k, (term, s)) in sig.terms.iter().zip(&self.shapes).enumerate() {
            split_term(k, term, s, &mut parts, &mut letters)?;
        }
        let mut rows = Vec::new();
        for r in sig.rows() {
            let mine: Vec<&[usize]> =
                parts.iter().filter(|(n, _)| *n == r).map(|(_, p)| p.as_slice()).collect();
            let joined = broadcast_shapes(&mine)
                .map_err(|e| Rejection::new(e.code, format!("row {r}: {}", e.message)))?;
            rows.push((r, joined));
        }
        let result = match rows.as_slice() {
            [(_, only)] => Some(only.clone()),
            _ => None,
        };
        Ok(Broadcast { result, rows, letters })
    }

    /// The case as JSON, with einrow's verdict.
    pub fn to_json(&self) -> Value {
        let sig = self.signature.as_ref().map(|s| {
            s.terms
                .iter()
                .map(|t| {
                    t.iter()
                        .map(|i| match i {
                            SigItem::Letter(c) => c.to_string(),
                            SigItem::Row(r) if r == "..." => r.clone(),
                            SigItem::Row(r) => format!("..{r}.."),
                        })
                        .collect::<String>()
                })
                .collect::<Vec<_>>()
                .join(",")
        });
        let mut j = json!({ "signature": sig, "shapes": self.shapes });
        match self.verdict() {
            Ok(v) => {
                j["result"] = json!(v.result);
                j["rows"] = Value::Object(v.rows.into_iter().map(|(n, r)| (n, json!(r))).collect());
                j["letters"] = Value::Object(
                    v.letters.into_iter().map(|(c, s)| (c.to_string(), json!(s))).collect(),
                );
            }
            Err(r) => {
                j["error"] = json!(r.code.as_str());
                j["message"] = json!(r.message);
            }
        }
        j
    }
}

/// Matches shape `s` (operand `k`) to a term: its row part and letter sizes.
fn split_term(
    k: usize,
    term: &[SigItem],
    s: &[usize],
    parts: &mut Vec<(String, Vec<usize>)>,
    letters: &mut Vec<(char, usize)>,
) -> Result<(), Rejection> {
    let n_letters = term.iter().filter(|i| matches!(i, SigItem::Letter(_))).count();
    let row_at = term.iter().position(|i| matches!(i, SigItem::Row(_)));
    let fits = if row_at.is_some() { s.len() >= n_letters } else { s.len() == n_letters };
    if !fits {
        let msg = format!("shape {k} {} has the wrong number of axes for its term", shape_text(s));
        return Err(Rejection::new(ErrorCode::Rank, msg));
    }
    let lead = row_at.unwrap_or(n_letters);
    let tail = s.len() - (n_letters - lead);
    let sized = term[..lead]
        .iter()
        .zip(&s[..lead])
        .chain(term[lead + usize::from(row_at.is_some())..].iter().zip(&s[tail..]));
    for (item, &size) in sized {
        let SigItem::Letter(c) = item else { continue };
        match letters.iter().find(|(l, _)| l == c) {
            Some((_, x)) if *x != size => {
                let msg = format!("letter {c} is {x} and {size}");
                return Err(Rejection::new(ErrorCode::Mismatch, msg));
            }
            Some(_) => {}
            None => letters.push((*c, size)),
        }
    }
    if let Some(SigItem::Row(r)) = row_at.map(|i| &term[i]) {
        parts.push((r.clone(), s[lead..tail].to_vec()));
    }
    Ok(())
}
