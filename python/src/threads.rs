//! The kernel's threads for calls from Python (`einrow.set_num_threads(n)`), and kernel runs
//! without the GIL.

use std::sync::atomic::{AtomicUsize, Ordering};

use einrow::kernel::RunOptions;
use pyo3::prelude::*;

use crate::errors;

/// Work (points of the loop nests) from which the GIL is released while the kernel runs;
/// below it, releasing and taking the GIL back costs more than it lets other threads do.
pub const RELEASE_WORK: u128 = 1 << 15;

/// Runs `job`, without the GIL when its `work` reaches [`RELEASE_WORK`].
pub fn run_kernel<R: Send>(py: Python<'_>, work: u128, job: impl FnOnce() -> R + Send) -> R {
    if work >= RELEASE_WORK {
        py.detach(job)
    } else {
        job()
    }
}

/// 0: the default (every core rayon sees).
static THREADS: AtomicUsize = AtomicUsize::new(0);

/// The most threads accepted (far above any machine; a typo is an error, not a fork bomb).
const MAX_THREADS: usize = 4096;

/// The kernel options of a call.
pub fn run_options() -> RunOptions {
    let mut opts = RunOptions::default();
    match THREADS.load(Ordering::Relaxed) {
        0 => {}
        n => opts.threads = n,
    }
    opts
}

/// Sets the number of threads einrow's kernel may use (`None`: every core). numpy's own
/// einsum uses one; BLAS-backed paths follow the BLAS library's setting.
#[pyfunction]
#[pyo3(signature = (n = None))]
pub fn set_num_threads(py: Python<'_>, n: Option<usize>) -> PyResult<()> {
    match n {
        None => THREADS.store(0, Ordering::Relaxed),
        Some(n) if (1..=MAX_THREADS).contains(&n) => THREADS.store(n, Ordering::Relaxed),
        Some(n) => {
            let msg = format!("the thread count must be between 1 and {MAX_THREADS}, not {n}");
            return Err(errors::value_error(py, einrow::ErrorCode::Value, msg));
        }
    }
    Ok(())
}

/// The number of threads einrow's kernel uses.
#[pyfunction]
pub fn get_num_threads() -> usize {
    run_options().threads
}
