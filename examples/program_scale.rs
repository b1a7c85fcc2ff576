//! Scale benchmark of the program path behind `einrow infer FILE` and `einrow check`: a program
//! of N operations written as text is read ([`Program::parse_text`]), built and solved
//! ([`Program::build`]), and every tensor's shape is printed (to a sink), one child process per
//! size so that each peak-memory figure belongs to one size.
//!
//! ```text
//! cargo run --release --example program_scale -- 10000 100000 1000000
//! ```
//!
//! Two programs: `transformer`, the graph of `benches/support/transformer.rs` as program text
//! (parameters declared with row variables, einsum specs over the batch row), and `fan-in`, N
//! unary steps that all read one leaf (every operand is a name defined at the start). Times are
//! wall-clock; `cpu s` is the user + system time of the same span (10 ms ticks), steadier on a
//! shared machine.

use std::fmt::Write as _;
use std::io::Write as _;
use std::process::Command;
use std::time::Instant;

use einrow::infer::program::Program;

#[path = "../benches/support/peak.rs"]
mod peak;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, kind, n] = &args[..] {
        if let (true, Ok(n)) = (flag == "--child", n.parse()) {
            run_one(kind, n);
            return;
        }
    }
    let sizes: Vec<usize> = args.iter().filter_map(|a| a.parse().ok()).collect();
    let sizes = if sizes.is_empty() { vec![10_000, 100_000, 1_000_000] } else { sizes };
    let exe = std::env::current_exe().expect("the benchmark knows its own path");
    println!(
        "{:>11} {:>9} {:>9} {:>10} {:>9} {:>9} {:>8} {:>9}",
        "program", "ops", "parse ms", "build ms", "print ms", "total ms", "cpu s", "peak MiB"
    );
    for kind in ["transformer", "fan-in"] {
        let mut cpu = Vec::new();
        for n in &sizes {
            let args = ["--child", kind, &n.to_string()];
            let out = Command::new(&exe).args(args).output().expect("the child runs");
            let row = String::from_utf8_lossy(&out.stdout);
            print!("{row}");
            if !out.status.success() {
                eprintln!("{}", String::from_utf8_lossy(&out.stderr));
                std::process::exit(1);
            }
            cpu.push(row.split_whitespace().nth(6).and_then(|t| t.parse::<f64>().ok()));
        }
        for (w, c) in sizes.windows(2).zip(cpu.windows(2)) {
            if let [Some(a), Some(b)] = c {
                println!("{kind}: cpu({})/cpu({}) = {:.2}", w[1], w[0], b / a);
            }
        }
    }
}

/// Reads, builds, solves and prints one program; prints one table row.
fn run_one(kind: &str, n: usize) {
    let text = match kind {
        "transformer" => transformer(n),
        _ => fan_in(n),
    };
    let ops = text.lines().filter(|l| l.contains(" = ")).count();
    let cpu_start = cpu_seconds();
    let start = Instant::now();
    let program = Program::parse_text(&text).expect("the program reads");
    let parsed = start.elapsed();
    let built = program.build();
    assert!(built.result.is_ok(), "the program solves");
    let solved = start.elapsed();
    let g = built.graph;
    let mut sink = std::io::BufWriter::new(std::io::sink());
    for (name, id) in &built.names {
        let shape = g.shape_string(*id).expect("every tensor is sized");
        writeln!(sink, "{name}: {shape}").expect("the sink takes it");
    }
    let total = start.elapsed();
    let ms = |d: std::time::Duration| d.as_secs_f64() * 1e3;
    println!(
        "{kind:>11} {ops:>9} {:>9.1} {:>10.1} {:>9.1} {:>9.1} {:>8.2} {:>9.1}",
        ms(parsed),
        ms(solved - parsed),
        ms(total - solved),
        ms(total),
        cpu_seconds() - cpu_start,
        peak::peak_mib()
    );
}

/// The transformer graph of `benches/support/transformer.rs` (default sizes) as program text,
/// with at least `ops` operations (whole blocks of 24).
fn transformer(ops: usize) -> String {
    let (seq, vocab, d, heads, head_dim, hidden) = (16, 1000, 64, 4, 16, 256);
    let mut p = Text::default();
    let tokens = p.decl("tensor", &format!("...,{seq}|{vocab}"));
    let embed = p.decl("param", &format!("...->{d}"));
    let pos = p.decl("param", &format!("{seq}|{d}"));
    let e = p.op(&format!("compose {embed} {tokens}"));
    let mut x = p.op(&format!("pointwise {e} {pos}"));
    let mut count = 2;
    while count + 1 < ops {
        let n = norm(&mut p, &x);
        let heads_shape = format!("...->{heads},{head_dim}");
        let [wq, wk, wv] = [0; 3].map(|_| p.decl("param", &heads_shape));
        let wo = p.decl("param", "...->...");
        let [q, k, v] = [wq, wk, wv].map(|w| p.op(&format!("compose {w} {n}")));
        let scores = p.op(&format!(r#"einsum "...,s|h,k; ...,t|h,k => ...,s,t|h" {q} {k}"#));
        let exp = p.op(&format!("pointwise {scores}"));
        let total = p.op(&format!(r#"permute "...,s,t|h => ...,s|h" {exp}"#));
        let pr = p.op(&format!(r#"einsum "...,s,t|h; ...,s|h => ...,s,t|h" {exp} {total}"#));
        let mixed = p.op(&format!(r#"einsum "...,s,t|h; ...,t|h,k => ...,s|h,k" {pr} {v}"#));
        let a = p.op(&format!(r#"einsum "...|h,k; h,k->d => ...|d" {mixed} {wo}"#));
        x = p.op(&format!("pointwise {x} {a}"));
        let n = norm(&mut p, &x);
        let w1 = p.decl("param", &format!("...->{hidden}"));
        let [b1, w2, b2] = ["...", "...->...", "..."].map(|s| p.decl("param", s));
        let h = p.op(&format!("compose {w1} {n}"));
        let h = p.op(&format!("pointwise {h} {b1}"));
        let h = p.op(&format!("pointwise {h}"));
        let y = p.op(&format!("compose {w2} {h}"));
        let m = p.op(&format!("pointwise {y} {b2}"));
        x = p.op(&format!("pointwise {x} {m}"));
        count += 24;
    }
    let unembed = p.decl("param", &format!("...->{vocab}"));
    p.op(&format!("compose {unembed} {x}"));
    p.text
}

/// Layer-norm-like: 4 operations and 2 parameters.
fn norm(p: &mut Text, x: &str) -> String {
    let [gamma, beta] = [0; 2].map(|_| p.decl("param", "..."));
    let mean = p.op(&format!(r#"permute "...|d => ...|" {x}"#));
    let centred = p.op(&format!(r#"einsum "...|d; ...| => ...|d" {x} {mean}"#));
    let scaled = p.op(&format!("pointwise {centred} {gamma}"));
    p.op(&format!("pointwise {scaled} {beta}"))
}

/// `ops` unary steps that all read the first leaf.
fn fan_in(ops: usize) -> String {
    let mut text = String::from("tensor x: 2|3->4\n");
    for i in 0..ops {
        let _ = writeln!(text, "y{i} = pointwise_un x");
    }
    text
}

/// Program text with a fresh name per line.
#[derive(Default)]
struct Text {
    text: String,
    names: usize,
}

impl Text {
    fn fresh(&mut self) -> String {
        self.names += 1;
        format!("t{}", self.names)
    }

    fn decl(&mut self, keyword: &str, shape: &str) -> String {
        let name = self.fresh();
        let _ = writeln!(self.text, "{keyword} {name}: {shape}");
        name
    }

    fn op(&mut self, rhs: &str) -> String {
        let name = self.fresh();
        let _ = writeln!(self.text, "{name} = {rhs}");
        name
    }
}

/// User + system time of this process so far, in seconds.
fn cpu_seconds() -> f64 {
    // /proc/self/stat fields 14 and 15 (counted after the command name): utime and stime in
    // clock ticks of USER_HZ, which Linux fixes at 100 for this interface.
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let rest = stat.rsplit_once(')').map_or("", |(_, r)| r);
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| fields.get(i).and_then(|t| t.parse::<f64>().ok()).unwrap_or(f64::NAN);
    (ticks(11) + ticks(12)) / 100.0
}
