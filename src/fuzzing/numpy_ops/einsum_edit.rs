//! Edits of einsum subscripts one step from valid: a letter added to or removed from an input
//! term, an output letter no input has, an output letter repeated, a `...` removed (or one
//! added where none was). Subscripts are edited as text, so any subscripts can be edited.

use crate::fuzzing::gen::Draw;

/// The input terms and the output (`None`: implicit) of subscripts.
fn split(subscripts: &str) -> (Vec<String>, Option<String>) {
    let (lhs, out) = match subscripts.split_once("->") {
        Some((l, o)) => (l, Some(o.to_string())),
        None => (subscripts, None),
    };
    (lhs.split(',').map(str::to_string).collect(), out)
}

fn join(terms: &[String], out: &Option<String>) -> String {
    let lhs = terms.join(",");
    match out {
        Some(o) => format!("{lhs}->{o}"),
        None => lhs,
    }
}

fn letters(text: &str) -> Vec<char> {
    text.chars().filter(char::is_ascii_alphabetic).collect()
}

/// A letter that none of the subscripts uses.
fn unused_letter(subscripts: &str) -> char {
    let used = letters(subscripts);
    ('a'..='z').chain('A'..='Z').find(|c| !used.contains(c)).unwrap_or('z')
}

/// Positions in `term` between letters and around `...` where a letter can go.
fn slots(term: &str) -> Vec<usize> {
    let mut out = vec![0];
    let mut i = 0;
    while i < term.len() {
        i += if term[i..].starts_with("...") {
            3
        } else {
            term[i..].chars().next().map_or(1, char::len_utf8)
        };
        out.push(i);
    }
    out
}

/// One edit of `subscripts`.
pub fn edit_subscripts(d: &mut dyn Draw, subscripts: &str) -> String {
    let (mut terms, mut out) = split(subscripts);
    let t = d.below(terms.len().max(1)).min(terms.len().saturating_sub(1));
    let all = letters(subscripts);
    match d.below(5) {
        0 => {
            let c = if !all.is_empty() && d.below(2) == 0 {
                all[d.below(all.len())]
            } else {
                unused_letter(subscripts)
            };
            let sl = slots(&terms[t]);
            let at = sl[d.below(sl.len())];
            terms[t].insert(at, c);
        }
        1 if !letters(&terms[t]).is_empty() => {
            let ls: Vec<usize> = terms[t]
                .char_indices()
                .filter(|(_, c)| c.is_ascii_alphabetic())
                .map(|(i, _)| i)
                .collect();
            terms[t].remove(ls[d.below(ls.len())]);
        }
        2 => out.get_or_insert_with(String::new).push(unused_letter(subscripts)),
        3 => {
            let o = out.get_or_insert_with(String::new);
            match letters(o).first().or(all.first()) {
                Some(&c) => {
                    o.push(c);
                    o.push(c);
                }
                None => o.push_str("ii"),
            }
        }
        _ => drop_dots(d, &mut terms, &mut out),
    }
    join(&terms, &out)
}

/// Removes `...` from the output, else from an input term, else adds one to the output.
fn drop_dots(d: &mut dyn Draw, terms: &mut [String], out: &mut Option<String>) {
    if let Some(o) = out.as_mut().filter(|o| o.contains("...")) {
        *o = o.replacen("...", "", 1);
        return;
    }
    let with: Vec<usize> = (0..terms.len()).filter(|&i| terms[i].contains("...")).collect();
    if with.is_empty() {
        out.get_or_insert_with(String::new).insert_str(0, "...");
    } else {
        let i = with[d.below(with.len())];
        terms[i] = terms[i].replacen("...", "", 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fuzzing::gen::Choices;

    #[test]
    fn edits_are_one_step_away() {
        let mut seen = std::collections::HashSet::new();
        for seed in 0..200u32 {
            let words: Vec<u32> =
                (0..8).map(|i| seed.wrapping_mul(2654435761).rotate_left(i)).collect();
            let e = edit_subscripts(&mut Choices::new(&words), "i...j,jk->...ik");
            assert_ne!(e, "i...j,jk->...ik");
            seen.insert(e);
        }
        assert!(seen.contains("i...j,jk->ik"), "{seen:?}");
        assert!(seen.len() > 10, "{seen:?}");
    }
}
