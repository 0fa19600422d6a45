//! Shared scenario builders for the integration tests.
#![allow(dead_code)]

use airtcp::RunOutput;

/// Runs scenario text with `seed`; a scenario error fails the test, naming the field and showing the text.
pub fn run(text: &str, seed: u64) -> RunOutput {
    airtcp::run(text, &airtcp::RunOptions { seed: Some(seed), ..Default::default() })
        .map(Option::unwrap)
        .unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// The TCP-Jersey Fig. 10 path without flows: S –10 Mb/s, 45 ms– BS –2 Mb/s, 1 ms, uniform
/// loss– D, `buffer_pkts`-packet drop-tail queues, 10 s of warm-up. Tests append their own flow
/// tables, or take [`fig10`], and derive their variants with [`variant`].
pub fn fig10_path(loss: f64, buffer_pkts: u32, duration_s: u32) -> String {
    format!(
        r#"
name = "fig10"
duration = "{duration_s}s"
warmup = "10s"
nodes = ["S", "BS", "D"]

[[links]]
from = "S"
to = "BS"
rate = "10Mbps"
delay = "45ms"
queue = {{ kind = "droptail", limit_pkts = {buffer_pkts} }}

[[links]]
from = "BS"
to = "D"
rate = "2Mbps"
delay = "1ms"
queue = {{ kind = "droptail", limit_pkts = {buffer_pkts} }}
channel = {{ kind = "uniform", loss = {loss} }}
"#
    )
}

/// [`fig10_path`] with one bulk TCP flow "ftp" S → D: 1000-byte segments, `recovery` (SACK on
/// when it needs it), a 200-ms minimum RTO. `extra` is appended to the flow's table.
pub fn fig10(loss: f64, recovery: &str, buffer_pkts: u32, duration_s: u32, extra: &str) -> String {
    let sack = if airtcp::tcp::recovery::find(recovery).is_some_and(|r| r.needs_sack) { "sack = true" } else { "" };
    format!(
        r#"{}
[[flows]]
kind = "tcp"
name = "ftp"
src = "S"
dst = "D"
recovery = "{recovery}"
mss_bytes = 1000
min_rto = "200ms"
{sack}
{extra}
"#,
        fig10_path(loss, buffer_pkts, duration_s)
    )
}

/// `text` with `--set`-style overrides applied (`airtcp::scenario::overrides`, the rules of the
/// Python package's `apply_overrides`): a test derives its variant of a shared scenario instead of
/// copying the TOML.
pub fn variant(text: &str, sets: &[&str]) -> String {
    airtcp::scenario::overrides::apply_overrides(text, sets).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// Mean and sample standard deviation.
pub fn mean_sd(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (m, v.sqrt())
}
