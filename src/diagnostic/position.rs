//! Positions in a text as editors count them: a line, a column in characters, a byte offset;
//! and columns as drawn in a terminal, where a tab advances to the next tab stop.

use serde::Serialize;

/// How far apart tab stops are when a line is drawn.
pub const TAB_WIDTH: usize = 4;

/// A position in a text: its line (from 1), its column (from 1, in characters) and its byte
/// offset into the text (from 0).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Position {
    /// The line, from 1.
    pub line: usize,
    /// The column, from 1, counted in characters (Unicode scalar values).
    pub column: usize,
    /// The byte offset into the text.
    pub byte: usize,
}

impl Position {
    /// The position of byte offset `byte` (clamped to the text, and back to a character
    /// boundary) in `text`, whose first line is line `first_line` (1 when `None`).
    pub fn of(text: &str, byte: usize, first_line: Option<usize>) -> Position {
        let mut byte = byte.min(text.len());
        while !text.is_char_boundary(byte) {
            byte -= 1;
        }
        let before = &text[..byte];
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let line = first_line.unwrap_or(1) + before.matches('\n').count();
        let column = text[line_start..byte].chars().count() + 1;
        Position { line, column, byte }
    }
}

/// The column (from 0) at which byte `byte` of a line is drawn: characters count one, a tab
/// advances to the next multiple of [`TAB_WIDTH`], a byte-order mark takes no room.
pub fn drawn_column(line: &str, byte: usize) -> usize {
    let mut col = 0;
    for (i, c) in line.char_indices() {
        if i >= byte {
            break;
        }
        col = match c {
            '\t' => (col / TAB_WIDTH + 1) * TAB_WIDTH,
            '\u{feff}' => col,
            _ => col + 1,
        };
    }
    col
}

/// A line as drawn: each tab replaced by the spaces to its tab stop.
pub fn drawn(line: &str) -> String {
    if !line.contains('\t') {
        return line.to_string();
    }
    let mut out = String::with_capacity(line.len() + 8);
    let mut col = 0;
    for c in line.chars() {
        match c {
            '\t' => {
                let next = (col / TAB_WIDTH + 1) * TAB_WIDTH;
                out.extend(std::iter::repeat_n(' ', next - col));
                col = next;
            }
            '\u{feff}' => out.push(c),
            _ => {
                out.push(c);
                col += 1;
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_characters_and_lines() {
        let p = Position::of("ab\ncé\tx", 7, Some(10));
        assert_eq!((p.line, p.column, p.byte), (11, 4, 7));
        assert_eq!(Position::of("é", 1, None).byte, 0);
        assert_eq!(Position::of("ab", 9, None).column, 3);
    }

    #[test]
    fn tabs_draw_to_their_stops() {
        assert_eq!(drawn("\tx = a"), "    x = a");
        assert_eq!(drawn_column("\tx = a", 1), 4);
        assert_eq!(drawn_column("ab\tc", 3), 4);
        assert_eq!(drawn_column("abcd\te", 5), 8);
        assert_eq!(drawn("ab\tc"), "ab  c");
    }
}
