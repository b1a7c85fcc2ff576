//! A deterministic stream for test values: xorshift64 from a seed (made odd, so never zero).

/// The stream's words; tests map them to the values they need.
pub fn xorshift(seed: u64) -> impl Iterator<Item = u64> {
    let mut x = seed | 1;
    std::iter::repeat_with(move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    })
}
