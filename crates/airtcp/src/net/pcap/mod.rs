//! Packet capture: one classic libpcap file per link direction, as `tcpdump` on the link's
//! transmitting interface would write it, one per host (node), as `tcpdump -i any` on that host
//! would write it, and a companion log of what a capture cannot show (drops in the queue, losses
//! and corruptions in the channel).
//!
//! Why at the transmitter: that is where a packet is on the wire. A packet the channel later loses
//! or corrupts was transmitted and is in the link's file; a packet the queue dropped never was,
//! and is not. The log names each such fate, so that the file and the log together account for
//! every packet the link was offered (`LinkSummary`'s balance). A host's file (`hosts/<node>.pcap`)
//! holds every frame the host transmitted, at its serialization's start, and every frame it
//! received, at its arrival (so not those the channel lost), in time order: equal instants in the
//! order the engine produced them, which puts a packet's arrival before what it causes then.
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
//!   `tshark -z io,stat` count the bytes the link sent (and the handshake's, below).
//!
//! The handshake: the engine opens no connection (a flow sends its first segment at its start),
//! but Wireshark learns a connection's window scale, SACK permission and timestamps only from its
//! SYN and SYN-ACK. So every file opens each TCP flow with the handshake segments that would cross
//! its vantage point — the SYN on the data's way, the SYN-ACK on the ACKs' way; a host sees them
//! arrive and leave — written just before the flow's first frame there, at that frame's instant.
//! They are the only records that are not the engine's packets (no summary counts them; filter
//! them with `tcp.flags.syn == 0`). At that instant, not a round trip earlier: an earlier
//! instant would be invented (the engine's flow started when it sent), would put the SYN-ACK
//! before the SYN left on a host's view, and would break the files' time order; Wireshark's
//! initial RTT then reads 0. They announce MSS (`mss_bytes`), window scale (the smallest shift
//! that fits `rwnd_pkts × mss_bytes`), SACK-permitted and timestamps when the flow uses them, and
//! ECN setup (RFC 3168 §6.1.1) when it is ECN-capable; every later segment's window field is
//! the receiver window shifted by that scale.
//!
//! Addresses and ports: node i is 10.0.x.y with x.y = i + 1 (so node 0 is 10.0.0.1); flow f's
//! sender uses port 49152 + (f mod 16384) (the IANA ephemeral range) and its receiver port 5001
//! (iperf's). Both ends' initial sequence number is 2³² − 1, so that a data segment's sequence
//! number is the engine's byte offset modulo 2³² (Wireshark's relative sequence numbers start at 1,
//! as for any connection); TSval/TSecr are the engine's clock in microseconds modulo 2³². TCP and
//! UDP checksums are 0: they cover the payload, which is not captured (Wireshark does not check
//! them by default).

use super::packet::{Packet, PacketKind, SackBlock, IP_HEADER_BYTES, TCP_HEADER_BYTES};
mod wire;
use pcap_file::pcap::{PcapHeader, PcapPacket, PcapWriter};
use pcap_file::{DataLink, Endianness, TsResolution};
use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;
pub(crate) use wire::TcpFlowInfo;
use wire::{encode, encode_handshake};

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

/// Everything [`Capture::create`] needs to know of the network.
pub(crate) struct CaptureSpec {
    /// Per link: its name and its (from, to) nodes.
    pub(crate) links: Vec<(String, u32, u32)>,
    pub(crate) nodes: Vec<String>,
    /// Per flow: the TCP flow's capture details, `None` for a UDP flow.
    pub(crate) flows: Vec<Option<TcpFlowInfo>>,
}

/// An open pcap file (opened on its first record) and its name inside the capture folder.
struct PcapFile {
    name: String,
    writer: Option<PcapWriter<BufWriter<File>>>,
}

/// A record of a host's file waiting for every earlier one (see [`Capture::flush_hosts`]).
struct HostRecord {
    t_ns: u64,
    /// The order in which the engine produced the records: the tie-break between equal instants.
    seq: u64,
    host: u32,
    flow: u32,
    tcp: bool,
    orig_len: u32,
    bytes: Box<[u8]>,
}

impl PartialEq for HostRecord {
    fn eq(&self, o: &Self) -> bool {
        (self.t_ns, self.seq) == (o.t_ns, o.seq)
    }
}
impl Eq for HostRecord {}
impl PartialOrd for HostRecord {
    fn partial_cmp(&self, o: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for HostRecord {
    fn cmp(&self, o: &Self) -> std::cmp::Ordering {
        (self.t_ns, self.seq).cmp(&(o.t_ns, o.seq))
    }
}

/// The capture of one run: a file per link direction and per host (each opened on its first
/// packet), the log, and the first I/O error (after which nothing more is written, and the run
/// reports it).
pub(crate) struct Capture {
    dir: PathBuf,
    /// Link names as the log writes them (CSV-quoted where needed).
    log_names: Vec<String>,
    link_ends: Vec<(u32, u32)>,
    link_files: Vec<PcapFile>,
    /// Per node, its file in `hosts/`.
    host_files: Vec<PcapFile>,
    flows: Vec<Option<TcpFlowInfo>>,
    ip_ids: Vec<u16>,
    log: BufWriter<File>,
    end_ns: u64,
    error: Option<String>,
    buf: Vec<u8>,
    /// (link, flow, ACK direction) whose handshake segment the link's file holds.
    link_handshakes: HashSet<(u32, u32, bool)>,
    /// (host, flow) whose handshake records are counted in `written`, and those written.
    host_handshakes_counted: HashSet<(u32, u32)>,
    host_handshakes_written: HashSet<(u32, u32)>,
    /// Hosts whose file header is counted in `written`.
    host_headers_counted: Vec<bool>,
    /// The host files' records not yet written, earliest first, and how many were produced.
    pending: BinaryHeap<Reverse<HostRecord>>,
    produced: u64,
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

/// File names for `names` (see [`file_name`]), prefixed by `prefix`; two names that sanitize to
/// one file get the later one's index.
fn distinct_files(names: impl Iterator<Item = String>, prefix: &str) -> Vec<PcapFile> {
    let mut taken = HashSet::new();
    names
        .enumerate()
        .map(|(i, n)| {
            let mut f = file_name(&n);
            if taken.contains(&f) {
                f = format!("{}-{i}.pcap", f.trim_end_matches(".pcap"));
            }
            taken.insert(f.clone());
            PcapFile { name: format!("{prefix}{f}"), writer: None }
        })
        .collect()
}

/// The folder of the per-host files, inside the capture's folder.
pub(crate) const HOSTS_DIR: &str = "hosts";

impl Capture {
    /// A capture into `dir` (created if missing) of the network `spec`, of what happens up to
    /// `end_ns`. Fails, with the path, when the folder or the log cannot be created.
    /// At most `max_bytes` are written, all files together ([`Capture::full_at`]).
    pub(crate) fn create(dir: &Path, spec: CaptureSpec, end_ns: u64, max_bytes: u64) -> Result<Capture, String> {
        std::fs::create_dir_all(dir).map_err(|e| format!("cannot create '{}': {e}", dir.display()))?;
        let log_path = dir.join("events.csv");
        let mut log = BufWriter::new(File::create(&log_path).map_err(|e| format!("cannot create '{}': {e}", log_path.display()))?);
        let header = "time_s,link,fate,flow,kind,src,dst,seq,ack,payload_bytes,size_bytes\n";
        log.write_all(header.as_bytes()).map_err(|e| format!("cannot write '{}': {e}", log_path.display()))?;
        let log_names = spec
            .links
            .iter()
            .map(|(n, _, _)| if n.contains([',', '"', '\n', '\r']) { format!("\"{}\"", n.replace('"', "\"\"")) } else { n.clone() })
            .collect();
        Ok(Capture {
            dir: dir.to_path_buf(),
            log_names,
            link_ends: spec.links.iter().map(|&(_, a, b)| (a, b)).collect(),
            link_files: distinct_files(spec.links.iter().map(|(n, _, _)| n.clone()), ""),
            host_files: distinct_files(spec.nodes.iter().cloned(), &format!("{HOSTS_DIR}/")),
            host_headers_counted: vec![false; spec.nodes.len()],
            flows: spec.flows,
            ip_ids: vec![0; spec.links.len()],
            log,
            end_ns,
            error: None,
            buf: Vec::with_capacity(128),
            link_handshakes: HashSet::new(),
            host_handshakes_counted: HashSet::new(),
            host_handshakes_written: HashSet::new(),
            pending: BinaryHeap::new(),
            produced: 0,
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

    /// The handshake records host `h`'s file holds for `flow` (the segments that cross its
    /// interfaces, in the order a tcpdump there sees them): the SYN arriving and leaving, then
    /// the SYN-ACK arriving and leaving; a flag per record, true for the SYN-ACK.
    fn host_handshake(&self, h: u32, flow: u32) -> Vec<bool> {
        let Some(t) = &self.flows[flow as usize] else { return Vec::new() };
        let (on_data, on_ack) = (t.data_path.contains(&h), t.ack_path.contains(&h));
        let mut v = Vec::with_capacity(4);
        if on_data && h != t.src {
            v.push(false);
        }
        if on_data && h != t.dst {
            v.push(false);
        }
        if on_ack && h != t.dst {
            v.push(true);
        }
        if on_ack && h != t.src {
            v.push(true);
        }
        v
    }

    /// Bytes a handshake record of `flow` takes in a file.
    fn handshake_record_bytes(&self, flow: u32) -> u64 {
        self.flows[flow as usize]
            .as_ref()
            .map_or(0, |t| RECORD_HEADER_BYTES + (IP_HEADER_BYTES + TCP_HEADER_BYTES) as u64 + t.syn_option_bytes() as u64)
    }

    /// `p` starts its serialization on link `link` at `t_ns` and, unless the channel loses it,
    /// reaches the link's far end at `arrives_ns`; the engine's clock reads `now_ns` (no later
    /// record can be earlier, which lets the host files be written in time order).
    pub(crate) fn packet(&mut self, link: usize, t_ns: u64, arrives_ns: Option<u64>, now_ns: u64, p: &Packet, sack: &[SackBlock]) {
        if self.error.is_some() || t_ns > self.end_ns {
            return;
        }
        let id = self.ip_ids[link];
        let (tcp, flow) = (p.kind != PacketKind::Udp, p.flow);
        let win = self.flows[flow as usize].as_ref().map_or(65535, |t| t.window().1);
        encode(p, sack, id, win, &mut self.buf);
        let record = RECORD_HEADER_BYTES + self.buf.len() as u64;
        let hs_record = self.handshake_record_bytes(flow);
        let ack_dir = p.kind == PacketKind::TcpAck;
        // What this packet adds to the files: the link's record (after the file header and the
        // flow's handshake segment on its first packet), and a record in the file of the host
        // that sends it and, when it arrives within the run, of the host that receives it.
        let link_hs = tcp && !self.link_handshakes.contains(&(link as u32, flow, ack_dir));
        let mut cost = record + u64::from(link_hs) * hs_record;
        if self.link_files[link].writer.is_none() {
            cost += FILE_HEADER_BYTES;
        }
        let (from, to) = self.link_ends[link];
        let arrives = arrives_ns.filter(|&a| a <= self.end_ns);
        let hosts = [Some((from, t_ns)), arrives.map(|a| (to, a))];
        // The hosts whose file this packet opens, and those whose view of the flow it opens.
        let (mut new_files, mut new_views) = (Vec::new(), Vec::new());
        for &(h, _) in hosts.iter().flatten() {
            cost += record;
            if !self.host_headers_counted[h as usize] && !new_files.contains(&h) {
                new_files.push(h);
                cost += FILE_HEADER_BYTES;
            }
            if tcp && !self.host_handshakes_counted.contains(&(h, flow)) && !new_views.contains(&h) {
                new_views.push(h);
                cost += self.host_handshake(h, flow).len() as u64 * hs_record;
            }
        }
        if !self.room(cost, t_ns) {
            return;
        }
        for h in new_files {
            self.host_headers_counted[h as usize] = true;
        }
        for h in new_views {
            self.host_handshakes_counted.insert((h, flow));
        }
        self.ip_ids[link] = id.wrapping_add(1);
        if link_hs {
            self.link_handshakes.insert((link as u32, flow, ack_dir));
            let mut hs = Vec::new();
            encode_handshake(self.flows[flow as usize].as_ref().expect("a TCP flow"), flow, ack_dir, &mut hs);
            let len = hs.len() as u32;
            self.write(Target::Link(link), t_ns, len, &hs);
        }
        let bytes: Box<[u8]> = self.buf.as_slice().into();
        self.write(Target::Link(link), t_ns, p.size_bytes, &bytes);
        for &(h, t) in hosts.iter().flatten() {
            self.produced += 1;
            let r = HostRecord { t_ns: t, seq: self.produced, host: h, flow, tcp, orig_len: p.size_bytes, bytes: bytes.clone() };
            self.pending.push(Reverse(r));
        }
        self.flush_hosts(now_ns);
    }

    /// Writes the host records up to `until_ns`, in time order (then in the order the engine
    /// produced them: a packet's arrival before what it causes at the same instant). Every
    /// record produced later is at or after the engine's clock, so those are final.
    fn flush_hosts(&mut self, until_ns: u64) {
        while self.pending.peek().is_some_and(|r| r.0.t_ns <= until_ns) {
            let Reverse(r) = self.pending.pop().expect("peeked");
            if r.tcp && self.host_handshakes_written.insert((r.host, r.flow)) {
                let t = self.flows[r.flow as usize].as_ref().expect("a TCP flow");
                let segments: Vec<Vec<u8>> = self
                    .host_handshake(r.host, r.flow)
                    .into_iter()
                    .map(|syn_ack| {
                        let mut b = Vec::new();
                        encode_handshake(t, r.flow, syn_ack, &mut b);
                        b
                    })
                    .collect();
                for b in segments {
                    self.write(Target::Host(r.host as usize), r.t_ns, b.len() as u32, &b);
                }
            }
            self.write(Target::Host(r.host as usize), r.t_ns, r.orig_len, &r.bytes);
        }
    }

    /// Writes one record into a file, opening it (with its folder) on its first record.
    fn write(&mut self, which: Target, t_ns: u64, orig_len: u32, bytes: &[u8]) {
        if self.error.is_some() {
            return;
        }
        let f = match which {
            Target::Link(i) => &mut self.link_files[i],
            Target::Host(i) => &mut self.host_files[i],
        };
        let path = self.dir.join(&f.name);
        if f.writer.is_none() {
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
            let parent = path.parent().expect("inside the capture folder");
            match std::fs::create_dir_all(parent)
                .and_then(|_| File::create(&path))
                .map_err(|e| e.to_string())
                .and_then(|f| PcapWriter::with_header(BufWriter::new(f), header).map_err(|e| e.to_string()))
            {
                Ok(w) => f.writer = Some(w),
                Err(e) => {
                    self.error = Some(format!("cannot write '{}': {e}", path.display()));
                    return;
                }
            }
        }
        let w = f.writer.as_mut().expect("opened above");
        if let Err(e) = w.write_packet(&PcapPacket::new(Duration::from_nanos(t_ns), orig_len, bytes)) {
            self.error = Some(format!("cannot write '{}': {e}", path.display()));
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
            _ => (p.seq().to_string(), p.ack().to_string()),
        };
        // Written with `format!` rather than the `csv` crate: the size limit must know a line's
        // length before it is written, every field but the link name is a number, and the link
        // name is quoted once, when the capture is created (RFC 4180: in quotes, quotes doubled).
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

    /// Writes what the host files still wait for, flushes every file; the first error of the
    /// run, if any.
    pub(crate) fn finish(mut self) -> Result<(), String> {
        self.flush_hosts(u64::MAX);
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        for f in self.link_files.into_iter().chain(self.host_files) {
            if let Some(w) = f.writer {
                w.into_writer().flush().map_err(|e| format!("cannot write '{}': {e}", self.dir.join(&f.name).display()))?;
            }
        }
        self.log.flush().map_err(|e| format!("cannot write '{}': {e}", self.dir.join("events.csv").display()))
    }
}

/// Which file a record goes to.
#[derive(Clone, Copy)]
enum Target {
    Link(usize),
    Host(usize),
}

#[cfg(test)]
mod tests {
    use super::wire::*;
    use super::*;
    use crate::net::packet::{caiad_option_bytes, sack_option_bytes, Ecn};
    use crate::net::packet::{TcpHeader, HACK_HEADER_CHECKSUM_OPTION_BYTES, MAX_SACK_BLOCKS, TS_OPTION_BYTES};

    fn packet(kind: PacketKind, tcp: TcpHeader, opt_bytes: u32) -> Packet {
        let payload = if kind == PacketKind::TcpData { tcp.len } else { 0 };
        let mut p = Packet::from_header(kind, &tcp);
        (p.src, p.dst, p.flow, p.size_bytes, p.ecn) = (0, 2, 7, 40 + opt_bytes + payload, Ecn::Ce);
        p
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
        encode(&p, &[], 9, 0x1234, &mut buf);
        assert_eq!(buf.len(), 20 + 20 + 16);
        assert_eq!((buf[0], buf[1] & 3, u16::from_be_bytes([buf[2], buf[3]])), (0x45, 3, 1056));
        assert_eq!((&buf[12..16], &buf[16..20]), (&[10, 0, 0, 1][..], &[10, 0, 0, 3][..]));
        assert_eq!(checksum(&buf[..20]), 0, "the IPv4 header checksum verifies");
        assert_eq!((u16::from_be_bytes([buf[20], buf[21]]), u16::from_be_bytes([buf[22], buf[23]])), (49159, RECEIVER_PORT));
        assert_eq!(u16::from_be_bytes([buf[34], buf[35]]), 0x1234, "the window field");
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
        encode(&p, &sack[..3], 0, 65535, &mut buf);
        assert_eq!(buf.len(), 80);
        assert_eq!((u16::from_be_bytes([buf[20], buf[21]]), u16::from_be_bytes([buf[22], buf[23]])), (RECEIVER_PORT, 49159));
        assert_eq!((be32(&buf[28..]), buf[32] >> 4, buf[33]), (7000, 15, 0x50));
        assert_eq!(&buf[52..56], &[1, 1, 5, 26]);
        assert_eq!((be32(&buf[56..]), be32(&buf[60..]), be32(&buf[72..]), be32(&buf[76..])), (10_000, 11_000, 30_000, 31_000));
        // A CAIAD ACK with both options: 6 + 3 padded to 12.
        let h = TcpHeader { ack: 1000, corrupt_seq: Some(4000), no_congestion: true, ..TcpHeader::default() };
        let p = packet(PacketKind::TcpAck, h, caiad_option_bytes(true, true));
        encode(&p, &[], 0, 65535, &mut buf);
        assert_eq!(buf.len(), 52);
        assert_eq!(&buf[40..52], &[EXPERIMENTAL_KIND_1, 6, 0, 0, 0x0f, 0xa0, EXPERIMENTAL_KIND_2, 3, 1, 1, 1, 1]);
        // UDP: 8-byte header, length = size − 20.
        let mut p = Packet::EMPTY;
        (p.src, p.dst, p.flow, p.kind, p.size_bytes) = (300, 1, 70_000, PacketKind::Udp, 528);
        encode(&p, &[], 0, 65535, &mut buf);
        assert_eq!(buf.len(), 28);
        assert_eq!((buf[9], &buf[12..16]), (17, &[10, 0, 1, 45][..]));
        assert_eq!(
            (u16::from_be_bytes([buf[20], buf[21]]), u16::from_be_bytes([buf[24], buf[25]])),
            (49152 + (70_000 % 16384) as u16, 508)
        );
    }

    fn flow(rwnd_bytes: u64, sack: bool, timestamps: bool, ecn: bool) -> TcpFlowInfo {
        TcpFlowInfo {
            src: 0,
            dst: 2,
            mss: 1000,
            rwnd_bytes,
            sack,
            timestamps,
            ecn,
            start_ns: 2_500_000_000,
            data_path: vec![0, 1, 2],
            ack_path: vec![2, 1, 0],
        }
    }

    /// The window scale is the smallest shift that fits the receiver window in 16 bits, at most
    /// 14 (RFC 7323 §2.3), and the field is the window shifted right (worked by hand).
    #[test]
    fn window_scale_is_the_smallest_that_fits() {
        let w = |rwnd| flow(rwnd, false, false, false).window();
        assert_eq!(w(65_535), (0, 65_535));
        assert_eq!(w(65_536), (1, 32_768));
        assert_eq!(w(20 * 1460), (0, 29_200));
        assert_eq!(w(1_000_000), (4, 62_500)); // 10^6 >> 3 = 125,000 does not fit
        assert_eq!(w(3_000_000), (6, 46_875)); // 3·10^6 >> 5 = 93,750 does not fit
        assert_eq!(w(65_535 << 14), (14, 65_535));
        assert_eq!(w(u64::MAX / 4), (14, 65_535), "past RFC 7323's 1 GiB: the largest window a header carries");
    }

    /// The SYN and SYN-ACK read back by hand: addresses and ports each way, ISN 2³² − 1 (the
    /// SYN-ACK acknowledges it with 0, the first data byte's number), the ECN setup flags, an
    /// unscaled window, and the options in Linux's layout for each mix.
    #[test]
    fn handshake_segments_read_back() {
        let mut b = Vec::new();
        let t = flow(1_000_000, true, true, true);
        encode_handshake(&t, 7, false, &mut b);
        assert_eq!(b.len(), 20 + 20 + 20);
        assert_eq!((b[1], u16::from_be_bytes([b[2], b[3]])), (0, 60), "Not-ECT (RFC 3168 §6.1.1), total length");
        assert_eq!(checksum(&b[..20]), 0);
        assert_eq!((&b[12..16], &b[16..20]), (&[10, 0, 0, 1][..], &[10, 0, 0, 3][..]));
        assert_eq!((u16::from_be_bytes([b[20], b[21]]), u16::from_be_bytes([b[22], b[23]])), (49159, RECEIVER_PORT));
        assert_eq!((be32(&b[24..]), be32(&b[28..])), (u32::MAX, 0));
        assert_eq!((b[32] >> 4, b[33], u16::from_be_bytes([b[34], b[35]])), (10, 0xc2, 65_535), "SYN + ECE + CWR");
        assert_eq!(&b[40..48], &[2, 4, 0x03, 0xe8, 4, 2, 8, 10], "MSS 1000, SACK-permitted, timestamps");
        assert_eq!((be32(&b[48..]), be32(&b[52..])), (2_500_000, 0), "TSval: the flow's start in µs");
        assert_eq!(&b[56..60], &[1, 3, 3, 4], "NOP, window scale 4");
        encode_handshake(&t, 7, true, &mut b);
        assert_eq!((&b[12..16], &b[16..20]), (&[10, 0, 0, 3][..], &[10, 0, 0, 1][..]));
        assert_eq!((u16::from_be_bytes([b[20], b[21]]), u16::from_be_bytes([b[22], b[23]])), (RECEIVER_PORT, 49159));
        assert_eq!((be32(&b[24..]), be32(&b[28..])), (u32::MAX, 0));
        assert_eq!(b[33], 0x52, "SYN + ACK + ECE");
        assert_eq!((be32(&b[48..]), be32(&b[52..])), (2_500_000, 2_500_000), "the SYN's TSval echoed");
        // SACK without timestamps; neither; a small window (shift 0, the window itself).
        encode_handshake(&flow(1_000_000, true, false, false), 0, false, &mut b);
        assert_eq!((b.len(), b[33]), (52, 0x02));
        assert_eq!(&b[40..52], &[2, 4, 0x03, 0xe8, 1, 1, 4, 2, 1, 3, 3, 4]);
        encode_handshake(&flow(29_200, false, false, false), 0, true, &mut b);
        assert_eq!((b.len(), b[33], u16::from_be_bytes([b[34], b[35]])), (48, 0x12, 29_200));
        assert_eq!(&b[40..48], &[2, 4, 0x03, 0xe8, 1, 3, 3, 0]);
        encode_handshake(&flow(1_000_000, false, true, false), 0, false, &mut b);
        assert_eq!(&b[40..48], &[2, 4, 0x03, 0xe8, 1, 1, 8, 10]);
    }

    /// Which handshake segments a host's file holds: the endpoints one each way, a router on
    /// both paths each arriving and leaving, a node off the paths none.
    #[test]
    fn a_host_sees_the_handshake_segments_that_cross_it() {
        let dir = std::env::temp_dir().join(format!("airtcp-pcap-hs-{}", std::process::id()));
        let spec =
            CaptureSpec { links: vec![], nodes: (0..4).map(|i| i.to_string()).collect(), flows: vec![Some(flow(1, false, false, false))] };
        let c = Capture::create(&dir, spec, 10, u64::MAX).unwrap();
        assert_eq!(c.host_handshake(0, 0), [false, true], "sender: SYN out, SYN-ACK in");
        assert_eq!(c.host_handshake(2, 0), [false, true], "receiver: SYN in, SYN-ACK out");
        assert_eq!(c.host_handshake(1, 0), [false, false, true, true]);
        assert!(c.host_handshake(3, 0).is_empty());
        c.finish().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn file_names_are_safe_and_distinct() {
        assert_eq!(file_name("BS->D"), "BS-to-D.pcap");
        assert_eq!(file_name("a/../b c"), "a_.._b_c.pcap");
        let dir = std::env::temp_dir().join(format!("airtcp-pcap-test-{}", std::process::id()));
        let spec =
            CaptureSpec { links: vec![("a b".into(), 0, 1), ("a_b".into(), 1, 0)], nodes: vec!["x/y".into(), "x y".into()], flows: vec![] };
        let c = Capture::create(&dir, spec, 10, u64::MAX).unwrap();
        let names = |v: &[PcapFile]| v.iter().map(|f| f.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&c.link_files), ["a_b.pcap", "a_b-1.pcap"]);
        assert_eq!(names(&c.host_files), ["hosts/x_y.pcap", "hosts/x_y-1.pcap"]);
        c.finish().unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
