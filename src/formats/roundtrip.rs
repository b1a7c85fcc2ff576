//! Invariants of the format readers, checkable on any text (used by the `formats` fuzz target
//! and by tests): reading never panics, and whatever reads back prints to text that reads back
//! to the same value (Vespa types, literals, JSON for finite cells; TensorStore normal forms).

use super::{convert, tensorstore, vespa};

/// The most cells a tensor's round trips are checked on. The readers accept larger tensors (up
/// to 2^24 cells), but the invariants do not depend on the size, and the text of a short
/// literal like `tensor(x[10000000]):{}` takes seconds to print and read back four times.
pub const ROUNDTRIP_CELLS: usize = 1 << 16;

/// Checks the round-trip invariants on one text; `Err` describes a violation.
pub fn check_text(text: &str) -> Result<(), String> {
    if let Ok(ty) = vespa::TensorType::parse(text) {
        let again =
            vespa::TensorType::parse(&ty.to_string()).map_err(|e| format!("type {ty}: {e}"))?;
        same(&again.to_string(), &ty.to_string(), "canonical type")?;
    }
    if let Some(t) = vespa::Tensor::from_literal(text, None).ok().filter(printable) {
        let printed = t.to_text();
        let again =
            vespa::Tensor::from_literal(&printed, None).map_err(|e| format!("{printed}: {e}"))?;
        same(&again.to_text(), &printed, "printed literal")?;
        // Vespa's JSON writes NaN and infinities as `null`: only finite tensors round-trip.
        if t.cells().any(|(_, v)| !v.is_finite()) {
            return Ok(());
        }
        let json = vespa::encode_json(&t, vespa::EncodeOptions::default()).to_string();
        let decoded =
            vespa::decode_json(&json, Some(t.tensor_type())).map_err(|e| format!("{json}: {e}"))?;
        same(&decoded.to_text(), &printed, "JSON encoding")?;
    }
    if let Ok(ty) = vespa::TensorType::parse("tensor(x[2],y{})") {
        let _ = vespa::Tensor::from_literal(text, Some(&ty));
        let _ = vespa::decode_json(text, Some(&ty));
    }
    let _ = vespa::decode_json(text, None);
    if let Ok(v) = serde_json::from_str::<serde_json::Value>(text) {
        let _ = tensorstore::from_json::<tensorstore::IndexDomain>(&v);
        if let Ok(t) = tensorstore::from_json::<tensorstore::IndexTransform>(&v) {
            let written = tensorstore::to_json(&t);
            let again: tensorstore::IndexTransform =
                tensorstore::from_json(&written).map_err(|e| format!("{written}: {e}"))?;
            same(&tensorstore::to_json(&again).to_string(), &written.to_string(), "normal form")?;
        }
    }
    let _ = convert::read_tensor(text);
    Ok(())
}

/// Vespa's literal grammar has no escapes: a label holding both quote characters cannot be
/// written back. Tensors over [`ROUNDTRIP_CELLS`] are left out.
fn printable(t: &vespa::Tensor) -> bool {
    t.len() <= ROUNDTRIP_CELLS
        && !t
            .cells()
            .any(|(address, _)| address.iter().any(|l| l.contains('\'') && l.contains('"')))
}

fn same(a: &str, b: &str, what: &str) -> Result<(), String> {
    if a == b {
        Ok(())
    } else {
        Err(format!("{what} does not round-trip: {b:?} became {a:?}"))
    }
}
