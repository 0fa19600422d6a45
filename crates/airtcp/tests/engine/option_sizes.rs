//! `option_sizes = "ns2"` (ns-2.35's agents' option sizes) changes packet sizes on the wire only.

use airtcp::RunOutput;

/// Ten 1000-B segments with timestamps over a loss-free link, each ACKed at once (no SACK block
/// is ever needed), summed on the wire by hand:
/// - "rfc": data 20 + 20 + 12 + 1000 = 1052 B, ACKs 20 + 20 + 12 = 52 B: 10520 and 520 B.
/// - "ns2": data 40 + 10 + 1000 = 1050 B (tcp/tcp.cc `TcpAgent::headersize`, ts_option_size_ 10),
///   ACKs 40 B (tcp/tcp-sink.cc `TcpSink::ack`: the sink's packetSize_ 40, nothing for the echoed
///   timestamp): 10500 and 400 B.
fn scenario(option_sizes: &str) -> String {
    format!(
        r#"
duration = "2s"
nodes = ["S", "D"]
[[links]]
from = "S"
to = "D"
rate = "10Mbps"
delay = "1ms"
[[flows]]
kind = "tcp"
src = "S"
dst = "D"
bytes = "10000B"
sack = true
timestamps = true
option_sizes = "{option_sizes}"
"#
    )
}

fn wire(out: &RunOutput) -> (u64, u64, u64, u64) {
    let (fwd, back) = (&out.summary.links[0], &out.summary.links[1]);
    (fwd.packets_sent, fwd.bytes_sent, back.packets_sent, back.bytes_sent)
}

#[test]
fn timestamps_on_the_wire_under_both_sizes() {
    let rfc = airtcp::run(&scenario("rfc"), &airtcp::RunOptions::default()).map(Option::unwrap).unwrap();
    let ns2 = airtcp::run(&scenario("ns2"), &airtcp::RunOptions::default()).map(Option::unwrap).unwrap();
    assert_eq!(wire(&rfc), (10, 10 * 1052, 10, 10 * 52));
    assert_eq!(wire(&ns2), (10, 10 * 1050, 10, 10 * 40));
    // The default is "rfc": the same run without the key.
    let default =
        airtcp::run(&scenario("rfc").replace("option_sizes = \"rfc\"\n", ""), &airtcp::RunOptions::default()).map(Option::unwrap).unwrap();
    assert_eq!(wire(&default), wire(&rfc));
    // The same segments delivered either way.
    let (a, b) = (&rfc.summary.flows[0], &ns2.summary.flows[0]);
    assert_eq!((a.packets_sent, a.retransmissions), (b.packets_sent, b.retransmissions));
}

#[test]
fn a_bad_value_names_the_field_and_the_allowed_ones() {
    let e =
        airtcp::run(&scenario("ns-2"), &airtcp::RunOptions { check_only: true, ..Default::default() }).map(|_| ()).unwrap_err().to_string();
    assert!(e.starts_with("flows[0].option_sizes") && e.contains("rfc") && e.contains("ns2") && !e.contains('\n'), "{e}");
}

/// A capture writes real headers, which cannot carry ns-2's sizes: refused in one line.
#[test]
fn a_capture_is_refused_with_ns2_sizes() {
    let dir = std::env::temp_dir().join(format!("airtcp-option-sizes-{}", std::process::id()));
    let stop = std::sync::atomic::AtomicBool::new(false);
    let e = airtcp::run(&scenario("ns2"), &airtcp::RunOptions { capture: Some(&dir), interrupt: Some(&stop), ..Default::default() })
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("pcap:") && e.contains("option_sizes = \"ns2\"") && e.contains("\"rfc\""), "{e}");
    assert!(airtcp::run(&scenario("rfc"), &airtcp::RunOptions { capture: Some(&dir), interrupt: Some(&stop), ..Default::default() })
        .unwrap()
        .is_some());
    let _ = std::fs::remove_dir_all(&dir);
}
