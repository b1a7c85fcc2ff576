//! "Did you mean": the closest of some known names to a misspelt one.

/// The edit distance between two strings (insertions, deletions, substitutions and swaps of
/// two neighbouring characters each count 1), or `None` once it exceeds `most`. Linear memory;
/// names longer than 64 characters are compared only when equal.
pub fn edit_distance(a: &str, b: &str, most: usize) -> Option<usize> {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    if a.len() > 64 || b.len() > 64 {
        return (a == b).then_some(0);
    }
    if a.len().abs_diff(b.len()) > most {
        return None;
    }
    // Three rows of the dynamic programme: two back (for swaps), one back, current.
    let mut two_back: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(two_back[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut two_back, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    Some(prev[b.len()]).filter(|&d| d <= most)
}

/// The known name closest to `name`, when one is close enough to be a likely misspelling (at
/// most a third of its length, and at least one, edits away); ties go to the first candidate.
/// Names of one or two characters get no suggestion: every other short name is as close.
///
/// ```
/// use einrow::diagnostic::closest;
/// let ops = ["pointwise", "compose", "transpose", "einsum"];
/// assert_eq!(closest("pointwse", ops), Some("pointwise"));
/// assert_eq!(closest("einsun", ops), Some("einsum"));
/// assert_eq!(closest("matmul", ops), None);
/// assert_eq!(closest("x", ["y"]), None);
/// ```
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    if name.chars().count() < 3 {
        return None;
    }
    let most = (name.chars().count() / 3).max(1);
    let mut best: Option<(usize, &str)> = None;
    for c in candidates {
        if c == name {
            continue;
        }
        let limit = best.map_or(most, |(d, _)| d.saturating_sub(1));
        if let Some(d) = edit_distance(name, c, limit) {
            if best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, c));
            }
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::edit_distance;

    #[test]
    fn distances() {
        assert_eq!(edit_distance("kitten", "sitting", 5), Some(3));
        assert_eq!(edit_distance("ab", "ba", 3), Some(1));
        assert_eq!(edit_distance("", "abc", 3), Some(3));
        assert_eq!(edit_distance("abc", "abc", 0), Some(0));
        assert_eq!(edit_distance("abcdef", "a", 2), None);
        assert_eq!(edit_distance("pointwse", "pointwise", 2), Some(1));
    }
}
