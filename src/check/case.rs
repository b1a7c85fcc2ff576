//! What running one case produces.

/// The verdict of one case: `Ok` when it passed, else what differed.
pub type CaseOutcome = Result<(), String>;

/// One case's result, as `einrow check --json` prints it.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseResult {
    /// The file the case came from, as given to the runner.
    pub file: String,
    /// The case id.
    pub id: String,
    /// The case kind.
    pub kind: String,
    /// Whether the case passed.
    pub pass: bool,
    /// What differed (empty when it passed).
    pub detail: String,
}

impl CaseResult {
    /// The result as the JSON object of `einrow check --json`.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "file": self.file, "id": self.id, "kind": self.kind,
            "pass": self.pass, "detail": self.detail,
        })
    }
}
