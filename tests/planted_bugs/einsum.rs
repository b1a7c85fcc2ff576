//! The toy framework's einsum shape rule, from numpy's documentation: labels broadcast
//! across operands (sizes equal or 1), a label repeated in a term takes the diagonal, `...`
//! axes broadcast right-aligned, the implicit output is `...` then the labels seen once in
//! ASCII order. With `drop_diagonal` (the planted bug), an explicit output leaves out every
//! label repeated in an input term.

use std::collections::BTreeMap;

fn broadcast(a: &[usize], b: &[usize]) -> Result<Vec<usize>, String> {
    let n = a.len().max(b.len());
    let at = |s: &[usize], i: usize| if i + s.len() >= n { s[i + s.len() - n] } else { 1 };
    (0..n)
        .map(|i| match (at(a, i), at(b, i)) {
            (x, y) if x == y || y == 1 => Ok(x),
            (1, y) => Ok(y),
            (x, y) => Err(format!("cannot broadcast {x} and {y}")),
        })
        .collect()
}

/// The result shape of `np.einsum(subscripts, *operands)` for operands of these shapes.
pub fn einsum(
    subscripts: &str,
    shapes: &[&[usize]],
    drop_diagonal: bool,
) -> Result<Vec<usize>, String> {
    let (lhs, out) = match subscripts.split_once("->") {
        Some((l, o)) => (l, Some(o)),
        None => (subscripts, None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != shapes.len() {
        return Err("operand count".into());
    }
    let mut sizes: BTreeMap<char, usize> = BTreeMap::new();
    let mut ell: Vec<usize> = Vec::new();
    for (t, s) in terms.iter().zip(shapes) {
        let (head, tail, dots) = match t.split_once("...") {
            Some((h, tl)) => (h, tl, true),
            None => (*t, "", false),
        };
        let (nh, nt) = (head.len(), tail.len());
        if s.len() < nh + nt || (!dots && s.len() != nh) {
            return Err(format!("term {t} does not fit {s:?}"));
        }
        ell = broadcast(&ell, &s[nh..s.len() - nt])?;
        let pairs = head.chars().zip(&s[..nh]).chain(tail.chars().zip(&s[s.len() - nt..]));
        let mut own: BTreeMap<char, usize> = BTreeMap::new();
        for (c, &d) in pairs {
            if !c.is_ascii_alphabetic() || own.insert(c, d).is_some_and(|e| e != d) {
                return Err(format!("bad label or diagonal {c}"));
            }
            let l = sizes.entry(c).or_insert(1);
            if *l == 1 {
                *l = d;
            } else if d != 1 && d != *l {
                return Err(format!("label {c}: {l} against {d}"));
            }
        }
    }
    let letters: String = terms.concat().replace('.', "");
    let Some(out) = out else {
        let once = sizes.keys().filter(|c| letters.matches(**c).count() == 1);
        return Ok(ell.iter().copied().chain(once.map(|c| sizes[c])).collect());
    };
    if !ell.is_empty() && !out.contains("...") {
        return Err("output without ... while operands broadcast".into());
    }
    let (head, tail) = out.split_once("...").unwrap_or((out, ""));
    let keep: Vec<char> = head.chars().chain(tail.chars()).collect();
    if keep.iter().enumerate().any(|(i, c)| keep[..i].contains(c) || !sizes.contains_key(c)) {
        return Err(format!("bad output {out}"));
    }
    let repeated = |c: &char| terms.iter().any(|t| t.matches(*c).count() > 1);
    let size = |c: char| sizes[&c];
    let part = |p: &str| -> Vec<usize> {
        p.chars().filter(|c| !(drop_diagonal && repeated(c))).map(size).collect()
    };
    let mid = if out.contains("...") { ell } else { Vec::new() };
    Ok([part(head), mid, part(tail)].concat())
}
