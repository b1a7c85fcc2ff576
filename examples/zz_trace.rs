#[path = "../benches/support/transformer.rs"]
mod transformer;
fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(50);
    let (mut g, _, _) = transformer::build(n, transformer::Sizes::default()).unwrap();
    eprintln!("=== solve");
    g.solve().unwrap();
}
