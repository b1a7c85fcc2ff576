//! The subcommands' output: standard output buffered and written as it is produced (results
//! are streamed, never built as one string first), and messages to standard error.
//!
//! A closed standard output (`einrow infer big.ein | head -1`) is not an error of the command:
//! the reader asked for no more, so the process ends at once, quietly, with the status the
//! command has reached so far ([`Out::set_status`]; 0 unless the command recorded a failure).
//! Any other write error on standard output is reported on standard error and ends the
//! process with status 1. Standard error is written without ever failing the command.

use std::fmt;
use std::io::{self, BufWriter, Stdout, Write};
use std::process::exit;

/// Buffered standard output with the closed-pipe rule of the module docs.
pub struct Out {
    w: BufWriter<Stdout>,
    status: u8,
}

impl Out {
    /// Standard output (sendable: `run` writes from inside its thread pool).
    pub fn stdout() -> Out {
        Out { w: BufWriter::with_capacity(1 << 16, io::stdout()), status: 0 }
    }

    /// The status the process ends with if standard output closes from now on.
    pub fn set_status(&mut self, status: u8) {
        self.status = status;
    }

    /// Writes formatted text (the target of `write!` / `writeln!`).
    pub fn write_fmt(&mut self, args: fmt::Arguments<'_>) {
        if let Err(e) = self.w.write_fmt(args) {
            self.fail(&e);
        }
    }

    /// Writes the buffered text out (before the command returns).
    pub fn flush(&mut self) {
        if let Err(e) = self.w.flush() {
            self.fail(&e);
        }
    }

    /// Ends the process after a failed write: quietly with the recorded status when the reader
    /// went away, else with status 1 after saying why.
    pub fn fail(&mut self, e: &io::Error) -> ! {
        if e.kind() == io::ErrorKind::BrokenPipe {
            exit(i32::from(self.status));
        }
        error(&format!("error[io]: writing to standard output: {e}"));
        exit(1);
    }
}

/// Streaming writers of the library write through this; their error comes back to the caller,
/// which ends the process with [`Out::fail`].
impl Write for Out {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.w.write(buf)
    }

    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.w.write_all(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.w.flush()
    }
}

/// Text writers of the library (`fmt::Write`) write through this; a failed write ends the
/// process as [`Out::fail`] says, so the writer never sees an error.
impl fmt::Write for Out {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if let Err(e) = self.w.write_all(s.as_bytes()) {
            self.fail(&e);
        }
        Ok(())
    }
}

/// Writes a message (ending in a newline unless it has one) to standard error; a failure to
/// write it is ignored.
pub fn error(message: &str) {
    let mut e = io::stderr().lock();
    let _ = e.write_all(message.as_bytes());
    if !message.ends_with('\n') {
        let _ = e.write_all(b"\n");
    }
}
