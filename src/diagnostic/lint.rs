//! The lints: named warnings about input that works but probably does not say what was
//! meant, each at a level (`allow`, `warn`, `deny`) set on the command line or in a program.

use std::fmt;

/// A lint: a class of warning with a stable name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Lint {
    /// A tensor name defined again (the later definition wins).
    RedefinedTensor,
    /// A label written in a spec's result that no operand slot has: nothing sizes it, so it
    /// is 1 unless another step fixes it.
    UnsizedLabel,
    /// A parameter declared without its batch row took batch axes from its uses (a bias that
    /// became one per example).
    ParameterBatch,
    /// An open row that nothing sizes was closed to no axes (a guessed rank 0).
    GuessedRank,
    /// A dimension that nothing determines was closed to 1 (a guessed size).
    GuessedSize,
}

impl Lint {
    /// Every lint.
    pub const ALL: [Lint; 5] = [
        Lint::RedefinedTensor,
        Lint::UnsizedLabel,
        Lint::ParameterBatch,
        Lint::GuessedRank,
        Lint::GuessedSize,
    ];

    /// The stable name, as written in `--allow NAME` and `# einrow: allow(NAME)`, and as the
    /// code of its warnings.
    pub fn name(self) -> &'static str {
        match self {
            Lint::RedefinedTensor => "redefined-tensor",
            Lint::UnsizedLabel => "unsized-label",
            Lint::ParameterBatch => "parameter-batch",
            Lint::GuessedRank => "guessed-rank",
            Lint::GuessedSize => "guessed-size",
        }
    }

    /// The lint of a name; `None` for names outside the list.
    pub fn from_name(name: &str) -> Option<Lint> {
        Lint::ALL.into_iter().find(|l| l.name() == name)
    }

    /// What the lint warns of, in one line.
    pub fn summary(self) -> &'static str {
        match self {
            Lint::RedefinedTensor => "a tensor name is defined again; the later definition wins",
            Lint::UnsizedLabel => "a result label is in no operand slot, so nothing sizes it",
            Lint::ParameterBatch => "a parameter declared without a batch row took batch axes",
            Lint::GuessedRank => "an open row nothing sizes was closed to no axes",
            Lint::GuessedSize => "a dimension nothing determines was closed to 1",
        }
    }
}

impl fmt::Display for Lint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What a lint's warnings do.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Level {
    /// Not reported.
    Allow,
    /// Reported as a warning (the default).
    Warn,
    /// Reported as an error: the command fails.
    Deny,
}

impl Level {
    /// `allow`, `warn` or `deny`.
    pub fn name(self) -> &'static str {
        match self {
            Level::Allow => "allow",
            Level::Warn => "warn",
            Level::Deny => "deny",
        }
    }

    /// The level of a name.
    pub fn from_name(name: &str) -> Option<Level> {
        [Level::Allow, Level::Warn, Level::Deny].into_iter().find(|l| l.name() == name)
    }
}
