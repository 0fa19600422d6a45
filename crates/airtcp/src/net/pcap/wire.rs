//! The bytes of a captured packet: IPv4 and TCP/UDP headers with every option the engine models,
//! the synthetic handshake's SYN and SYN-ACK, addresses and ports (the parent module's doc says
//! what each holds and why). Pure functions of a packet and its flow: the file handling lives in
//! the parent module, which calls these.

use crate::net::packet::{caiad_option_bytes, sack_option_bytes, Ecn, Packet, PacketKind, SackBlock, IP_HEADER_BYTES, TCP_HEADER_BYTES};

/// RFC 4727 experimental option kind used for CAIAD's corruption option and TCP HACK's header
/// checksum (told apart by their lengths, 6 and 4).
pub(crate) const EXPERIMENTAL_KIND_1: u8 = 253;
/// RFC 4727 experimental option kind used for CAIAD's No-Congestion option.
pub(crate) const EXPERIMENTAL_KIND_2: u8 = 254;
/// Port of every flow's receiving end: iperf's (5001), the tool whose bulk transfers and
/// constant-rate datagrams the scenarios' flows resemble. Wireshark 4.0 has no dissector on it,
/// so the missing payload reads as what it is, not as a malformed application message.
pub(crate) const RECEIVER_PORT: u16 = 5001;
/// First port of the IANA dynamic (ephemeral) range, RFC 6335 §6: flow f's sender uses
/// `EPHEMERAL_FIRST + f mod EPHEMERAL_PORTS`.
const EPHEMERAL_FIRST: u16 = 49152;
const EPHEMERAL_PORTS: u32 = 16384;
/// Initial sequence number of both ends of every TCP connection: 2³² − 1, so that the first
/// byte after the SYN is sequence number 0 and a data segment's raw sequence number stays the
/// engine's byte offset (modulo 2³²), as in `events.csv`; Wireshark's relative numbers start at
/// 1 as for any connection.
const ISN: u32 = u32::MAX;
/// RFC 7323 §2.3: a window scale shift is at most 14.
const MAX_WINDOW_SHIFT: u32 = 14;

/// What the capture writes of a TCP flow beyond its segments: the options its (synthetic)
/// handshake announces and the window every segment advertises.
#[derive(Debug, Clone)]
pub(crate) struct TcpFlowInfo {
    pub(crate) src: u32,
    pub(crate) dst: u32,
    /// Largest payload of a segment (`mss_bytes`): the MSS option's value.
    pub(crate) mss: u32,
    /// The receiver window (`rwnd_pkts × mss_bytes`), which the engine holds constant.
    pub(crate) rwnd_bytes: u64,
    pub(crate) sack: bool,
    pub(crate) timestamps: bool,
    pub(crate) ecn: bool,
    /// When the flow starts (its first segment's send time): the handshake's timestamps.
    pub(crate) start_ns: u64,
    /// The nodes the data segments cross (sender first) and the ACKs cross (receiver first).
    pub(crate) data_path: Vec<u32>,
    pub(crate) ack_path: Vec<u32>,
}

impl TcpFlowInfo {
    /// The window scale shift both ends announce: the smallest that lets the 16-bit window field
    /// carry the receiver window (as Linux picks it from its buffer, `tcp_select_initial_window`),
    /// at most 14; and the field's value, the window shifted right (RFC 7323 §2.3, which rounds
    /// down). A window above 65535 · 2¹⁴ bytes (RFC 7323's 1 GiB bound) is advertised as that.
    pub(super) fn window(&self) -> (u8, u16) {
        let shift = (0..=MAX_WINDOW_SHIFT).find(|&s| self.rwnd_bytes >> s <= 65535).unwrap_or(MAX_WINDOW_SHIFT);
        (shift as u8, (self.rwnd_bytes >> shift).min(65535) as u16)
    }

    /// Bytes of the SYN's and SYN-ACK's options: MSS, SACK-permitted and timestamps when on,
    /// window scale, laid out as Linux writes them (`tcp_options_write`).
    pub(super) fn syn_option_bytes(&self) -> usize {
        4 + if self.timestamps {
            12
        } else if self.sack {
            4
        } else {
            0
        } + 4
    }
}

/// IPv4 address of node `n`: 10.0.x.y with x.y = n + 1 (at most 10⁴ nodes, so it fits).
pub(crate) fn node_ip(n: u32) -> [u8; 4] {
    let v = n + 1;
    [10, (v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// Port of flow `f`'s sending end, in the IANA ephemeral range (flows `f` and `f + 16384`
/// between the same two hosts share their ports).
pub(crate) fn sender_port(f: u32) -> u16 {
    EPHEMERAL_FIRST + (f % EPHEMERAL_PORTS) as u16
}

/// RFC 1071 Internet checksum of `bytes` (an even number of them).
pub(super) fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

// Why the headers are written here and not by `etherparse`: what takes the lines is the TCP
// options, which must be exactly as many bytes as the engine counted in the packet's size, padded
// where it padded them, with RFC 4727 experimental kinds of lengths RFC 6994 does not foresee;
// etherparse takes such options only as raw bytes, so they would stay hand-written. What it would
// replace is the 20-byte IPv4 header and its RFC 1071 checksum (some 20 lines, checked by
// `headers_have_the_engine_sizes_and_read_back` and by tshark in the Python tests); its TCP
// checksum needs the payload, which is not captured. A dependency for 20 lines is not simpler.

/// Writes an IPv4 header (`len` bytes in all, ECN field `ecn`, Don't Fragment, TTL 64) from
/// `src` to `dst` into `out`, with its checksum.
pub(super) fn ipv4_header(len: u32, ecn: u8, ip_id: u16, proto: u8, src: u32, dst: u32, out: &mut Vec<u8>) {
    out.push(0x45);
    out.push(ecn);
    out.extend_from_slice(&(len.min(65535) as u16).to_be_bytes());
    out.extend_from_slice(&ip_id.to_be_bytes());
    out.extend_from_slice(&[0x40, 0]); // Don't Fragment
    out.push(64);
    out.push(proto);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&node_ip(src));
    out.extend_from_slice(&node_ip(dst));
    let c = checksum(&out[out.len() - 20..]);
    let n = out.len();
    out[n - 10..n - 8].copy_from_slice(&c.to_be_bytes());
}

/// Appends flow `flow`'s SYN (`syn_ack` false, sender → receiver) or SYN-ACK (receiver →
/// sender) to `out`: the options the flow uses (module doc), the receiver window unscaled (RFC
/// 7323 §2.2: a SYN's window is never scaled), ECN setup flags when the flow is ECN-capable
/// (RFC 3168 §6.1.1: ECE and CWR on the SYN, ECE on the SYN-ACK; both Not-ECT). The same bytes
/// in every file, whatever instant the record has there (`out` is cleared).
pub(crate) fn encode_handshake(t: &TcpFlowInfo, flow: u32, syn_ack: bool, out: &mut Vec<u8>) {
    out.clear();
    let opt = t.syn_option_bytes();
    let (src, dst) = if syn_ack { (t.dst, t.src) } else { (t.src, t.dst) };
    ipv4_header((IP_HEADER_BYTES + TCP_HEADER_BYTES) + opt as u32, 0, 0, 6, src, dst, out);
    let (sport, dport) = if syn_ack { (RECEIVER_PORT, sender_port(flow)) } else { (sender_port(flow), RECEIVER_PORT) };
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    out.extend_from_slice(&ISN.to_be_bytes());
    out.extend_from_slice(&(if syn_ack { ISN.wrapping_add(1) } else { 0 }).to_be_bytes());
    out.push((((TCP_HEADER_BYTES as usize + opt) / 4) as u8) << 4);
    // Flags: CWR 0x80, ECE 0x40, ACK 0x10, SYN 0x02.
    let ecn_flags = match (t.ecn, syn_ack) {
        (false, _) => 0,
        (true, false) => 0xc0,
        (true, true) => 0x40,
    };
    out.push(ecn_flags | if syn_ack { 0x12 } else { 0x02 });
    out.extend_from_slice(&(t.rwnd_bytes.min(65535) as u16).to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum (as every segment's, see the module doc), urgent pointer
    out.extend_from_slice(&[2, 4]);
    out.extend_from_slice(&(t.mss.min(65535) as u16).to_be_bytes());
    if t.timestamps {
        out.extend_from_slice(if t.sack { &[4, 2, 8, 10] } else { &[1, 1, 8, 10] });
        // Both ends' clocks (µs, as on every segment) at the flow's start; the SYN-ACK echoes the SYN's.
        let ts = (t.start_ns / 1000) as u32;
        out.extend_from_slice(&ts.to_be_bytes());
        out.extend_from_slice(&(if syn_ack { ts } else { 0 }).to_be_bytes());
    } else if t.sack {
        out.extend_from_slice(&[1, 1, 4, 2]);
    }
    out.extend_from_slice(&[1, 3, 3, t.window().0]);
}

/// Writes the headers of `p` (IPv4, then TCP with its options or UDP) into `out`; `sack` is its
/// SACK blocks (from the arena's side table), `win` the TCP window field (the flow's window,
/// scaled).
pub(crate) fn encode(p: &Packet, sack: &[SackBlock], ip_id: u16, win: u16, out: &mut Vec<u8>) {
    out.clear();
    let proto = if p.kind == PacketKind::Udp { 17 } else { 6 };
    let ecn = match p.ecn {
        Ecn::NotEct => 0,
        Ecn::Ect => 0b10, // ECT(0)
        Ecn::Ce => 0b11,
    };
    ipv4_header(p.size_bytes, ecn, ip_id, proto, p.src, p.dst, out);
    let data = p.kind == PacketKind::TcpData;
    let (sport, dport) =
        if data || p.kind == PacketKind::Udp { (sender_port(p.flow), RECEIVER_PORT) } else { (RECEIVER_PORT, sender_port(p.flow)) };
    out.extend_from_slice(&sport.to_be_bytes());
    out.extend_from_slice(&dport.to_be_bytes());
    if p.kind == PacketKind::Udp {
        out.extend_from_slice(&((p.size_bytes - IP_HEADER_BYTES).min(65535) as u16).to_be_bytes());
        out.extend_from_slice(&[0, 0]);
        return;
    }
    let h = &p.hdr;
    let payload = if data { p.len } else { 0 };
    // The option bytes the engine counted in the packet's size.
    let opt_len = p.size_bytes.saturating_sub(IP_HEADER_BYTES + TCP_HEADER_BYTES + payload).min(40) as usize;
    let (seq, ack) = if data { (h.number as u32, 0) } else { (0, h.number as u32) };
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&ack.to_be_bytes());
    out.push((((TCP_HEADER_BYTES as usize + opt_len) / 4) as u8) << 4);
    // Flags: CWR 0x80, ECE 0x40, ACK 0x10 (every segment after the handshake carries ACK).
    out.push(if p.cwr { 0x80 } else { 0 } | if h.ece { 0x40 } else { 0 } | 0x10);
    out.extend_from_slice(&win.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum (covers the payload, not captured), urgent pointer
    let start = out.len();
    if h.has_ts {
        out.extend_from_slice(&[1, 1, 8, 10]);
        out.extend_from_slice(&((h.ts_val / 1000) as u32).to_be_bytes());
        out.extend_from_slice(&((h.ts_ecr / 1000) as u32).to_be_bytes());
    }
    if !sack.is_empty() {
        let n = sack.len();
        let pad = sack_option_bytes(n) as usize - (2 + 8 * n);
        out.extend(std::iter::repeat_n(1u8, pad)); // NOPs first, as stacks align SACK
        out.extend_from_slice(&[5, (2 + 8 * n) as u8]);
        for b in sack {
            out.extend_from_slice(&(b.start as u32).to_be_bytes());
            out.extend_from_slice(&(b.end as u32).to_be_bytes());
        }
    }
    let caiad = caiad_option_bytes(h.corrupt_seq().is_some(), h.no_congestion) as usize;
    if caiad > 0 {
        let mut raw = 0;
        if let Some(s) = h.corrupt_seq() {
            out.extend_from_slice(&[EXPERIMENTAL_KIND_1, 6]);
            out.extend_from_slice(&(s as u32).to_be_bytes());
            raw += 6;
        }
        if h.no_congestion {
            out.extend_from_slice(&[EXPERIMENTAL_KIND_2, 3, 1]);
            raw += 3;
        }
        out.extend(std::iter::repeat_n(1u8, caiad - raw));
    }
    // What is left of the counted option bytes: TCP HACK's header checksum on a data segment of a
    // corruption-aware flow (4 bytes), else padding.
    let left = opt_len.saturating_sub(out.len() - start);
    if data && left >= 4 {
        out.extend_from_slice(&[EXPERIMENTAL_KIND_1, 4, 0, 0]);
    }
    let left = opt_len.saturating_sub(out.len() - start);
    out.extend(std::iter::repeat_n(0u8, left)); // end of option list
    out.truncate(start + opt_len);
}
