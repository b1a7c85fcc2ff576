//! The `view` kind.

use serde_json::Value;

use super::case::CaseOutcome;

/// Runs one `view` case.
pub fn run(_case: &Value) -> CaseOutcome {
    Err("unsupported kind \"view\"".into())
}
