//! Numbers as BLAST's tabular output and C's `printf` print them: E-values
//! and bit scores the way `blastp -outfmt 6` does, exponents as `%.2e`.

/// `x` as C's `printf("%.{digits}e")` prints it: `6.71e-68`, `1.00e+02`.
pub fn c_exponential(x: f64, digits: usize) -> String {
    let rust = format!("{x:.digits$e}");
    let (mantissa, exponent) = rust
        .split_once('e')
        .expect("`e` formatting has an exponent");
    let exponent: i32 = exponent.parse().expect("an integer exponent");
    let sign = if exponent < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exponent.abs())
}

/// An E-value as BLAST's tabular output prints it: `0.0` below 1e-180,
/// 3 significant digits with an exponent below 0.0009, then 3, 2, 1 and 0
/// decimals up to 0.1, 1, 10 and above.
///
/// ```
/// use host::output::blast_evalue;
/// assert_eq!(blast_evalue(6.7123e-68), "6.71e-68");
/// assert_eq!(blast_evalue(0.0014), "0.001");
/// assert_eq!(blast_evalue(0.25), "0.25");
/// assert_eq!(blast_evalue(1.23), "1.2");
/// assert_eq!(blast_evalue(15.4), "15");
/// assert_eq!(blast_evalue(0.0), "0.0");
/// ```
pub fn blast_evalue(e: f64) -> String {
    if e < 1e-180 {
        "0.0".into()
    } else if e < 0.0009 {
        c_exponential(e, 2)
    } else if e < 0.1 {
        format!("{e:.3}")
    } else if e < 1.0 {
        format!("{e:.2}")
    } else if e < 10.0 {
        format!("{e:.1}")
    } else {
        format!("{e:.0}")
    }
}

/// A bit score as BLAST's tabular output prints it: one decimal up to 99.9,
/// the whole part above (cut, not rounded: blastp prints 1441 for
/// 1441.8), an exponent above 99999, as BLAST+'s formatter has it (a
/// titin-sized self-hit of 59,689 bits prints 59689).
///
/// ```
/// use host::output::blast_bits;
/// assert_eq!(blast_bits(98.64), "98.6");
/// assert_eq!(blast_bits(209.9), "209");
/// assert_eq!(blast_bits(59_689.7), "59689");
/// assert_eq!(blast_bits(123_456.0), "1.235e+05");
/// ```
pub fn blast_bits(bits: f64) -> String {
    if bits > 99_999.0 {
        c_exponential(bits, 3)
    } else if bits > 99.9 {
        format!("{}", bits.trunc())
    } else {
        format!("{bits:.1}")
    }
}
