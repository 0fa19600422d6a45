//! Packet capture: one classic libpcap file per link direction, as `tcpdump` on the link's
//! transmitting interface would write it, and a companion log of what a capture cannot show
//! (drops in the queue, losses and corruptions in the channel).
//!
//! Why at the transmitter: that is where a packet is on the wire. A packet the channel later loses
//! or corrupts was transmitted and is in the file; a packet the queue dropped never was, and is
//! not. The log names each such fate, so that the file and the log together account for every
//! packet the link was offered (`LinkSummary`'s balance).
//!
//! What a record holds (the `pcap-file` crate writes the format):
//! - link type `LINKTYPE_RAW` (101): an IPv4 header first, no link-layer header;
//! - nanosecond timestamps (magic `a1b23c4d`), the start of the packet's serialization (of its last
//!   attempt when the link's ARQ repaired it);
//! - the IPv4 header (ECN field from the packet), and the TCP header with every option the engine
//!   models, byte for byte as large as the engine counts it: timestamps (NOP, NOP, kind 8), SACK
//!   (kind 5), CAIAD's corruption option (kind 253, length 6: the corrupted segment's sequence
//!   number) and No-Congestion option (kind 254, length 3), TCP HACK's header checksum (kind 253,
//!   length 4) — 253 and 254 are RFC 4727's experimental kinds, since neither paper was given a
//!   kind; or the UDP header;
//! - the headers only (the payload is not captured, as `tcpdump -s` with a small snap length):
//!   the record's original length is the packet's size on the wire, so `capinfos` and
//!   `tshark -z io,stat` count the bytes the link sent.
//!
//! Addresses and ports: node i is 10.0.x.y with x.y = i + 1 (so node 0 is 10.0.0.1); flow f's
//! sender uses port 1024 + (f mod 64512) and its receiver port 9 (no payload is captured, so no
//! application dissector applies). Sequence numbers are the engine's byte offsets modulo 2³²
//! (initial sequence number 0: no handshake is modelled); TSval/TSecr are the engine's clock in
//! microseconds modulo 2³². TCP and UDP checksums are 0: they cover the payload, which is not
//! captured (Wireshark does not check them by default).

use super::packet::{caiad_option_bytes, sack_option_bytes, Ecn, Packet, PacketKind, IP_HEADER_BYTES, TCP_HEADER_BYTES};
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// RFC 4727 experimental option kind used for CAIAD's corruption option and TCP HACK's header
/// checksum (told apart by their lengths, 6 and 4).
pub(crate) const EXPERIMENTAL_KIND_1: u8 = 253;
/// RFC 4727 experimental option kind used for CAIAD's No-Congestion option.
pub(crate) const EXPERIMENTAL_KIND_2: u8 = 254;
/// Port of every flow's receiving end.
pub(crate) const RECEIVER_PORT: u16 = 9;

/// Why a packet is in the companion log.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fate {
    /// The queue refused it (overflow or an AQM's early drop): never on the wire.
    QueueDrop,
    /// Transmitted, then lost by the channel (for good, after any link-level retransmission).
    ChannelLoss,
    /// Transmitted, and delivered with a damaged payload.
    Corrupted,
}

impl Fate {
    fn name(self) -> &'static str {
        match self {
            Fate::QueueDrop => "queue-drop",
            Fate::ChannelLoss => "channel-loss",
            Fate::Corrupted => "corrupted",
        }
    }
}

/// The capture of one run: a writer per link direction (opened on its first packet), the log,
/// and the first I/O error (after which nothing more is written, and the run reports it).
pub(crate) struct Capture {
    dir: PathBuf,
    /// Link names as the log writes them (CSV-quoted where needed).
    log_names: Vec<String>,
    file_names: Vec<String>,
    writers: Vec<Option<PcapWriter<BufWriter<File>>>>,
    ip_ids: Vec<u16>,
    log: BufWriter<File>,
    end_ns: u64,
    error: Option<String>,
    buf: Vec<u8>,
    /// Bytes written so far (file headers, records, log lines) and the most that may be.
    written: u64,
    max_bytes: u64,
    /// The capture reached `max_bytes` at this instant: nothing more is written, and the run
    /// stops with `limits.max_capture_bytes`.
    full_at: Option<u64>,
}

/// The bytes of a pcap file's global header and of a record's header.
const FILE_HEADER_BYTES: u64 = 24;
const RECORD_HEADER_BYTES: u64 = 16;

/// A file name from a link name: letters, digits, `-`, `_` and `.` kept, `->` written `-to-`,
/// anything else `_`.
pub fn file_name(link: &str) -> String {
    let s: String =
        link.replace("->", "-to-").chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect();
    format!("{s}.pcap")
}

impl Capture {
    /// A capture into `dir` (created if missing) of links named `link_names`, of what happens up to
    /// `end_ns`. Fails, with the path, when the folder or the log cannot be created.
    /// At most `max_bytes` are written, all files together ([`Capture::full_at`]).
    pub(crate) fn create(dir: &Path, link_names: &[String], end_ns: u64, max_bytes: u64) -> Result<Capture, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
        let log_path = dir.join("events.csv");
        let mut log = BufWriter::new(File::create(&log_path).map_err(|e| format!("cannot create '{}': {e}", log_path.display()))?);
        let header = "time_s,link,fate,flow,kind,src,dst,seq,ack,payload_bytes,size_bytes\n";
        log.write_all(header.as_bytes()).map_err(|e| format!("cannot write '{}': {e}", log_path.display()))?;
        // Two links may sanitize to one name: the later ones get the link's index.
        let mut file_names: Vec<String> = Vec::with_capacity(link_names.len());
        let mut taken = std::collections::HashSet::with_capacity(link_names.len());
        for (i, n) in link_names.iter().enumerate() {
            let mut f = file_name(n);
            if taken.contains(&f) {
                f = format!("{}-{i}.pcap", f.trim_end_matches(".pcap"));
            }
            taken.insert(f.clone());
            file_names.push(f);
        }
        let log_names = link_names
            .iter()
            .map(|n| if n.contains([',', '"', '\n', '\r']) { format!("\"{}\"", n.replace('"', "\"\"")) } else { n.clone() })
            .collect();
        Ok(Capture {
            dir: dir.to_path_buf(),
            log_names,
            file_names,
            writers: (0..link_names.len()).map(|_| None).collect(),
            ip_ids: vec![0; link_names.len()],
            log,
            end_ns,
            error: None,
            buf: Vec::with_capacity(128),
            written: header.len() as u64,
            max_bytes,
            full_at: None,
        })
    }

    /// The simulated instant at which the capture reached its size limit, if it did.
    pub(crate) fn full_at(&self) -> Option<u64> {
        self.full_at
    }

    /// Counts `n` more bytes at `t_ns`; false (and nothing may be written) past the limit.
    fn room(&mut self, n: u64, t_ns: u64) -> bool {
        if self.full_at.is_some() {
            return false;
        }
        if self.written + n > self.max_bytes {
            self.full_at = Some(t_ns);
            return false;
        }
        self.written += n;
        true
    }

    /// `p` starts its serialization on link `link` at `t_ns`.
    pub(crate) fn packet(&mut self, link: usize, t_ns: u64, p: &Packet) {
        if self.error.is_some() || t_ns > self.end_ns {
            return;
        }
        let id = self.ip_ids[link];
        encode(p, id, &mut self.buf);
        let file_header = if self.writers[link].is_none() { FILE_HEADER_BYTES } else { 0 };
        if !self.room(file_header + RECORD_HEADER_BYTES + self.buf.len() as u64, t_ns) {
            return;
        }
        if self.writers[link].is_none() {
            let path = self.dir.join(&self.file_names[link]);
            let header = PcapHeader {
                version_major: 2,
                version_minor: 4,
                ts_correction: 0,
                ts_accuracy: 0,
                snaplen: 65535,
                datalink: DataLink::RAW,
                ts_resolution: TsResolution::NanoSecond,
                endianness: Endianness::native(),
            };
            match File::create(&path)
                .map_err(|e| e.to_string())
                .and_then(|f| PcapWriter::with_header(BufWriter::new(f), header).map_err(|e| e.to_string()))
            {
                Ok(w) => self.writers[link] = Some(w),
                Err(e) => {
                    self.error = Some(format!("cannot write '{}': {e}", path.display()));
                    return;
                }
            }
        }
        self.ip_ids[link] = id.wrapping_add(1);
        let w = self.writers[link].as_mut().expect("opened above");
        let rec = PcapPacket::new(Duration::from_nanos(t_ns), p.size_bytes, &self.buf);
        if let Err(e) = w.write_packet(&rec) {
            self.error = Some(format!("cannot write '{}': {e}", self.dir.join(&self.file_names[link]).display()));
        }
    }

    /// `p` met `fate` on link `link` at `t_ns` (a queue drop at its offer, a channel fate at its
    /// serialization's start).
    pub(crate) fn event(&mut self, link: usize, t_ns: u64, fate: Fate, p: &Packet) {
        if self.error.is_some() || t_ns > self.end_ns {
            return;
        }
        let kind = match p.kind {
            PacketKind::TcpData => "tcp-data",
            PacketKind::TcpAck => "tcp-ack",
            PacketKind::Udp => "udp",
        };
        let payload = p.payload_bytes();
        let (seq, ack) = match p.kind {
            PacketKind::Udp => (String::new(), String::new()),
            _ => (p.tcp.seq.to_string(), p.tcp.ack.to_string()),
        };
        let line = format!(
            "{}.{:09},{},{},{},{},{},{},{seq},{ack},{payload},{}\n",
            t_ns / 1_000_000_000,
            t_ns % 1_000_000_000,
            self.log_names[link],
            fate.name(),
            p.flow,
            kind,
            p.src,
            p.dst,
            p.size_bytes
        );
        if !self.room(line.len() as u64, t_ns) {
            return;
        }
        if let Err(e) = self.log.write_all(line.as_bytes()) {
            self.error = Some(format!("cannot write '{}': {e}", self.dir.join("events.csv").display()));
        }
    }

    /// Flushes every file; the first error of the run, if any.
    pub(crate) fn finish(mut self) -> Result<(), String> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for (i, w) in self.writers.into_iter().enumerate() {
            if let Some(w) = w {
                w.into_writer().flush().map_err(|e| format!("cannot write '{}': {e}", self.dir.join(&self.file_names[i]).display()))?;
            }
        }
        self.log.flush().map_err(|e| format!("cannot write '{}': {e}", self.dir.join("events.csv").display()))
    }
}

/// IPv4 address of node `n`: 10.0.x.y with x.y = n + 1 (at most 10⁴ nodes, so it fits).
pub(crate) fn node_ip(n: u32) -> [u8; 4] {
    let v = n + 1;
    [10, (v >> 16) as u8, (v >> 8) as u8, v as u8]
}

/// Port of flow `f`'s sending end.
pub(crate) fn sender_port(f: u32) -> u16 {
    1024 + (f % 64512) as u16
}

/// RFC 1071 Internet checksum of `bytes` (an even number of them).
fn checksum(bytes: &[u8]) -> u16 {
    let mut sum: u32 = bytes.chunks(2).map(|c| u16::from_be_bytes([c[0], *c.get(1).unwrap_or(&0)]) as u32).sum();
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// Writes the headers of `p` (IPv4, then TCP with its options or UDP) into `out`.
pub(crate) fn encode(p: &Packet, ip_id: u16, out: &mut Vec<u8>) {
    out.clear();
    let proto = if p.kind == PacketKind::Udp { 17 } else { 6 };
    let ecn = match p.ecn {
        Ecn::NotEct => 0,
        Ecn::Ect => 0b10, // ECT(0)
        Ecn::Ce => 0b11,
    };
    out.push(0x45);
    out.push(ecn);
    out.extend_from_slice(&(p.size_bytes.min(65535) as u16).to_be_bytes());
    out.extend_from_slice(&ip_id.to_be_bytes());
    out.extend_from_slice(&[0x40, 0]); // Don't Fragment
    out.push(64);
    out.push(proto);
    out.extend_from_slice(&[0, 0]);
    out.extend_from_slice(&node_ip(p.src));
    out.extend_from_slice(&node_ip(p.dst));
    let c = checksum(&out[..20]);
    out[10..12].copy_from_slice(&c.to_be_bytes());
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
    let h = &p.tcp;
    let payload = if data { h.len } else { 0 };
    // The option bytes the engine counted in the packet's size.
    let opt_len = p.size_bytes.saturating_sub(IP_HEADER_BYTES + TCP_HEADER_BYTES + payload).min(40) as usize;
    let (seq, ack) = if data { (h.seq as u32, 0) } else { (0, h.ack as u32) };
    out.extend_from_slice(&seq.to_be_bytes());
    out.extend_from_slice(&ack.to_be_bytes());
    out.push((((TCP_HEADER_BYTES as usize + opt_len) / 4) as u8) << 4);
    // Flags: CWR 0x80, ECE 0x40, ACK 0x10 (every segment after the handshake carries ACK).
    out.push(if h.cwr { 0x80 } else { 0 } | if h.ece { 0x40 } else { 0 } | 0x10);
    out.extend_from_slice(&65535u16.to_be_bytes());
    out.extend_from_slice(&[0, 0, 0, 0]); // checksum (covers the payload, not captured), urgent pointer
    let start = out.len();
    if h.has_ts {
        out.extend_from_slice(&[1, 1, 8, 10]);
        out.extend_from_slice(&((h.ts_val / 1000) as u32).to_be_bytes());
        out.extend_from_slice(&((h.ts_ecr / 1000) as u32).to_be_bytes());
    }
    if h.n_sack > 0 {
        let n = h.n_sack as usize;
        let pad = sack_option_bytes(n) as usize - (2 + 8 * n);
        out.extend(std::iter::repeat_n(1u8, pad)); // NOPs first, as stacks align SACK
        out.extend_from_slice(&[5, (2 + 8 * n) as u8]);
        for b in &h.sack[..n] {
            out.extend_from_slice(&(b.start as u32).to_be_bytes());
            out.extend_from_slice(&(b.end as u32).to_be_bytes());
        }
    }
    let caiad = caiad_option_bytes(h.corrupt_seq.is_some(), h.no_congestion) as usize;
    if caiad > 0 {
        let mut raw = 0;
        if let Some(s) = h.corrupt_seq {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::net::packet::{SackBlock, TcpHeader, HACK_HEADER_CHECKSUM_OPTION_BYTES, MAX_SACK_BLOCKS, TS_OPTION_BYTES};

    fn packet(kind: PacketKind, tcp: TcpHeader, opt_bytes: u32) -> Packet {
        let payload = if kind == PacketKind::TcpData { tcp.len } else { 0 };
        Packet { src: 0, dst: 2, flow: 7, kind, size_bytes: 40 + opt_bytes + payload, ecn: Ecn::Ce, corrupted: false, tcp }
    }

    fn be32(b: &[u8]) -> u32 {
        u32::from_be_bytes([b[0], b[1], b[2], b[3]])
    }

    /// The headers are exactly as long as the engine counts them, for every option mix, and the
    /// fields read back by hand: IPv4 total length, ECN, addresses, ports, sequence/ACK numbers,
    /// data offset, flags, and each option's kind, length and value.
    #[test]
    fn headers_have_the_engine_sizes_and_read_back() {
        let mut buf = Vec::new();
        // A data segment with timestamps and TCP HACK's checksum: 12 + 4 option bytes.
        let h = TcpHeader {
            seq: (1u64 << 32) + 5000,
            len: 1000,
            has_ts: true,
            ts_val: 123_456_789,
            ts_ecr: 2_000_000,
            cwr: true,
            ..TcpHeader::default()
        };
        let p = packet(PacketKind::TcpData, h, TS_OPTION_BYTES + HACK_HEADER_CHECKSUM_OPTION_BYTES);
        encode(&p, 9, &mut buf);
        assert_eq!(buf.len(), 20 + 20 + 16);
        assert_eq!((buf[0], buf[1] & 3, u16::from_be_bytes([buf[2], buf[3]])), (0x45, 3, 1056));
        assert_eq!((&buf[12..16], &buf[16..20]), (&[10, 0, 0, 1][..], &[10, 0, 0, 3][..]));
        assert_eq!(checksum(&buf[..20]), 0, "the IPv4 header checksum verifies");
        assert_eq!((u16::from_be_bytes([buf[20], buf[21]]), u16::from_be_bytes([buf[22], buf[23]])), (1031, RECEIVER_PORT));
        assert_eq!(be32(&buf[24..]), 5000, "sequence modulo 2^32");
        assert_eq!((buf[32] >> 4, buf[33]), (9, 0x90), "offset 36 B; CWR + ACK");
        assert_eq!(&buf[40..44], &[1, 1, 8, 10]);
        assert_eq!((be32(&buf[44..]), be32(&buf[48..])), (123_456, 2_000), "TSval/TSecr in µs");
        assert_eq!(&buf[52..56], &[EXPERIMENTAL_KIND_1, 4, 0, 0]);
        // An ACK with timestamps and three SACK blocks (12 + 28 = 40 option bytes), ECE.
        let mut sack = [SackBlock::default(); MAX_SACK_BLOCKS];
        for (i, b) in sack.iter_mut().take(3).enumerate() {
            *b = SackBlock { start: 10_000 * (i as u64 + 1), end: 10_000 * (i as u64 + 1) + 1000 };
        }
        let h = TcpHeader { ack: 7000, ece: true, has_ts: true, n_sack: 3, sack, ..TcpHeader::default() };
        let p = packet(PacketKind::TcpAck, h, TS_OPTION_BYTES + sack_option_bytes(3));
        encode(&p, 0, &mut buf);
        assert_eq!(buf.len(), 80);
        assert_eq!((u16::from_be_bytes([buf[20], buf[21]]), u16::from_be_bytes([buf[22], buf[23]])), (RECEIVER_PORT, 1031));
        assert_eq!((be32(&buf[28..]), buf[32] >> 4, buf[33]), (7000, 15, 0x50));
        assert_eq!(&buf[52..56], &[1, 1, 5, 26]);
        assert_eq!((be32(&buf[56..]), be32(&buf[60..]), be32(&buf[72..]), be32(&buf[76..])), (10_000, 11_000, 30_000, 31_000));
        // A CAIAD ACK with both options: 6 + 3 padded to 12.
        let h = TcpHeader { ack: 1000, corrupt_seq: Some(4000), no_congestion: true, ..TcpHeader::default() };
        let p = packet(PacketKind::TcpAck, h, caiad_option_bytes(true, true));
        encode(&p, 0, &mut buf);
        assert_eq!(buf.len(), 52);
        assert_eq!(&buf[40..52], &[EXPERIMENTAL_KIND_1, 6, 0, 0, 0x0f, 0xa0, EXPERIMENTAL_KIND_2, 3, 1, 1, 1, 1]);
        // UDP: 8-byte header, length = size − 20.
        let p = Packet {
            src: 300,
            dst: 1,
            flow: 70_000,
            kind: PacketKind::Udp,
            size_bytes: 528,
            ecn: Ecn::NotEct,
            corrupted: false,
            tcp: TcpHeader::default(),
        };
        encode(&p, 0, &mut buf);
        assert_eq!(buf.len(), 28);
        assert_eq!((buf[9], &buf[12..16]), (17, &[10, 0, 1, 45][..]));
        assert_eq!((u16::from_be_bytes([buf[20], buf[21]]), u16::from_be_bytes([buf[24], buf[25]])), (1024 + (70_000 % 64512) as u16, 508));
    }

    #[test]
    fn file_names_are_safe_and_distinct() {
        assert_eq!(file_name("BS->D"), "BS-to-D.pcap");
        assert_eq!(file_name("a/../b c"), "a_.._b_c.pcap");
        let dir = std::env::temp_dir().join(format!("airtcp-pcap-test-{}", std::process::id()));
        let c = Capture::create(&dir, &["a b".into(), "a_b".into()], 10, u64::MAX).unwrap();
        assert_eq!(c.file_names, vec!["a_b.pcap".to_string(), "a_b-1.pcap".to_string()]);
        c.finish().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
