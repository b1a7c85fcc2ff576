//! The peak memory of the running process, for the scale benchmarks (shared by
//! `examples/infer_scale.rs`, `examples/program_scale.rs` and `examples/hostile_scale.rs`
//! through `#[path]`).

/// The peak resident set of this process (`VmHWM`), in MiB.
pub fn peak_mib() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}
