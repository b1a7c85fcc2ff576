//! Generator for numpy einsum steps in a graph (`numpy "ij,jk->ik" a b`): operands have output
//! rows only; a letter's occurrences are equal or the broadcast top `1!` (numpy's size-1
//! axes), repeats within one operand are equal, and each operand's `...` part broadcasts into
//! the result's. The result's witness takes, per letter, the one non-top occurrence.

use super::choices::Choices;
use super::pool::{Entry, Pool};
use crate::fuzzing::model::ConcreteDim;
use crate::fuzzing::rules::{join_dim, join_trailing};
use crate::infer::OpKind;

const LETTERS: &[u8] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";

/// A term being written: its text, and per letter the join of its occurrences so far.
struct Terms {
    letters: Vec<(char, ConcreteDim)>,
    ellipses: Vec<Vec<ConcreteDim>>,
    once: Vec<(char, usize)>,
}

impl Terms {
    /// The letter for an axis: one already standing for a joinable dim (sometimes), else new.
    fn letter(
        &mut self,
        ch: &mut Choices,
        d: &ConcreteDim,
        used_here: &[(char, ConcreteDim)],
    ) -> char {
        let fits = |(c, x): &(char, ConcreteDim)| {
            let here = used_here.iter().find(|(u, _)| u == c);
            join_dim(x, d).is_some() && here.is_none_or(|(_, y)| y == d)
        };
        let cands: Vec<char> = self.letters.iter().filter(|l| fits(l)).map(|(c, _)| *c).collect();
        let reuse = ch.below(3) == 1;
        let c = match ch.pick(&cands) {
            Some(c) if reuse => *c,
            _ => char::from(LETTERS[self.letters.len().min(LETTERS.len() - 1)]),
        };
        match self.letters.iter_mut().find(|(l, _)| *l == c) {
            Some((_, x)) => *x = join_dim(x, d).unwrap_or_else(|| x.clone()),
            None => self.letters.push((c, d.clone())),
        }
        match self.once.iter_mut().find(|(l, _)| *l == c) {
            Some((_, n)) => *n += 1,
            None => self.once.push((c, 1)),
        }
        c
    }

    /// The term for an operand's output row, with `...` over a middle stretch when `dots`
    /// (over the whole row when `whole`).
    fn term(&mut self, ch: &mut Choices, row: &[ConcreteDim], dots: bool, whole: bool) -> String {
        let n = row.len();
        let (l, t) = match (dots, whole) {
            (false, _) => (0, n),
            (true, true) => (0, 0),
            (true, false) => {
                let l = ch.below(n + 1);
                (l, ch.below(n - l + 1))
            }
        };
        let mut here: Vec<(char, ConcreteDim)> = Vec::new();
        let mut text = String::new();
        for (i, d) in row.iter().enumerate() {
            if dots && i == l {
                text.push_str("...");
            }
            if dots && i >= l && i < n - t {
                continue;
            }
            let c = self.letter(ch, d, &here);
            here.push((c, d.clone()));
            text.push(c);
        }
        if dots {
            if l == n {
                text.push_str("...");
            }
            self.ellipses.push(row[l..n - t].to_vec());
        }
        text
    }
}

/// A `numpy` step over one to three operands with output rows only.
pub fn numpy(p: &mut Pool, ch: &mut Choices) -> Option<usize> {
    let only_output = |e: &Entry| e.rows[0].is_empty() && e.rows[1].is_empty();
    let arity = 1 + ch.below(3);
    let avoid = p.cfg.avoid_known_issues;
    let mut terms = Terms { letters: Vec::new(), ellipses: Vec::new(), once: Vec::new() };
    let (mut args, mut texts) = (Vec::new(), Vec::new());
    for _ in 0..arity {
        let a = match p.pick(ch, only_output) {
            Some(a) => a,
            None => {
                let row = p.row(ch, 3);
                p.leaf(ch, [Vec::new(), Vec::new(), row])
            }
        };
        let e = p.entries[a].clone();
        if terms.letters.len() + e.rows[2].len() > LETTERS.len() {
            break; // no letters left for this operand
        }
        // An open row would meet letters beside `...` in a word equation: `...` alone. A row
        // with a leading flank would align its `...` left (a known issue): no `...`.
        let dots = ch.below(3) == 1 && !(avoid && e.lead[2]);
        texts.push(terms.term(ch, &e.rows[2], dots, avoid && e.open[2]));
        args.push(a);
    }
    numpy_result(p, ch, terms, args, texts)
}

/// The result row's witness, whether it has a leading flank, and whether it has a `...`.
struct Output {
    row: Vec<ConcreteDim>,
    lead: bool,
    dots: bool,
}

/// Implicit output: the ellipsis, then the letters seen once, in ASCII order.
fn implicit(terms: &Terms, ell: &[ConcreteDim]) -> Output {
    let mut once: Vec<char> = terms.once.iter().filter(|(_, n)| *n == 1).map(|(c, _)| *c).collect();
    once.sort_unstable();
    let mut row = ell.to_vec();
    row.extend(
        once.iter()
            .filter_map(|c| terms.letters.iter().find(|(l, _)| l == c))
            .map(|(_, d)| d.clone()),
    );
    Output { row, lead: false, dots: !terms.ellipses.is_empty() }
}

/// Explicit output (appended to `spec`): some letters in a random order, `...` somewhere when
/// an operand has one (sometimes also when none has).
fn explicit(ch: &mut Choices, terms: &Terms, ell: &[ConcreteDim], spec: &mut String) -> Output {
    let order = ch.permutation(terms.letters.len());
    let kept: Vec<usize> = order.into_iter().filter(|_| ch.below(4) != 3).collect();
    let dots_at = (!terms.ellipses.is_empty() || ch.one_in(4)).then(|| ch.below(kept.len() + 1));
    let mut out = Output { row: Vec::new(), lead: false, dots: dots_at.is_some() };
    spec.push_str("->");
    for (j, i) in kept.iter().enumerate() {
        if dots_at == Some(j) {
            spec.push_str("...");
            out.row.extend(ell.iter().cloned());
            out.lead = j > 0;
        }
        spec.push(terms.letters[*i].0);
        out.row.push(terms.letters[*i].1.clone());
    }
    if dots_at == Some(kept.len()) {
        spec.push_str("...");
        out.row.extend(ell.iter().cloned());
        out.lead = !kept.is_empty();
    }
    out
}

fn numpy_result(
    p: &mut Pool,
    ch: &mut Choices,
    terms: Terms,
    args: Vec<usize>,
    texts: Vec<String>,
) -> Option<usize> {
    if args.is_empty() {
        return None;
    }
    let mut ell: Vec<ConcreteDim> = Vec::new();
    for e in &terms.ellipses {
        ell = join_trailing(&ell, e)?;
    }
    let any_dots = !terms.ellipses.is_empty();
    let mut spec = texts.join(",");
    let out = if ch.below(3) == 0 {
        implicit(&terms, &ell)
    } else {
        explicit(ch, &terms, &ell, &mut spec)
    };
    let (row, lead, out_dots) = (out.row, out.lead, out.dots);
    // A soft `1!` or an open row among the operands may close to a cap (see `Pool::capped`).
    p.capped |= args.iter().any(|a| p.entries[*a].soft[2] || (p.entries[*a].open[2] && any_dots));
    let determined = p.determined(&args);
    // The result's `...` is a row the solver keeps open until closing.
    let open = [false, false, out_dots];
    let out = Entry {
        name: String::new(),
        rows: [Vec::new(), Vec::new(), row],
        lead: [false, false, lead],
        open,
        soft: [false; 3],
        determined,
    };
    Some(p.result(OpKind::Numpy, &args, Some(spec), out))
}
