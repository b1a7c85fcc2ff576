//! Reading the subcommands' input files: at most [`MAX_INPUT_BYTES`], so that a path such as
//! `/dev/zero` (or an endless pipe) is an error instead of a read that never ends.

use std::io::{self, Read};

/// The largest input file read (1 GiB; a program of a million steps is about 30 MB of text).
pub const MAX_INPUT_BYTES: u64 = 1 << 30;

/// The text of `path` (`-` for standard input), at most [`MAX_INPUT_BYTES`] long.
pub fn read_text(path: &str) -> io::Result<String> {
    let mut text = String::new();
    let read = if path == "-" {
        io::stdin().lock().take(MAX_INPUT_BYTES + 1).read_to_string(&mut text)
    } else {
        std::fs::File::open(path)?.take(MAX_INPUT_BYTES + 1).read_to_string(&mut text)
    }?;
    if read as u64 > MAX_INPUT_BYTES {
        return Err(io::Error::other(format!(
            "the input is longer than the limit of {MAX_INPUT_BYTES} bytes"
        )));
    }
    Ok(text)
}
