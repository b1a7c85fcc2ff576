//! The hex forms of dense cells: big-endian IEEE bit patterns (bfloat16 = the top 16 bits of a
//! float32), two's complement bytes for int8, uppercase on output.

use super::cell::{bfloat16_truncate, CellType};
use super::error::{Result, VespaError};
use crate::span::Span;

/// Whether `token` is exactly `cells` values of `cell` in hex (the literal parser's test).
pub(crate) fn is_hex_of(token: &str, cells: usize, cell: CellType) -> bool {
    cells > 0
        && cells.checked_mul(cell.hex_digits()) == Some(token.len())
        && token.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Decodes `hex` as values `width` digits wide (2, 4, 8 or 16: int8, bfloat16, float,
/// double); the values are returned as they are, not yet narrowed to a target cell type.
/// A bad digit is a syntax error located inside `span` (which covers `hex`).
pub(crate) fn decode(hex: &str, width: usize, span: Span) -> Result<Vec<f64>> {
    if let Some((i, c)) = hex.char_indices().find(|(_, c)| !c.is_ascii_hexdigit()) {
        let at = span.start as usize + i;
        return Err(VespaError::syntax(
            Span::new(at, at + c.len_utf8()),
            format!("invalid hex digit '{c}' at index {i} in '{hex}'"),
        ));
    }
    let bytes = hex.as_bytes();
    let mut out = Vec::with_capacity(bytes.len() / width.max(1));
    for chunk in bytes.chunks_exact(width.max(1)) {
        let bits = chunk.iter().fold(0u64, |acc, b| (acc << 4) | u64::from(hex_value(*b)));
        out.push(match width {
            2 => f64::from(bits as u8 as i8),
            4 => f64::from(f32::from_bits((bits as u32) << 16)),
            8 => f64::from(f32::from_bits(bits as u32)),
            _ => f64::from_bits(bits),
        });
    }
    Ok(out)
}

fn hex_value(b: u8) -> u8 {
    match b {
        b'0'..=b'9' => b - b'0',
        b'a'..=b'f' => b - b'a' + 10,
        b'A'..=b'F' => b - b'A' + 10,
        _ => 0,
    }
}

/// Encodes values of type `cell` (already narrowed) as uppercase hex.
pub(crate) fn encode(values: &[f64], cell: CellType) -> String {
    let mut out = String::with_capacity(values.len() * cell.hex_digits());
    for v in values {
        let (bits, digits) = match cell {
            CellType::Double => (v.to_bits(), 16),
            CellType::Float => (u64::from((*v as f32).to_bits()), 8),
            CellType::BFloat16 => (u64::from(bfloat16_truncate(*v as f32).to_bits() >> 16), 4),
            CellType::Int8 => (u64::from(cell.narrow(*v) as i8 as u8), 2),
        };
        for k in (0..digits).rev() {
            let nibble = ((bits >> (4 * k)) & 0xf) as usize;
            out.push(char::from(b"0123456789ABCDEF"[nibble]));
        }
    }
    out
}
