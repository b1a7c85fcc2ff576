//! The ROWS JSON structure of the [case format](crate::check::format), printed by
//! `einrow parse --json`.
//!
//! A row is a list of axes: labels as strings, integers as numbers, row variables as
//! `"..name.."` (plain `...` named after its row kind), affine and concatenation axes in their
//! canonical text. Rows that are empty are left out.

use serde_json::{json, Map, Value};

use super::ast::{AxisKind, EinsumSpec, LabelsSpec, Row, RowKind, ShapeSpec};

fn axis_json(kind: &AxisKind) -> Value {
    match kind {
        AxisKind::Int(n) => json!(n),
        other => Value::String(other.to_string()),
    }
}

fn row_json(row: &Row, kind: RowKind) -> Value {
    let mut items: Vec<Value> = row.leading.iter().map(|a| axis_json(&a.kind)).collect();
    if let Some(e) = &row.ellipsis {
        items.push(Value::String(format!("..{}..", e.var_name(kind))));
    }
    items.extend(row.trailing.iter().map(|a| axis_json(&a.kind)));
    Value::Array(items)
}

impl ShapeSpec {
    /// The slot as a ROWS object (`{"batch": [...], "input": [...], "output": [...]}`).
    pub fn rows_json(&self) -> Value {
        let mut map = Map::new();
        for (kind, row) in self.rows() {
            if !row.is_empty() {
                map.insert(kind.name().to_string(), row_json(row, kind));
            }
        }
        Value::Object(map)
    }
}

impl LabelsSpec {
    /// `{"rows": ROWS, "multichar": bool}`.
    pub fn to_json(&self) -> Value {
        json!({ "rows": self.shape.rows_json(), "multichar": self.multichar })
    }
}

impl EinsumSpec {
    /// `{"rhs": [ROWS, ...], "lhs": ROWS, "multichar": bool}`.
    pub fn to_json(&self) -> Value {
        let rhs: Vec<Value> = self.rhs.iter().map(ShapeSpec::rows_json).collect();
        json!({ "rhs": rhs, "lhs": self.lhs.rows_json(), "multichar": self.multichar })
    }
}
