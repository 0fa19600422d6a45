//! Per-segment sender scoreboard: which outstanding segments the receiver has SACKed and which
//! were retransmitted. airtcp senders always cut the byte stream at multiples of the MSS, so the
//! segment holding byte `seq` is `(seq − snd_una) / mss` places after the first unacked one.

use crate::net::ring::Ring;
use crate::time::SimTime;

/// State of one outstanding segment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SegMeta {
    /// The receiver reported it in a SACK block (RFC 2018).
    pub sacked: bool,
    /// It was sent more than once.
    pub retransmitted: bool,
    /// When it was last sent (TCP Vegas's fine-grained expiry needs it).
    pub sent_at: SimTime,
}

/// Segments in [snd_una, snd_max), front = the segment starting at snd_una.
///
/// In the engine's power-of-two ring rather than a `VecDeque` (issue 42: the deque's wrap-around
/// arithmetic and capacity checks were some 20 instructions of every segment sent and acknowledged).
#[derive(Debug, Clone, Default)]
pub struct Scoreboard {
    segs: Ring<SegMeta>,
    /// One past the highest SACKed byte (0 when nothing is SACKed).
    pub high_sacked: u64,
}

impl Scoreboard {
    pub fn len(&self) -> usize {
        self.segs.len()
    }

    pub fn is_empty(&self) -> bool {
        self.segs.is_empty()
    }

    /// Makes room for segment index `i` (new segments start un-SACKed).
    #[inline]
    pub fn ensure(&mut self, i: usize) {
        while self.segs.len() <= i {
            self.segs.push_back(SegMeta::default());
        }
    }

    /// Appends the entry of the segment after the last one (a new segment sent), written once:
    /// [`Scoreboard::get_mut`] would write a default entry and change it, a store that the
    /// change must wait to read back.
    #[inline]
    pub(crate) fn push(&mut self, m: SegMeta) {
        self.segs.push_back(m);
    }

    /// Drops the first `n` segments (cumulatively acknowledged).
    #[inline]
    pub fn advance(&mut self, n: usize) {
        self.segs.drop_front(n);
    }

    #[inline]
    pub fn get(&self, i: usize) -> SegMeta {
        self.segs.get(i).copied().unwrap_or_default()
    }

    #[inline]
    pub(crate) fn get_mut(&mut self, i: usize) -> &mut SegMeta {
        self.ensure(i);
        self.segs.get_mut(i).expect("ensured above")
    }

    /// Marks segments [first, last) as SACKed.
    pub(crate) fn mark_sacked(&mut self, first: usize, last: usize) {
        for i in first..last.min(self.segs.len()) {
            if let Some(m) = self.segs.get_mut(i) {
                m.sacked = true;
            }
        }
    }

    /// Forgets every SACK: no segment SACKed, `high_sacked` 0. For a recovery that, like ns-2.35
    /// TCP-Linux's `ScoreBoard1::ClearScoreBoard`, rebuilds its view from the next ACK's blocks.
    pub(crate) fn clear_sacked(&mut self) {
        for i in 0..self.segs.len() {
            if let Some(m) = self.segs.get_mut(i) {
                m.sacked = false;
            }
        }
        self.high_sacked = 0;
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &SegMeta> + ExactSizeIterator {
        self.segs.iter()
    }
}
