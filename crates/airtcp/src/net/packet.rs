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

/// A TCP header as a packet holds it inline: every field but the sequence number's place is
/// shared, the length, CWR and the SACK blocks (issue 42 part 4: a packet is one 64-byte cache
/// line; the 128-byte [`TcpHeader`] was written in full for every packet). What a window policy
/// reads of an ACK ([`crate::cc::AckInfo::header`], through its methods); the engine hands the
/// sender the packet's own copy.
///
/// airtcp's data segments carry no acknowledgment and its ACKs no data, so one word holds an
/// ACK's acknowledgment number or, in the engine's data segments, the sequence number.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct AckHeader {
    /// An ACK's acknowledgment number (a data segment's sequence number inside the engine).
    pub(crate) number: u64,
    /// TSval (a UDP datagram's send time inside the engine: see `Simulator::app_tick`).
    pub(crate) ts_val: u64,
    /// TSecr.
    pub(crate) ts_ecr: u64,
    /// CAIAD's corruption option, when `has_corrupt_seq`.
    pub(crate) corrupt_seq: u64,
    /// ECN-Echo (RFC 3168 §6.1.3).
    pub(crate) ece: bool,
    /// TSval/TSecr present (RFC 7323).
    pub(crate) has_ts: bool,
    /// CAIAD No-Congestion option (see [`TcpHeader::no_congestion`]).
    pub(crate) no_congestion: bool,
    pub(crate) has_corrupt_seq: bool,
    /// SACK blocks the ACK carries (kept beside it: see `PacketArena::sack`).
    pub(crate) n_sack: u8,
}

impl AckHeader {
    /// The cumulative acknowledgment number.
    #[inline]
    pub fn ack(&self) -> u64 {
        self.number
    }

    /// ECN-Echo.
    #[inline]
    pub fn ece(&self) -> bool {
        self.ece
    }

    /// TSval, when the ACK carries timestamps.
    #[inline]
    pub fn ts_val(&self) -> Option<u64> {
        self.has_ts.then_some(self.ts_val)
    }

    /// TSecr, when the ACK carries timestamps.
    #[inline]
    pub fn ts_ecr(&self) -> Option<u64> {
        self.has_ts.then_some(self.ts_ecr)
    }

    /// CAIAD's corruption option (see [`TcpHeader::corrupt_seq`]).
    #[inline]
    pub fn corrupt_seq(&self) -> Option<u64> {
        self.has_corrupt_seq.then_some(self.corrupt_seq)
    }

    /// CAIAD's No-Congestion option (see [`TcpHeader::no_congestion`]).
    #[inline]
    pub fn no_congestion(&self) -> bool {
        self.no_congestion
    }

    /// Sets CAIAD's corruption option.
    #[inline]
    pub(crate) fn set_corrupt_seq(&mut self, seq: Option<u64>) {
        self.has_corrupt_seq = seq.is_some();
        self.corrupt_seq = seq.unwrap_or(0);
    }
}

impl From<&TcpHeader> for AckHeader {
    /// An ACK's header fields (its sequence number, length, CWR and SACK blocks left out).
    fn from(h: &TcpHeader) -> Self {
        let mut a = AckHeader {
            number: h.ack,
            ts_val: h.ts_val,
            ts_ecr: h.ts_ecr,
            ece: h.ece,
            has_ts: h.has_ts,
            no_congestion: h.no_congestion,
            n_sack: h.n_sack,
            ..AckHeader::default()
        };
        a.set_corrupt_seq(h.corrupt_seq);
        a
    }
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

/// A packet in flight: one 64-byte cache line (issue 42 part 4).
///
/// Its TCP header is held as an [`AckHeader`] (whose number is a data segment's sequence
/// number or an ACK's acknowledgment number; the other reads as 0, as airtcp's full header has
/// it) and the length and CWR beside it. The SACK blocks, 64 bytes that only the ACKs of SACK
/// flows carry, live in the arena's side table by packet id ([`PacketArena::sack`]).
/// [`PacketArena::tcp_header`] rebuilds the full header where a cold path wants one.
#[derive(Debug, Clone, Copy)]
#[repr(align(64))]
pub(crate) struct Packet {
    pub hdr: AckHeader,
    pub src: NodeId,
    pub dst: NodeId,
    /// Index of the flow this packet belongs to.
    pub flow: u32,
    /// Bytes on the wire (headers + options + payload): what serialization time is computed from.
    pub size_bytes: u32,
    /// Payload bytes of a TCP segment (0 for an ACK).
    pub len: u32,
    pub kind: PacketKind,
    pub ecn: Ecn,
    /// A channel damaged the payload: the packet still travels, but its checksum fails at the
    /// destination (a corruption-aware receiver may still read its intact header).
    pub corrupted: bool,
    /// Congestion Window Reduced (RFC 3168 §6.1.2).
    pub cwr: bool,
}

// The point of the layout: a packet is one cache line.
const _: () = assert!(std::mem::size_of::<Packet>() == 64);

impl Packet {
    /// A packet with every field zero (no option, not corrupted, not ECN-capable).
    pub(crate) const EMPTY: Packet = Packet {
        hdr: AckHeader {
            number: 0,
            ts_val: 0,
            ts_ecr: 0,
            corrupt_seq: 0,
            ece: false,
            has_ts: false,
            no_congestion: false,
            has_corrupt_seq: false,
            n_sack: 0,
        },
        src: 0,
        dst: 0,
        flow: 0,
        size_bytes: 0,
        len: 0,
        kind: PacketKind::TcpAck,
        ecn: Ecn::NotEct,
        corrupted: false,
        cwr: false,
    };

    /// The sequence number of a data segment (0 for an ACK or a datagram).
    #[inline]
    pub(crate) fn seq(&self) -> u64 {
        if self.kind == PacketKind::TcpData {
            self.hdr.number
        } else {
            0
        }
    }

    /// The acknowledgment number of an ACK (0 for a data segment or a datagram).
    #[inline]
    pub(crate) fn ack(&self) -> u64 {
        if self.kind == PacketKind::TcpAck {
            self.hdr.number
        } else {
            0
        }
    }

    /// A TCP packet of `kind` with `h`'s fields (not its SACK blocks, which live in the arena):
    /// for tests that build packets from a header.
    #[cfg(test)]
    pub(crate) fn from_header(kind: PacketKind, h: &TcpHeader) -> Packet {
        let mut p = Packet { hdr: AckHeader::from(h), len: h.len, kind, cwr: h.cwr, ..Packet::EMPTY };
        if kind == PacketKind::TcpData {
            p.hdr.number = h.seq;
        }
        p
    }

    /// Payload bytes: a TCP segment's length, none for a pure ACK, a UDP datagram's size less its
    /// IP and UDP headers. What a channel's per-byte error model and a capture's length count.
    #[inline]
    pub(crate) fn payload_bytes(&self) -> u32 {
        match self.kind {
            PacketKind::TcpData => self.len,
            PacketKind::TcpAck => 0,
            PacketKind::Udp => self.size_bytes - IP_HEADER_BYTES - UDP_HEADER_BYTES,
        }
    }
}

/// Bytes on the wire of a UDP datagram carrying `payload` bytes: the IP and UDP headers and the
/// payload (the one place the UDP/IP arithmetic lives; [`Packet::payload_bytes`] undoes it).
#[inline]
pub(crate) const fn udp_packet_bytes(payload: u32) -> u32 {
    IP_HEADER_BYTES + UDP_HEADER_BYTES + payload
}

/// The blocks of slot `i` in the SACK side table `sacks` of an arena of `slots` slots, grown to
/// hold it on the first write (to the arena's size, so it grows about once).
#[cold]
fn sack_slot(sacks: &mut Vec<[SackBlock; MAX_SACK_BLOCKS]>, slots: usize, i: usize) -> &mut [SackBlock; MAX_SACK_BLOCKS] {
    debug_assert!(i < slots, "slot {i} of {slots}");
    if sacks.len() <= i {
        sacks.resize(slots, [SackBlock::default(); MAX_SACK_BLOCKS]);
    }
    &mut sacks[i]
}

/// Slab of packets with a free list.
#[derive(Debug)]
pub(crate) struct PacketArena {
    slots: Vec<Packet>,
    /// The SACK blocks of the packet in the same slot, where it has any (`Packet::n_sack`):
    /// grown only when an ACK carries blocks, so that flows without SACK never touch it.
    sacks: Vec<[SackBlock; MAX_SACK_BLOCKS]>,
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
/// serializes). The memory limit converts to a packet count with it. (The SACK side table, 64
/// bytes per slot, exists only where ACKs carry SACK blocks and is not counted.)
pub(crate) const PACKET_BYTES: u64 =
    (std::mem::size_of::<Packet>() + std::mem::size_of::<PacketId>()) as u64 + super::link::RING_BYTES_PER_PACKET;

impl Default for PacketArena {
    fn default() -> Self {
        PacketArena { slots: Vec::new(), sacks: Vec::new(), free: Vec::new(), live: 0, cap: usize::MAX, over_cap: false }
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
                self.slots.push(Packet::EMPTY);
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

    /// Asks the processor to bring slot `id` into its cache ahead of a read: a hint, which
    /// changes no result. The engine gives it for a link's next packet in flight when the one
    /// before it arrives, so that the slot (written when the packet was sent, and evicted since
    /// on a path with many packets in flight) is at hand at its own arrival (issue 42). A no-op
    /// off x86-64.
    #[inline(always)]
    pub(crate) fn prefetch(&self, id: PacketId) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let slot = self.slots.as_ptr().wrapping_add(id.0 as usize);
            // SAFETY: a prefetch reads nothing the program sees and cannot fault, whatever the
            // address (and `id` is a slot of this arena besides).
            unsafe { _mm_prefetch::<_MM_HINT_T0>(slot.cast::<i8>()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = id;
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

    /// The SACK blocks of packet `id` (its `n_sack` first blocks in the side table).
    #[inline]
    pub(crate) fn sack(&self, id: PacketId) -> &[SackBlock] {
        match self.get(id).hdr.n_sack as usize {
            0 => &[],
            n => &self.sacks[id.0 as usize][..n],
        }
    }

    /// Packet `id`, to write, and a function that gives its blocks in the SACK side table to
    /// write (the packet's `n_sack` says how many count), growing the table to the slot: called
    /// only for an ACK that carries blocks.
    #[inline]
    pub(crate) fn get_mut_and_sack<'a>(
        &'a mut self,
        id: PacketId,
    ) -> (&'a mut Packet, impl FnOnce() -> &'a mut [SackBlock; MAX_SACK_BLOCKS] + 'a) {
        debug_assert!((id.0 as usize) < self.slots.len(), "packet {} of {} slots", id.0, self.slots.len());
        let slots = self.slots.len();
        let sacks = &mut self.sacks;
        // SAFETY: as in `get`.
        let p = unsafe { self.slots.get_unchecked_mut(id.0 as usize) };
        (p, move || sack_slot(sacks, slots, id.0 as usize))
    }

    /// The full TCP header of packet `id`, for the cold paths that want one (a corrupted
    /// segment's corruption-aware receiver, tests).
    pub(crate) fn tcp_header(&self, id: PacketId) -> TcpHeader {
        let p = self.get(id);
        let mut sack = [SackBlock::default(); MAX_SACK_BLOCKS];
        let blocks = self.sack(id);
        sack[..blocks.len()].copy_from_slice(blocks);
        TcpHeader {
            seq: p.seq(),
            ack: p.ack(),
            len: p.len,
            ece: p.hdr.ece,
            cwr: p.cwr,
            has_ts: p.hdr.has_ts,
            ts_val: p.hdr.ts_val,
            ts_ecr: p.hdr.ts_ecr,
            n_sack: p.hdr.n_sack,
            sack,
            corrupt_seq: p.hdr.corrupt_seq(),
            no_congestion: p.hdr.no_congestion,
        }
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

    /// The engine's ACK (the receiver's `next_ack` into a 64-byte packet and the SACK side
    /// table) reads back, through `PacketArena::tcp_header`, as the full header the public
    /// `Receiver::make_ack` builds, with the receivers in the same state afterwards: random
    /// segment orders over every option mix (SACK, timestamps, CAIAD's corrupted segments).
    /// Flows without SACK leave the side table untouched.
    #[test]
    fn compact_ack_reads_back_as_the_full_header() {
        use crate::cc::EcnEcho;
        use crate::tcp::receiver::{Receiver, ReceiverConfig};
        let mut rng = 0x2545_f491_4f6c_dd1du64;
        let mut next = move |n: u64| {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            rng % n
        };
        for mix in 0..8u32 {
            let (sack, timestamps, caiad) = (mix & 1 != 0, mix & 2 != 0, mix & 4 != 0);
            let cfg =
                ReceiverConfig { sack, timestamps, delayed_ack: false, delack_timeout_ns: 0, mss: 100, ecn_echo: EcnEcho::UntilCwr, caiad };
            let (mut full, mut compact) = (Receiver::new(cfg.clone()), Receiver::new(cfg));
            let mut arena = PacketArena::default();
            let (mut with_blocks, mut live) = (0, Vec::new());
            for step in 0..400u64 {
                let h = TcpHeader {
                    seq: next(40) * 100,
                    len: 100,
                    has_ts: timestamps,
                    ts_val: step,
                    cwr: next(5) == 0,
                    ..TcpHeader::default()
                };
                let ce = next(7) == 0;
                if caiad && next(6) == 0 {
                    full.on_corrupted(step, &h);
                    compact.on_corrupted(step, &h);
                } else {
                    assert_eq!(full.on_data(step, &h, ce), compact.on_data(step, &h, ce));
                }
                let want = full.make_ack(step);
                // A slot the previous ACKs may have used, as the engine's free list hands out.
                if live.len() > 3 {
                    arena.free(live.remove(next(live.len() as u64) as usize));
                }
                let id = arena.alloc_with(|p| p.kind = PacketKind::TcpAck);
                live.push(id);
                let (p, blocks) = arena.get_mut_and_sack(id);
                compact.next_ack(step, &mut p.hdr, blocks);
                assert_eq!(arena.tcp_header(id), want, "option mix {mix}, step {step}");
                assert_eq!(arena.get(id).hdr, AckHeader::from(&want));
                assert_eq!(format!("{full:?}"), format!("{compact:?}"));
                with_blocks += (want.n_sack > 0) as u32;
            }
            assert_eq!(with_blocks > 0, sack, "option mix {mix}: SACK blocks iff SACK");
            assert_eq!(arena.sacks.is_empty(), !sack, "option mix {mix}: the side table only for SACK");
        }
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
