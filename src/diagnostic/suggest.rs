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

/// The relative edit distance between two names: the insertions and deletions that turn one
/// into the other (a substitution counts two, a swap of neighbours two) over their lengths
/// together, from 0 (equal) to 1 (nothing in common). It is `1 - r` for the ratio `r` of
/// Python's `difflib.SequenceMatcher` on an optimal alignment (the longest common
/// subsequence). Names longer than 64 characters are compared only when equal.
///
/// ```
/// use einrow::diagnostic::relative_distance;
/// assert_eq!(relative_distance("hdn", "hdn"), 0.0);
/// assert!((relative_distance("hid", "hdn") - 1.0 / 3.0).abs() < 1e-9);
/// assert_eq!(relative_distance("x", "y"), 1.0);
/// ```
pub fn relative_distance(a: &str, b: &str) -> f64 {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let total = a.len() + b.len();
    if total == 0 || a == b {
        return 0.0;
    }
    if a.len() > 64 || b.len() > 64 {
        return 1.0;
    }
    // The longest common subsequence, one row at a time.
    let mut prev = vec![0usize; b.len() + 1];
    let mut cur = vec![0usize; b.len() + 1];
    for x in &a {
        for (j, y) in b.iter().enumerate() {
            cur[j + 1] = if x == y { prev[j] + 1 } else { prev[j + 1].max(cur[j]) };
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    let common = prev[b.len()];
    (total - 2 * common) as f64 / total as f64
}

/// The relative distance ([`relative_distance`]) at most which a known name is suggested for
/// a misspelt one: `difflib.get_close_matches`' default cutoff (a ratio of 0.6).
pub const MAX_RELATIVE_DISTANCE: f64 = 0.4;

/// The known name closest to `name` by relative edit distance ([`relative_distance`]), when
/// one is within [`MAX_RELATIVE_DISTANCE`]: a likely misspelling (`hid` for `hdn`, two edits
/// in three letters, is; `x` for `y` is not). Ties go to the first candidate; a name of one
/// character gets no suggestion.
///
/// ```
/// use einrow::diagnostic::closest;
/// let ops = ["pointwise", "compose", "transpose", "einsum"];
/// assert_eq!(closest("pointwse", ops), Some("pointwise"));
/// assert_eq!(closest("einsun", ops), Some("einsum"));
/// assert_eq!(closest("matmul", ops), None);
/// assert_eq!(closest("hid", ["out", "hdn", "batch"]), Some("hdn"));
/// assert_eq!(closest("x", ["y"]), None);
/// ```
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let n = name.chars().count();
    if n < 2 {
        return None;
    }
    let mut best: Option<(f64, &str)> = None;
    for c in candidates {
        if c == name || c.chars().count().abs_diff(n) > n.max(2) {
            continue;
        }
        let d = relative_distance(name, c);
        if d <= MAX_RELATIVE_DISTANCE + 1e-12 && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::{closest, edit_distance, relative_distance};

    #[test]
    fn relative_distances_and_suggestions() {
        assert_eq!(relative_distance("", ""), 0.0);
        assert_eq!(relative_distance("abc", ""), 1.0);
        assert!((relative_distance("ab", "ba") - 0.5).abs() < 1e-9);
        // Two edits in three letters, and one in two (too far for short labels).
        assert_eq!(closest("hid", ["batch", "hdn", "out"]), Some("hdn"));
        assert_eq!(closest("ij", ["ik"]), None);
        assert_eq!(closest("weigth", ["input", "weight"]), Some("weight"));
        // The nearer of two wins; equal distances keep the first.
        assert_eq!(closest("acts", ["cats", "act"]), Some("act"));
        assert_eq!(closest("abcd", ["abce", "abcf"]), Some("abce"));
    }

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
