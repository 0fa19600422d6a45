//! Packets with explicit header sizes, the IP ECN field and the TCP header fields airtcp models.
//!
//! Packets live in an arena and are referred to by `PacketId`; freed slots are reused, so the
//! steady state allocates nothing per packet.

use super::NodeId;

/// Bytes of an IPv4 header without options.
pub(crate) const IP_HEADER_BYTES: u32 = 20;
/// Bytes of a TCP header without options.
pub(crate) const TCP_HEADER_BYTES: u32 = 20;
/// Bytes of a UDP header.
pub(crate) const UDP_HEADER_BYTES: u32 = 8;
/// RFC 7323 timestamps option: kind, length, TSval, TSecr = 10 bytes, padded to 12 with two NOPs.
pub const TS_OPTION_BYTES: u32 = 12;
/// Most SACK blocks that fit in 40 option bytes: 4 without timestamps, 3 with (RFC 2018 §3).
pub const MAX_SACK_BLOCKS: usize = 4;
/// Most option bytes a TCP header can carry (data offset ≤ 15 words).
pub const MAX_TCP_OPTION_BYTES: u32 = 40;
/// TCP HACK's header-checksum option on every data segment of a corruption-aware flow (CAIAD
/// §3.1: "an additional header checksum is carried by every data segment"): kind, length 4,
/// a 16-bit checksum of the TCP header and pseudo-IP header.
pub(crate) const HACK_HEADER_CHECKSUM_OPTION_BYTES: u32 = 4;
/// CAIAD Fig. 1(a): the corruption option, "Kind | Length=6 | 32-bit corrupted segment's sequence number".
pub(crate) const CORRUPTION_OPTION_LEN: u32 = 6;
/// CAIAD Fig. 1(b): the No-Congestion option, "Kind | Length = 3 | No-Congestion flag".
pub(crate) const NO_CONGESTION_OPTION_LEN: u32 = 3;

/// Option bytes a CAIAD receiver adds to an ACK: the corruption option (6 bytes) and/or the
/// No-Congestion option (3 bytes), together padded to a 4-byte boundary (the TCP data offset
/// counts 32-bit words): both 12, corruption alone 8, No-Congestion alone 4, none 0.
pub fn caiad_option_bytes(corruption: bool, no_congestion: bool) -> u32 {
    let raw = if corruption { CORRUPTION_OPTION_LEN } else { 0 } + if no_congestion { NO_CONGESTION_OPTION_LEN } else { 0 };
    raw.div_ceil(4) * 4
}

/// Bytes of a SACK option carrying `n` blocks: kind + length + 8 per block, padded to 4 (RFC 2018).
pub fn sack_option_bytes(n: usize) -> u32 {
    if n == 0 {
        0
    } else {
        (2 + 8 * n as u32).div_ceil(4) * 4
    }
}

/// ns-2.35's timestamps option on a data segment (`option_sizes = "ns2"`): `TcpAgent::headersize()`
/// (tcp/tcp.cc) adds `ts_option_size_` to `tcpip_base_hdr_size_` when `ts_option_`, and
/// tcl/lib/ns-default.tcl sets `Agent/TCP set ts_option_size_ 10` (no padding to 12).
pub(crate) const NS2_TS_OPTION_BYTES: u32 = 10;

/// Option bytes of an ACK carrying `n` SACK blocks as ns-2.35's sinks size it
/// (`option_sizes = "ns2"`): `Sacker::append_ack` (tcp/tcp-sink.cc) does
/// `ch->size() += sack_index * 8` (no kind, length or padding); `TcpSink::ack` builds the ACK
/// with `allocpkt()`, whose size is the sink's `packetSize_` (`Agent/TCPSink set packetSize_ 40`),
/// and adds nothing for the timestamp it echoes.
pub(crate) fn ns2_sack_option_bytes(n: usize) -> u32 {
    8 * n as u32
}

/// Index of a packet in the [`PacketArena`] that made it.
///
/// Only the arena makes one from a slot index (the field is private to this module), and the
/// arena never gives a slot back, so an id it returned stays in bounds of its slots for the
/// arena's life — also after the packet is freed, when the slot may hold another packet. That
/// lets [`PacketArena::get`] index without a bounds check (issue 42 part 5: two checks per packet
/// and hop were 1.7% of a run's instructions). Each simulator owns one arena and its ids never
/// leave that simulator. The one other id is `Default`'s, the padding of a link's rings (`Ring`
/// never returns a slot it was not given): it is never read as a packet. In the test profile
/// (debug assertions) every access checks the bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct PacketId(u32);

impl PacketId {
    /// An id made up by a test of a packet holder that never reads the arena (`hsdpa::rlc`).
    #[cfg(test)]
    pub(crate) fn for_test(i: u32) -> Self {
        PacketId(i)
    }
}

/// The two ECN bits of the IP header (RFC 3168 §5). ECT(1) is not modelled separately.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Ecn {
    /// Not ECN-capable transport: an AQM must drop, not mark.
    #[default]
    NotEct,
    /// ECN-capable transport, codepoint ECT(0).
    Ect,
    /// Congestion experienced (set by a router).
    Ce,
}

/// One SACK block: the half-open byte range [start, end) held by the receiver (RFC 2018).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SackBlock {
    pub start: u64,
    pub end: u64,
}

/// TCP header fields. Sequence numbers are absolute 64-bit byte offsets (no wrap-around within a run).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct TcpHeader {
    pub seq: u64,
    pub ack: u64,
    /// Payload bytes.
    pub len: u32,
    /// ECN-Echo (RFC 3168 §6.1.3).
    pub ece: bool,
    /// Congestion Window Reduced (RFC 3168 §6.1.2).
    pub cwr: bool,
    /// TSval/TSecr present (RFC 7323).
    pub has_ts: bool,
    pub ts_val: u64,
    pub ts_ecr: u64,
    pub n_sack: u8,
    pub sack: [SackBlock; MAX_SACK_BLOCKS],
    /// CAIAD/TCP HACK corruption option on an ACK: the first byte of a segment that arrived with an
    /// intact header but a corrupted payload (CAIAD Fig. 1(a)).
    pub corrupt_seq: Option<u64>,
    /// CAIAD No-Congestion option on a duplicate ACK: no segment is missing for a reason other
    /// than corruption (CAIAD Fig. 1(b), §3.1).
    pub no_congestion: bool,
}

/// What a packet carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PacketKind {
    /// A TCP segment with payload, sender → receiver.
    TcpData,
    /// A pure TCP acknowledgment, receiver → sender.
    TcpAck,
    /// A UDP datagram.
    Udp,
}

/// A packet in flight.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Packet {
    pub src: NodeId,
    pub dst: NodeId,
    /// Index of the flow this packet belongs to.
    pub flow: u32,
    pub kind: PacketKind,
    /// Bytes on the wire (headers + options + payload): what serialization time is computed from.
    pub size_bytes: u32,
    pub ecn: Ecn,
    /// A channel damaged the payload: the packet still travels, but its checksum fails at the
    /// destination (a corruption-aware receiver may still read its intact header).
    pub corrupted: bool,
    pub tcp: TcpHeader,
}

/// Bytes on the wire of a UDP datagram carrying `payload` bytes: the IP and UDP headers and the
/// payload (the one place the UDP/IP arithmetic lives; [`Packet::payload_bytes`] undoes it).
#[inline]
pub(crate) const fn udp_packet_bytes(payload: u32) -> u32 {
    IP_HEADER_BYTES + UDP_HEADER_BYTES + payload
}

impl Packet {
    /// Payload bytes: a TCP segment's length, none for a pure ACK, a UDP datagram's size less its
    /// IP and UDP headers. What a channel's per-byte error model and a capture's length count.
    #[inline]
    pub(crate) fn payload_bytes(&self) -> u32 {
        match self.kind {
            PacketKind::TcpData => self.tcp.len,
            PacketKind::TcpAck => 0,
            PacketKind::Udp => self.size_bytes - IP_HEADER_BYTES - UDP_HEADER_BYTES,
        }
    }
}

/// Slab of packets with a free list.
#[derive(Debug)]
pub(crate) struct PacketArena {
    slots: Vec<Packet>,
    free: Vec<PacketId>,
    live: usize,
    /// Most slots the arena may hold before [`PacketArena::over_cap`] says so (the run's memory
    /// limit); `usize::MAX` when unlimited. Checked only when the arena grows, off the hot path.
    cap: usize,
    /// The arena grew past `cap`: the run must stop after the current event.
    over_cap: bool,
}

/// Bytes a live packet costs: its slot, its place on the free list, and its entries on a link
/// (pending while queued or serialized, in flight until it arrives: both at once while it
/// serializes). The memory limit converts to a packet count with it.
pub(crate) const PACKET_BYTES: u64 =
    (std::mem::size_of::<Packet>() + std::mem::size_of::<PacketId>()) as u64 + super::link::RING_BYTES_PER_PACKET;

impl Default for PacketArena {
    fn default() -> Self {
        PacketArena { slots: Vec::new(), free: Vec::new(), live: 0, cap: usize::MAX, over_cap: false }
    }
}

impl PacketArena {
    /// An arena that reports [`PacketArena::over_cap`] once it holds more than `cap` slots (it
    /// keeps working: the caller stops the run at the next event boundary). The cap also keeps
    /// slot ids inside `PacketId`.
    pub(crate) fn with_cap(cap: usize) -> Self {
        PacketArena { cap: cap.min(u32::MAX as usize), ..Self::default() }
    }

    /// The most slots before [`PacketArena::over_cap`].
    pub(crate) fn cap(&self) -> usize {
        self.cap
    }

    /// Whether the arena has grown past its cap.
    #[inline]
    pub(crate) fn over_cap(&self) -> bool {
        self.over_cap
    }

    /// Called when a new slot is added: the only place the arena grows.
    #[cold]
    fn grew(&mut self) {
        if self.slots.len() > self.cap {
            self.over_cap = true;
        }
    }

    /// Stores `p` and returns its id, reusing a freed slot when there is one.
    #[inline]
    pub(crate) fn alloc(&mut self, p: Packet) -> PacketId {
        self.live += 1;
        if let Some(id) = self.free.pop() {
            *self.get_mut(id) = p;
            id
        } else {
            self.slots.push(p);
            if self.slots.len() > self.cap {
                self.grew();
            }
            PacketId((self.slots.len() - 1) as u32)
        }
    }

    /// Stores a packet built in place by `init`, which must set every field it relies on (a reused
    /// slot still holds its previous packet): the hot path writes headers straight into the slot
    /// instead of building a packet on the stack and copying it in.
    #[inline]
    pub(crate) fn alloc_with(&mut self, init: impl FnOnce(&mut Packet)) -> PacketId {
        self.live += 1;
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                self.slots.push(Packet {
                    src: 0,
                    dst: 0,
                    flow: 0,
                    kind: PacketKind::TcpAck,
                    size_bytes: 0,
                    ecn: Ecn::NotEct,
                    corrupted: false,
                    tcp: TcpHeader::default(),
                });
                if self.slots.len() > self.cap {
                    self.grew();
                }
                PacketId((self.slots.len() - 1) as u32)
            }
        };
        init(self.get_mut(id));
        id
    }

    /// Releases a packet's slot. The id must not be used afterwards.
    #[inline]
    pub(crate) fn free(&mut self, id: PacketId) {
        self.live -= 1;
        self.free.push(id);
    }

    /// The packet in slot `id`, read without a bounds check (see [`PacketId`]).
    #[inline]
    pub(crate) fn get(&self, id: PacketId) -> &Packet {
        debug_assert!((id.0 as usize) < self.slots.len(), "packet {} of {} slots", id.0, self.slots.len());
        // SAFETY: `id` was made by this arena's `alloc`/`alloc_with` as the index of a slot it
        // had pushed, and slots are never removed (see `PacketId`).
        unsafe { self.slots.get_unchecked(id.0 as usize) }
    }

    /// [`PacketArena::get`], to write.
    #[inline]
    pub(crate) fn get_mut(&mut self, id: PacketId) -> &mut Packet {
        debug_assert!((id.0 as usize) < self.slots.len(), "packet {} of {} slots", id.0, self.slots.len());
        // SAFETY: as in `get`.
        unsafe { self.slots.get_unchecked_mut(id.0 as usize) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sack_option_sizes_match_rfc2018() {
        // RFC 2018 §3: a SACK option with n blocks has 8n+2 bytes; padded to a 4-byte boundary.
        assert_eq!(sack_option_bytes(1), 12);
        assert_eq!(sack_option_bytes(3), 28);
        assert_eq!(sack_option_bytes(4), 36);
        assert_eq!((ns2_sack_option_bytes(0), ns2_sack_option_bytes(1), ns2_sack_option_bytes(3)), (0, 8, 24));
        // With timestamps (12) at most 3 blocks fit in 40 option bytes.
        assert!(TS_OPTION_BYTES + sack_option_bytes(3) <= 40);
        assert!(TS_OPTION_BYTES + sack_option_bytes(4) > 40);
    }

    /// CAIAD Fig. 1: 6 + 3 option bytes, padded to whole 32-bit words.
    #[test]
    fn caiad_option_sizes() {
        assert_eq!(caiad_option_bytes(true, true), 12); // 9 -> 12
        assert_eq!(caiad_option_bytes(true, false), 8); // 6 -> 8
        assert_eq!(caiad_option_bytes(false, true), 4); // 3 -> 4
        assert_eq!(caiad_option_bytes(false, false), 0);
    }
}
