//! A [`PathReport`] as numpy's `einsum_path` table and as JSON.

use std::fmt;

use serde_json::{json, Value};

use super::report::PathReport;

/// A count in Python's `{:.3e}` form (`8.000e+05`).
fn sci(x: u128) -> String {
    let text = format!("{:.3e}", x as f64);
    match text.split_once('e') {
        Some((mantissa, exp)) => {
            let e: i32 = exp.parse().unwrap_or(0);
            let sign = if e < 0 { '-' } else { '+' };
            format!("{mantissa}e{sign}{:02}", e.abs())
        }
        None => text,
    }
}

/// A count as a JSON number (a float beyond `u64`).
fn number(x: u128) -> Value {
    match u64::try_from(x) {
        Ok(n) => json!(n),
        Err(_) => json!(x as f64),
    }
}

impl fmt::Display for PathReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_table(f, false)
    }
}

impl PathReport {
    /// The report exactly as numpy's `einsum_path` returns it: the table of [`Display`]
    /// without the path line, with numpy's count of the optimized FLOPs (one more than the sum
    /// over the contractions) and the speedup computed from that count.
    ///
    /// [`Display`]: std::fmt::Display
    ///
    /// ```
    /// use einrow::numpy::{einsum_path, Optimize, PathOptions};
    /// let shapes: [&[usize]; 3] = [&[2, 3], &[3, 4], &[4, 5]];
    /// let report = einsum_path("ij,jk,kl->il", &shapes, &PathOptions::new(Optimize::Greedy))?;
    /// let text = report.numpy_text();
    /// assert!(text.contains("  Optimized FLOP count:  1.810e+02\n"));
    /// assert!(text.ends_with("   3                   jl,ij->il                                   il->il"));
    /// # Ok::<(), einrow::numpy::EinsumError>(())
    /// ```
    pub fn numpy_text(&self) -> String {
        struct Numpy<'a>(&'a PathReport);
        impl fmt::Display for Numpy<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                self.0.write_table(f, true)
            }
        }
        Numpy(self).to_string()
    }

    /// The table; `numpy`: with numpy's FLOP count and without the path line.
    fn write_table(&self, f: &mut fmt::Formatter<'_>, numpy: bool) -> fmt::Result {
        let rule = "-".repeat(74);
        let opt = self.opt_flops().saturating_add(u128::from(numpy));
        let speedup = if numpy { self.naive_flops() as f64 / opt as f64 } else { self.speedup() };
        writeln!(f, "  Complete contraction:  {}", self.equation())?;
        writeln!(f, "         Naive scaling:  {}", self.naive_scaling())?;
        writeln!(f, "     Optimized scaling:  {}", self.opt_scaling())?;
        writeln!(f, "      Naive FLOP count:  {}", sci(self.naive_flops()))?;
        writeln!(f, "  Optimized FLOP count:  {}", sci(opt))?;
        writeln!(f, "   Theoretical speedup:  {speedup:.3}")?;
        writeln!(f, "  Largest intermediate:  {} elements", sci(self.largest_intermediate()))?;
        if !numpy {
            writeln!(f, "        Optimized path:  {:?} ({})", self.path(), self.strategy().name())?;
        }
        writeln!(f, "{rule}")?;
        writeln!(f, "{:>6} {:>24} {:>40}", "scaling", "current", "remaining")?;
        write!(f, "{rule}")?;
        for c in self.contractions() {
            write!(f, "\n{:>4}    {:>24} {:>40}", c.scaling, c.einsum, c.remaining)?;
        }
        Ok(())
    }
}

impl PathReport {
    /// The report as one JSON object: `path`, `naive_flops`, `opt_flops`, `speedup`,
    /// `largest_intermediate`, `naive_scaling`, `opt_scaling`, `equation`, `optimize` (the
    /// strategy asked for), `strategy` (the one used) and `contractions` (each with
    /// `positions`, `einsum`, `removed`, `scaling`, `flops`, `size`, `remaining`).
    ///
    /// ```
    /// use einrow::numpy::{einsum_path, PathOptions};
    /// let shapes: [&[usize]; 3] = [&[2, 3], &[3, 4], &[4, 5]];
    /// let json = einsum_path("ab,bc,cd->ad", &shapes, &PathOptions::default())?.to_json();
    /// assert_eq!(json["path"], serde_json::json!([[0, 1], [0, 1]]));
    /// assert_eq!(json["opt_flops"], 128);
    /// # Ok::<(), einrow::numpy::EinsumError>(())
    /// ```
    pub fn to_json(&self) -> Value {
        let contractions: Vec<Value> = self
            .contractions()
            .iter()
            .map(|c| {
                json!({
                    "positions": c.positions,
                    "einsum": c.einsum,
                    "removed": c.removed,
                    "scaling": c.scaling,
                    "flops": number(c.flops),
                    "size": number(c.size),
                    "remaining": c.remaining,
                })
            })
            .collect();
        json!({
            "equation": self.equation(),
            "optimize": self.requested(),
            "strategy": self.strategy().name(),
            "path": self.path(),
            "naive_flops": number(self.naive_flops()),
            "opt_flops": number(self.opt_flops()),
            "speedup": self.speedup(),
            "naive_scaling": self.naive_scaling(),
            "opt_scaling": self.opt_scaling(),
            "largest_intermediate": number(self.largest_intermediate()),
            "contractions": contractions,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_print_as_python_does() {
        assert_eq!(sci(800_000), "8.000e+05");
        assert_eq!(sci(0), "0.000e+00");
        assert_eq!(sci(1), "1.000e+00");
        assert_eq!(sci(u128::MAX), "3.403e+38");
    }
}
