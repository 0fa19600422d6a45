//! Units: integer nanoseconds for time, bits per second for rates, bytes for sizes.
//!
//! Scenario files write these as strings with a unit ("45ms", "10Mbps", "64KB"). Parsing is exact
//! decimal arithmetic (no floating point), so "1.5Mbps" is exactly 1 500 000 bit/s, and a
//! wrong or missing unit is an error that lists the units allowed.

use serde::de::{self, Deserializer, Visitor};
use serde::Deserialize;
use std::fmt;

/// An instant of simulated time, nanoseconds since the start of the run.
pub type SimTime = u64;

/// Nanoseconds per second.
pub const NS_PER_S: u64 = 1_000_000_000;

/// Converts nanoseconds to seconds for reporting only (never used in the event queue).
#[inline]
pub fn ns_to_s(ns: u64) -> f64 {
    ns as f64 / NS_PER_S as f64
}

/// A non-negative span of simulated time in nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

impl SimDuration {
    pub const fn from_nanos(ns: u64) -> Self {
        SimDuration(ns)
    }
    pub const fn from_millis(ms: u64) -> Self {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> Self {
        SimDuration(s * NS_PER_S)
    }
    pub const fn as_nanos(self) -> u64 {
        self.0
    }
    pub fn as_secs_f64(self) -> f64 {
        ns_to_s(self.0)
    }
}

/// The longest span a scenario may give, 10⁷ s (about 116 days). It keeps every time the engine
/// computes far inside `u64` nanoseconds (1.8·10¹⁹ ns, 584 years): an event is scheduled at the
/// current time (at most the run's duration) plus one span (a delay, a timer bounded by `max_rto`,
/// a start offset, which validation keeps in this range too) or one serialization time (at most
/// 65 kB at 1 bit/s, 5.3·10⁵ s), so no sum exceeds 2.1·10¹⁶ ns, a thousandth of the range.
pub const MAX_DURATION_NS: u64 = 10_000_000 * NS_PER_S;

/// The fastest rate a scenario may give, 1 Tb/s: a rate times a duration in bits
/// (10¹² · 10⁷ = 10¹⁹) still fits a `u64`.
pub(crate) const MAX_RATE_BPS: u64 = 1_000_000_000_000;

/// The largest size a scenario may give, 10¹⁵ bytes (1 PB, 8 000 s at 1 Tb/s): byte counts and
/// sequence numbers (`u64`) stay far from wrapping.
pub(crate) const MAX_SIZE_BYTES: u64 = 1_000_000_000_000_000;

/// A data rate in bits per second.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct DataRate(pub u64);

impl DataRate {
    pub const fn bps(self) -> u64 {
        self.0
    }
    /// Time to serialize `bytes` at this rate, rounded up to the next nanosecond.
    /// Caller guarantees a non-zero rate.
    #[inline]
    pub fn tx_time_ns(self, bytes: u32) -> u64 {
        // bytes·8·10⁹ fits in a u64 below 2³¹ bytes (every packet): a 64-bit division is several
        // times cheaper than the 128-bit one, which remains for the general case. Same result.
        if bytes < 1 << 31 {
            return (bytes as u64 * 8 * NS_PER_S).div_ceil(self.0);
        }
        let bits = bytes as u128 * 8 * NS_PER_S as u128;
        bits.div_ceil(self.0 as u128) as u64
    }
}

/// A size in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ByteSize(pub u64);

/// Parses "<decimal><unit>" exactly, scaling by the unit's multiplier given as a power of ten
/// (time, rate) or an integer (bytes). Returns the integer value or a message naming the units.
fn parse_scaled(text: &str, units: &[(&str, u64)], what: &str, max: u64) -> Result<u64, String> {
    let s = text.trim();
    let allowed = units.iter().map(|(u, _)| *u).collect::<Vec<_>>().join(", ");
    if s.starts_with('-') {
        return Err(format!("{what} '{text}' must not be negative"));
    }
    let split = s
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .ok_or_else(|| format!("{what} '{text}' has no unit (allowed units: {allowed})"))?;
    let (num, unit) = s.split_at(split);
    let unit = unit.trim();
    let mult = units
        .iter()
        .find(|(u, _)| *u == unit)
        .map(|(_, m)| *m)
        .ok_or_else(|| format!("{what} '{text}' has unknown unit '{unit}' (allowed units: {allowed})"))?;
    let (int_part, frac_part) = match num.split_once('.') {
        Some((i, f)) => (i, f),
        None => (num, ""),
    };
    if int_part.is_empty() && frac_part.is_empty() || frac_part.contains('.') {
        return Err(format!("{what} '{text}' is not a number followed by a unit (allowed units: {allowed})"));
    }
    // The bound in the largest unit that writes it as a whole number.
    let overflow = || {
        let (u, m) = units.iter().find(|(_, m)| max.is_multiple_of(*m)).expect("the smallest unit is 1");
        format!("{what} '{text}' is out of range (allowed: 0{u} to {}{u})", max / m)
    };
    let int_val: u128 = if int_part.is_empty() { 0 } else { int_part.parse().map_err(|_| overflow())? };
    let mut value = int_val.checked_mul(mult as u128).ok_or_else(overflow)?;
    // Fraction: value += frac * mult / 10^len, which must be an integer. Trailing zeros change
    // nothing ("2.000…0s" with 42 zeros is 2 s exactly), so they go first: 10^42 is beyond u128.
    // What is left ends in a non-zero digit, so beyond 19 digits (every unit is at most 10^9 of
    // the smallest) it is finer than the resolution, however long it is.
    let frac_part = frac_part.trim_end_matches('0');
    if frac_part.len() > 19 {
        return Err(format!("{what} '{text}' is finer than the unit resolution (1 {})", units.last().map(|u| u.0).unwrap_or("")));
    }
    if !frac_part.is_empty() {
        let frac_val: u128 = frac_part.parse().map_err(|_| overflow())?;
        let denom = 10u128.checked_pow(frac_part.len() as u32).ok_or_else(overflow)?;
        let scaled = frac_val.checked_mul(mult as u128).ok_or_else(overflow)?;
        if scaled % denom != 0 {
            return Err(format!("{what} '{text}' is finer than the unit resolution (1 {})", units.last().map(|u| u.0).unwrap_or("")));
        }
        value += scaled / denom;
    }
    match u64::try_from(value) {
        Ok(v) if v <= max => Ok(v),
        _ => Err(overflow()),
    }
}

const TIME_UNITS: &[(&str, u64)] = &[("s", NS_PER_S), ("ms", 1_000_000), ("us", 1_000), ("ns", 1)];
const RATE_UNITS: &[(&str, u64)] = &[("Gbps", 1_000_000_000), ("Mbps", 1_000_000), ("kbps", 1_000), ("bps", 1)];
const SIZE_UNITS: &[(&str, u64)] = &[("GB", 1_000_000_000), ("MB", 1_000_000), ("KB", 1_000), ("B", 1)];

impl std::str::FromStr for SimDuration {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse_scaled(s, TIME_UNITS, "duration", MAX_DURATION_NS).map(SimDuration)
    }
}
impl std::str::FromStr for DataRate {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse_scaled(s, RATE_UNITS, "rate", MAX_RATE_BPS).map(DataRate)
    }
}
impl std::str::FromStr for ByteSize {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        parse_scaled(s, SIZE_UNITS, "size", MAX_SIZE_BYTES).map(ByteSize)
    }
}

/// Deserializes a unit-bearing string; a bare number is refused because its unit would be a guess.
struct UnitVisitor<T>(&'static str, std::marker::PhantomData<T>);

impl<'de, T: std::str::FromStr<Err = String>> Visitor<'de> for UnitVisitor<T> {
    type Value = T;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a {} string with a unit", self.0)
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<T, E> {
        v.parse().map_err(E::custom)
    }
    fn visit_i64<E: de::Error>(self, v: i64) -> Result<T, E> {
        Err(E::custom(format!(
            "{} {v} needs a unit, written as a string such as \"{v}{}\" (allowed units: {})",
            self.0,
            base_unit(self.0),
            units_of(self.0)
        )))
    }
    fn visit_u64<E: de::Error>(self, v: u64) -> Result<T, E> {
        self.visit_i64(v as i64)
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<T, E> {
        Err(E::custom(format!(
            "{} {v} needs a unit, written as a string such as \"{v}{}\" (allowed units: {})",
            self.0,
            base_unit(self.0),
            units_of(self.0)
        )))
    }
}

/// The unit in which a bare number would mean itself (s, bps, B), for the hint.
fn base_unit(what: &str) -> &'static str {
    match what {
        "duration" => "s",
        "rate" => "bps",
        _ => "B",
    }
}

fn units_of(what: &str) -> String {
    let units = match what {
        "duration" => TIME_UNITS,
        "rate" => RATE_UNITS,
        _ => SIZE_UNITS,
    };
    units.iter().map(|u| u.0).collect::<Vec<_>>().join(", ")
}

macro_rules! unit_deserialize {
    ($t:ty, $what:expr) => {
        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                d.deserialize_any(UnitVisitor::<$t>($what, std::marker::PhantomData))
            }
        }
    };
}
unit_deserialize!(SimDuration, "duration");
unit_deserialize!(DataRate, "rate");
unit_deserialize!(ByteSize, "size");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_exact_decimals() {
        assert_eq!("45ms".parse::<SimDuration>().unwrap().0, 45_000_000);
        assert_eq!("1.5Mbps".parse::<DataRate>().unwrap().0, 1_500_000);
        assert_eq!("0.1s".parse::<SimDuration>().unwrap().0, 100_000_000);
        assert_eq!("64KB".parse::<ByteSize>().unwrap().0, 64_000);
        assert_eq!("10 Mbps".parse::<DataRate>().unwrap().0, 10_000_000);
    }

    /// Issue 39 item 17: a value written with more decimals than u128 can scale (10^42) is
    /// still read exactly: trailing zeros change nothing, and digits beyond the resolution are
    /// refused as finer than it, not as out of range.
    #[test]
    fn long_decimals_are_exact() {
        let two = format!("2.{}s", "0".repeat(42));
        assert_eq!(two.parse::<SimDuration>().unwrap().0, 2 * NS_PER_S);
        assert_eq!(format!("1.5{}Mbps", "0".repeat(60)).parse::<DataRate>().unwrap().0, 1_500_000);
        assert_eq!(format!("0.000000001{}s", "0".repeat(100)).parse::<SimDuration>().unwrap().0, 1);
        assert_eq!(format!("{}3ms", "0".repeat(80)).parse::<SimDuration>().unwrap().0, 3_000_000);
        let e = format!("2.{}1s", "0".repeat(41)).parse::<SimDuration>().unwrap_err();
        assert!(e.contains("finer than the unit resolution (1 ns)"), "{e}");
        let e = format!("2.{}1s", "0".repeat(10)).parse::<SimDuration>().unwrap_err();
        assert!(e.contains("finer than the unit resolution"), "{e}");
        // The largest value is still the bound, with or without trailing zeros.
        assert_eq!(format!("10000000.{}s", "0".repeat(50)).parse::<SimDuration>().unwrap().0, MAX_DURATION_NS);
        assert!(format!("10000000.{}1s", "0".repeat(8)).parse::<SimDuration>().unwrap_err().contains("out of range"));
    }

    #[test]
    fn rejects_bad_units_and_signs() {
        let e = "10Mbit".parse::<DataRate>().unwrap_err();
        assert!(e.contains("unknown unit 'Mbit'") && e.contains("Mbps"), "{e}");
        assert!("-5ms".parse::<SimDuration>().unwrap_err().contains("negative"));
        assert!("5".parse::<SimDuration>().unwrap_err().contains("no unit"));
        assert!("0.5ns".parse::<SimDuration>().unwrap_err().contains("resolution"));
    }

    #[test]
    fn refuses_values_beyond_the_ranges_that_keep_arithmetic_exact() {
        assert_eq!("10000000s".parse::<SimDuration>().unwrap().0, MAX_DURATION_NS);
        let e = "10000000.000000001s".parse::<SimDuration>().unwrap_err();
        assert_eq!(e, "duration '10000000.000000001s' is out of range (allowed: 0s to 10000000s)");
        // 584 years, which used to wrap silently, and beyond u64 altogether.
        assert!("18000000000s".parse::<SimDuration>().unwrap_err().contains("out of range"));
        assert!("99999999999999999999999s".parse::<SimDuration>().unwrap_err().contains("out of range"));
        assert_eq!("1000Gbps".parse::<DataRate>().unwrap().0, MAX_RATE_BPS);
        assert_eq!("1001Gbps".parse::<DataRate>().unwrap_err(), "rate '1001Gbps' is out of range (allowed: 0Gbps to 1000Gbps)");
        assert_eq!("1000000GB".parse::<ByteSize>().unwrap().0, MAX_SIZE_BYTES);
        assert!("1000001GB".parse::<ByteSize>().unwrap_err().contains("(allowed: 0GB to 1000000GB)"));
        // The bounds leave room: the latest event time the engine can form (end of run + a maximal
        // span + the serialization of 65 kB at 1 bit/s) is a thousandth of the u64 range.
        let latest = 2 * MAX_DURATION_NS + DataRate(1).tx_time_ns(65_080);
        assert!(latest < u64::MAX / 500, "{latest}");
    }

    #[test]
    fn tx_time_rounds_up() {
        // 1040 B at 2 Mb/s = 8320 bits / 2e6 = 4.16 ms exactly.
        assert_eq!(DataRate(2_000_000).tx_time_ns(1040), 4_160_000);
        // 1 B at 3 bit/s = 8/3 s, rounded up.
        assert_eq!(DataRate(3).tx_time_ns(1), 2_666_666_667);
    }

    proptest::proptest! {
        /// The 64-bit fast path equals exact 128-bit arithmetic on every size and rate.
        #[test]
        fn tx_time_matches_exact_arithmetic(bytes in proptest::prop_oneof![0u32..70_000, proptest::num::u32::ANY], bps in 1u64..=u64::MAX) {
            let exact = (bytes as u128 * 8 * NS_PER_S as u128).div_ceil(bps as u128) as u64;
            proptest::prop_assert_eq!(DataRate(bps).tx_time_ns(bytes), exact);
        }
    }
}
