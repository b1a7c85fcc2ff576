//! Java's number text: `Double.parseDouble` / `Float.parseFloat` input and `Double.toString` /
//! `Float.toString` output, plus Java's notions of whitespace (`trim`, `isWhitespace`).
//!
//! Parsing accepts Java's decimal grammar: an optional sign, then `NaN`, `Infinity`, or digits
//! with an optional point and exponent and an optional `f`/`F`/`d`/`D` suffix (`1.5f`, `.5`,
//! `5.`, `1e-3d`), and Java's hexadecimal floating-point form (`0x1.8p1`, `-0X.8P-2f`: hex
//! digits with an optional point, then a binary exponent, which is required). Rust's own
//! spellings (`inf`, `nan`) are not numbers here.
//!
//! Printing follows Java 19+: the shortest decimal that rounds back to the value (when that has
//! one digit, the closest two-digit decimal if it also rounds back), written plainly for
//! magnitudes in [10^-3, 10^7) and as `d.dddE±n` otherwise, with at least one fractional digit.

/// Java's `String.trim`: removes leading and trailing characters up to U+0020.
pub fn java_trim(s: &str) -> &str {
    s.trim_matches(|c: char| c <= ' ')
}

/// Java's `Character.isWhitespace`.
pub fn is_java_whitespace(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{b}'
            | '\u{c}'
            | '\r'
            | '\u{1c}'..='\u{1f}'
            | ' '
            | '\u{1680}'
            | '\u{2000}'..='\u{2006}'
            | '\u{2008}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// A number text checked against Java's grammar: sign, then the special word or the decimal
/// part without its type suffix.
enum JavaNumber<'a> {
    NaN,
    Infinity {
        negative: bool,
    },
    Decimal(&'a str),
    /// A hexadecimal floating-point number, already evaluated (sign included).
    Hex(f64),
}

fn classify(text: &str) -> Option<JavaNumber<'_>> {
    let s = java_trim(text);
    let (negative, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    match body {
        "NaN" => return Some(JavaNumber::NaN),
        "Infinity" => return Some(JavaNumber::Infinity { negative }),
        _ => {}
    }
    let unsuffixed = body.strip_suffix(['f', 'F', 'd', 'D']).unwrap_or(body);
    if let Some(hex) = unsuffixed.strip_prefix("0x").or_else(|| unsuffixed.strip_prefix("0X")) {
        let v = hex_float(hex)?;
        return Some(JavaNumber::Hex(if negative { -v } else { v }));
    }
    let decimal_len = s.len() - body.len() + unsuffixed.len();
    valid_decimal(unsuffixed).then(|| JavaNumber::Decimal(&s[..decimal_len]))
}

/// `digits [. digits?] | . digits`, then an optional `e[+-]digits`.
fn valid_decimal(s: &str) -> bool {
    let b = s.as_bytes();
    let mut i = 0;
    let int_digits = count_digits(b, &mut i);
    let mut frac_digits = 0;
    if b.get(i) == Some(&b'.') {
        i += 1;
        frac_digits = count_digits(b, &mut i);
    }
    if int_digits == 0 && frac_digits == 0 {
        return false;
    }
    if matches!(b.get(i), Some(b'e' | b'E')) {
        i += 1;
        if matches!(b.get(i), Some(b'+' | b'-')) {
            i += 1;
        }
        if count_digits(b, &mut i) == 0 {
            return false;
        }
    }
    i == b.len()
}

/// The value of `hexdigits [. hexdigits] (p|P) [+-] digits` (at least one hex digit). The
/// mantissa keeps 60 bits plus a sticky bit for what follows, so the conversion to f64 rounds
/// once, to nearest (results below the normal range may round twice).
fn hex_float(s: &str) -> Option<f64> {
    let (mantissa, exponent) = s.split_once(['p', 'P'])?;
    let exp_digits = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
    if exp_digits.is_empty() || !exp_digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Beyond any f64 range: saturate instead of overflowing the arithmetic below.
    let exp: i64 = exponent.parse::<i64>().unwrap_or(if exponent.starts_with('-') {
        -100_000
    } else {
        100_000
    });
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    let (mut m, mut e2, mut sticky) = (0u64, 0i64, false);
    for (i, c) in int.chars().chain(frac.chars()).enumerate() {
        let d = u64::from(c.to_digit(16)?);
        let fractional = i >= int.len();
        if m < 1 << 60 {
            m = m * 16 + d;
            e2 -= if fractional { 4 } else { 0 };
        } else {
            sticky |= d != 0;
            e2 += if fractional { 0 } else { 4 };
        }
    }
    let total = exp.clamp(-100_000, 100_000) + e2;
    Some(scale_by_two((m | u64::from(sticky)) as f64, total))
}

/// `x · 2^n`, in steps that stay inside f64's exponent range.
fn scale_by_two(mut x: f64, mut n: i64) -> f64 {
    while n > 1000 && x.is_finite() && x != 0.0 {
        x *= 2f64.powi(1000);
        n -= 1000;
    }
    while n < -1000 && x != 0.0 {
        x *= 2f64.powi(-1000);
        n += 1000;
    }
    x * 2f64.powi(n as i32)
}

fn count_digits(b: &[u8], i: &mut usize) -> usize {
    let start = *i;
    while b.get(*i).is_some_and(u8::is_ascii_digit) {
        *i += 1;
    }
    *i - start
}

/// Java's `Double.parseDouble`; `None` where Java throws `NumberFormatException`.
pub fn parse_double(text: &str) -> Option<f64> {
    match classify(text)? {
        JavaNumber::NaN => Some(f64::NAN),
        JavaNumber::Infinity { negative } => {
            Some(if negative { f64::NEG_INFINITY } else { f64::INFINITY })
        }
        JavaNumber::Decimal(d) => d.parse::<f64>().ok(),
        JavaNumber::Hex(v) => Some(v),
    }
}

/// Java's `Float.parseFloat` (rounds the decimal to float32 directly).
pub fn parse_float(text: &str) -> Option<f32> {
    match classify(text)? {
        JavaNumber::NaN => Some(f32::NAN),
        JavaNumber::Infinity { negative } => {
            Some(if negative { f32::NEG_INFINITY } else { f32::INFINITY })
        }
        JavaNumber::Decimal(d) => d.parse::<f32>().ok(),
        JavaNumber::Hex(v) => Some(v as f32),
    }
}

/// Java's `Double.toString`.
pub fn double_to_string(v: f64) -> String {
    if let Some(s) = special(v.is_nan(), v.is_infinite(), v == 0.0, v.is_sign_negative()) {
        return s.to_string();
    }
    let (digits, exp) = split_scientific(&format!("{:e}", v.abs()));
    let (digits, exp) = if digits.len() == 1 {
        two_digit_choice(&format!("{:.1e}", v.abs()), |t| t.parse::<f64>().ok() == Some(v.abs()))
            .unwrap_or((digits, exp))
    } else {
        (digits, exp)
    };
    layout(v < 0.0, &digits, exp)
}

/// Java's `Float.toString`.
pub fn float_to_string(v: f32) -> String {
    if let Some(s) = special(v.is_nan(), v.is_infinite(), v == 0.0, v.is_sign_negative()) {
        return s.to_string();
    }
    let (digits, exp) = split_scientific(&format!("{:e}", v.abs()));
    let (digits, exp) = if digits.len() == 1 {
        two_digit_choice(&format!("{:.1e}", v.abs()), |t| t.parse::<f32>().ok() == Some(v.abs()))
            .unwrap_or((digits, exp))
    } else {
        (digits, exp)
    };
    layout(v < 0.0, &digits, exp)
}

fn special(nan: bool, inf: bool, zero: bool, negative: bool) -> Option<&'static str> {
    match (nan, inf, zero, negative) {
        (true, ..) => Some("NaN"),
        (_, true, _, false) => Some("Infinity"),
        (_, true, _, true) => Some("-Infinity"),
        (_, _, true, false) => Some("0.0"),
        (_, _, true, true) => Some("-0.0"),
        _ => None,
    }
}

/// Splits Rust's `{:e}` output (`1.2345e-7`) into the digit string and the decimal exponent of
/// the first digit, dropping trailing zeros.
fn split_scientific(s: &str) -> (String, i32) {
    let (mantissa, exp) = s.split_once('e').unwrap_or((s, "0"));
    let mut digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    while digits.len() > 1 && digits.ends_with('0') {
        digits.pop();
    }
    (digits, exp.parse().unwrap_or(0))
}

/// Java picks, when the shortest decimal has one digit, the two-digit decimal closest to the
/// value if that also rounds back to it.
fn two_digit_choice(rounded: &str, round_trips: impl Fn(&str) -> bool) -> Option<(String, i32)> {
    round_trips(rounded).then(|| split_scientific(rounded))
}

/// Writes `digits × 10^exp` (first digit at `exp`) the way Java does.
fn layout(negative: bool, digits: &str, exp: i32) -> String {
    let mut out = String::with_capacity(digits.len() + 8);
    if negative {
        out.push('-');
    }
    let n = digits.len();
    if (-3..7).contains(&exp) {
        if exp >= 0 {
            let int_len = exp as usize + 1;
            if n <= int_len {
                out.push_str(digits);
                out.extend(std::iter::repeat_n('0', int_len - n));
                out.push_str(".0");
            } else {
                let (int, frac) = digits.split_at(int_len);
                out.push_str(int);
                out.push('.');
                out.push_str(frac);
            }
        } else {
            out.push_str("0.");
            out.extend(std::iter::repeat_n('0', (-exp - 1) as usize));
            out.push_str(digits);
        }
    } else {
        let (first, rest) = digits.split_at(digits.len().min(1));
        out.push_str(first);
        out.push('.');
        out.push_str(if rest.is_empty() { "0" } else { rest });
        out.push('E');
        out.push_str(&exp.to_string());
    }
    out
}
