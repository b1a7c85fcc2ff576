//! Timing of repeated evaluations, shared by the benchmarks and the CLI's `--bench`.

use std::time::{Duration, Instant};

/// Timings of repeated runs of one computation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    /// Number of timed runs.
    pub runs: usize,
    /// The fastest run.
    pub best: Duration,
    /// The median run.
    pub median: Duration,
}

/// Runs `f` once to warm up, then at least `min_runs` times and until `min_time` has
/// passed (at most `max_runs` times); returns the timings, or the first error.
pub fn time_runs<E>(
    min_runs: usize,
    max_runs: usize,
    min_time: Duration,
    mut f: impl FnMut() -> Result<(), E>,
) -> Result<Timing, E> {
    f()?;
    let mut times = Vec::new();
    let start = Instant::now();
    while times.len() < max_runs.max(1)
        && (times.len() < min_runs.max(1) || start.elapsed() < min_time)
    {
        let t = Instant::now();
        f()?;
        times.push(t.elapsed());
    }
    times.sort_unstable();
    Ok(Timing { runs: times.len(), best: times[0], median: times[times.len() / 2] })
}
