//! The sender's unit tests, each a trace of sends, ACKs and timers worked by hand.

use super::*;
use crate::net::SackBlock;

const MS: u64 = 1_000_000;

/// The scenario defaults with `sack` and an initial window of `iw` segments, without limited
/// transmit (the hand-worked traces send nothing on the first two duplicate ACKs).
pub(crate) fn cfg(sack: bool, iw: u64) -> SenderConfig {
    SenderConfig { sack, initial_cwnd_bytes: iw * 1000, limited_transmit: false, ..SenderConfig::default() }
}

pub(crate) fn sender(recovery: &str, sack: bool, iw: u64) -> Sender {
    Sender::new(
        cfg(sack, iw),
        crate::cc::build("reno", None).unwrap_or_else(|_| unreachable!()),
        crate::tcp::recovery::by_name(recovery).unwrap(),
    )
}

pub(crate) fn ack(n: u64) -> TcpHeader {
    TcpHeader { ack: n, ..TcpHeader::default() }
}

pub(crate) fn sent(s: &mut Sender) -> Vec<(u64, bool)> {
    s.core.out.drain(..).map(|o| (o.seq, o.retransmission)).collect()
}

/// `rtt_sample_duplicate_acks` (ns-2.35 TCP-Linux): 4 segments sent at t = 0 with TSval 0.
/// ACK 1000 at 100 ms (TSecr 0): first sample, SRTT 100 ms. Segment 1 lost; duplicate ACKs
/// at 150 and 200 ms echo TS.Recent = 0 (the segment that last advanced the receiver's left
/// edge): samples of 150 and 200 ms with the option, SRTT = 7/8·(7/8·100 + 1/8·150) + 1/8·200
/// = 7/8·106.25 + 25 = 117.968 75 ms; without it the duplicates give none and SRTT stays 100 ms.
#[test]
fn duplicate_ack_rtt_samples_by_hand() {
    for on in [false, true] {
        let mut c = cfg(false, 4);
        c.timestamps = true;
        c.rtt_sample_duplicate_acks = on;
        let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("reno").unwrap());
        s.offer(0, u64::MAX);
        assert!(sent(&mut s).len() >= 4);
        let ts = |n: u64| TcpHeader { has_ts: true, ts_ecr: 0, ..ack(n) };
        s.on_ack(100 * MS, &ts(1000));
        assert_eq!(s.core.rtt.srtt(), Some(100 * MS));
        s.on_ack(150 * MS, &ts(1000));
        s.on_ack(200 * MS, &ts(1000));
        let want = if on { 117_968_750 } else { 100 * MS };
        assert_eq!((s.core.rtt.srtt(), s.core.stats.rtt_samples), (Some(want), if on { 3 } else { 1 }));
    }
}

/// RFC 6582 worked by hand: 10 segments in flight, segments 2 and 5 lost.
#[test]
fn newreno_partial_and_full_ack() {
    let mut s = sender("newreno", false, 10);
    s.offer(0, u64::MAX);
    assert_eq!(sent(&mut s).len(), 10);
    s.on_ack(100 * MS, &ack(1000)); // slow start: cwnd 11000, sends 10 and 11
    s.on_ack(101 * MS, &ack(2000)); // cwnd 12000, sends 12 and 13
    assert_eq!(sent(&mut s), vec![(10_000, false), (11_000, false), (12_000, false), (13_000, false)]);
    assert_eq!(s.core.seq.snd_max, 14_000);
    // Segment 2 lost: three duplicate ACKs → fast retransmit.
    for k in 0..3 {
        s.on_ack((102 + k) * MS, &ack(2000));
    }
    // Step 3: ssthresh = max(FlightSize/2, 2 SMSS) = 12000/2; cwnd = ssthresh + 3 SMSS.
    assert_eq!(s.core.w.ssthresh, 6000);
    assert_eq!(s.core.w.cwnd, 9000);
    assert_eq!(s.core.rec.recover, Some(14_000));
    assert_eq!(sent(&mut s), vec![(2000, true)]);
    // Step 4: 8 more duplicates (segments 6..13) inflate cwnd to 17000 → new data up to 19000.
    for k in 0..8 {
        s.on_ack((105 + k) * MS, &ack(2000));
    }
    assert_eq!(s.core.w.cwnd, 17_000);
    assert_eq!(sent(&mut s).iter().map(|x| x.0).collect::<Vec<_>>(), vec![14_000, 15_000, 16_000, 17_000, 18_000]);
    // Step 5: partial ACK for 5000 (3000 newly acked): retransmit 5000,
    // cwnd = 17000 − 3000 + 1000 = 15000, which allows one more new segment.
    s.on_ack(200 * MS, &ack(5000));
    assert!(s.core.rec.in_recovery);
    assert_eq!(s.core.w.cwnd, 15_000);
    assert_eq!(sent(&mut s), vec![(5000, true), (19_000, false)]);
    // Step 6: full ACK → cwnd = min(ssthresh, max(FlightSize, SMSS) + SMSS) = min(6000, 1000 + 1000).
    s.on_ack(300 * MS, &ack(20_000));
    assert!(!s.core.rec.in_recovery);
    assert_eq!(s.core.w.cwnd, 2000);
    assert_eq!(s.core.stats.fast_retransmits, 1);
    assert_eq!(s.core.stats.retransmissions, 2);
}

/// RFC 3042 worked by hand: 4 segments outstanding (cwnd 4000), segment 0 lost. The first two
/// duplicates each release one new segment (flight 5000 and 6000 ≤ cwnd + 2 SMSS); the third
/// starts fast retransmit with ssthresh = (FlightSize − limited-transmit bytes)/2 =
/// max(4000/2, 2 SMSS) (RFC 5681 §3.2 step 2), cwnd = ssthresh + 3 SMSS, in both modes.
#[test]
fn limited_transmit_by_hand() {
    for lt in [false, true] {
        let mut c = cfg(false, 4);
        c.limited_transmit = lt;
        let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 4);
        s.on_ack(MS, &ack(0));
        s.on_ack(2 * MS, &ack(0));
        let early = sent(&mut s);
        assert_eq!(early, if lt { vec![(4000, false), (5000, false)] } else { vec![] });
        assert_eq!(s.core.w.cwnd, 4000, "limited transmit leaves cwnd alone");
        s.on_ack(3 * MS, &ack(0));
        // cwnd 5000: without limited transmit the flight (4000) leaves room for segment 4
        // now; with it, segments 4 and 5 already went out (flight 6000).
        assert_eq!(sent(&mut s), if lt { vec![(0, true)] } else { vec![(0, true), (4000, false)] });
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (2000, 5000));
    }
    // The receiver's window caps it: rwnd 5000 admits one extra segment only.
    let mut c = cfg(false, 4);
    c.limited_transmit = true;
    c.rwnd_bytes = 5000;
    let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
    s.offer(0, u64::MAX);
    sent(&mut s);
    s.on_ack(MS, &ack(0));
    s.on_ack(2 * MS, &ack(0));
    assert_eq!(sent(&mut s), vec![(4000, false)]);
}

/// Tahoe's recover guard is ns-2's `bugfix_` (ACK must pass `recover`), not RFC 6582's ACK
/// heuristic: segments 0..7 out, 0 lost → fast retransmit, recover = 8000, go back N. A
/// cumulative ACK of 2000 (a 2-SMSS advance, cwnd 2000 > SMSS) followed by three duplicates
/// would pass the heuristic, but 2000 ≤ recover, so no second fast retransmit. (With limited
/// transmit the heuristic turned go-back-N duplicates into hundreds of spurious ones.)
#[test]
fn tahoe_recover_guard_is_strict() {
    let mut s = sender("tahoe", false, 8);
    s.offer(0, u64::MAX);
    assert_eq!(sent(&mut s).len(), 8);
    for k in 0..3 {
        s.on_ack(k * MS, &ack(0));
    }
    assert_eq!(s.core.stats.fast_retransmits, 1);
    assert_eq!(s.core.rec.recover, Some(8000));
    assert_eq!(sent(&mut s), vec![(0, true)]);
    s.on_ack(10 * MS, &ack(2000));
    assert_eq!(s.core.w.cwnd, 2000);
    assert!(!s.core.recover_guard_passes());
    s.core.cfg.recover_ack_heuristic = true;
    assert!(s.core.recover_guard_passes(), "the RFC 6582 ACK heuristic would allow it");
    s.core.cfg.recover_ack_heuristic = false;
    for k in 0..3 {
        s.on_ack((11 + k) * MS, &ack(2000));
    }
    assert_eq!(s.core.stats.fast_retransmits, 1);
}

/// Reno (RFC 5681) leaves recovery on the first new ACK even when it is partial.
#[test]
fn reno_exits_on_partial_ack() {
    let mut s = sender("reno", false, 8);
    s.offer(0, u64::MAX);
    sent(&mut s);
    for k in 0..3 {
        s.on_ack(k * MS, &ack(0));
    }
    assert!(s.core.rec.in_recovery);
    assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (4000, 7000));
    s.on_ack(10 * MS, &ack(3000)); // partial
    assert!(!s.core.rec.in_recovery);
    assert_eq!(s.core.w.cwnd, 4000);
}

/// Segments 0..9 outstanding (MSS 1000), and an ACK of 0 SACKing 4, 5, 6 and 8 (the scoreboard
/// of the hand-worked SACK and FACK tests).
pub(crate) fn sacked_4_5_6_8(recovery: &str) -> Sender {
    let mut s = sender(recovery, true, 10);
    s.offer(0, u64::MAX);
    sent(&mut s);
    let mut h = ack(0);
    h.n_sack = 2;
    h.sack[0] = SackBlock { start: 8000, end: 9000 };
    h.sack[1] = SackBlock { start: 4000, end: 7000 };
    s.on_ack(MS, &h);
    s
}

/// RFC 6675 SetPipe and NextSeg worked by hand: segments 0..9 outstanding, 4, 5, 6 and 8
/// SACKed, 0 and 1 already retransmitted (HighRxt = 2000), DupThresh 3.
/// IsLost: segments 0–3 have 4 SACKed above → lost; 7 has 1, 9 has 0 → not lost.
/// pipe = seg 0 (lost, retransmitted: +1) + seg 1 (+1) + 2, 3 (lost, not retransmitted: 0)
///      + seg 7 (not lost: +1) + seg 9 (+1) = 4 segments.
/// NextSeg rule (1): the first lost unSACKed segment at or above HighRxt = segment 2.
#[test]
fn rfc6675_pipe_and_nextseg_by_hand() {
    let mut s = sacked_4_5_6_8("sack");
    let c = &mut s.core;
    assert_eq!(c.board.iter().filter(|m| m.sacked).count(), 4);
    c.rec.high_rxt = 2000;
    assert_eq!(c.pipe(), 4000);
    assert_eq!(c.next_seg(), Some((2000, true)));
    c.rec.high_rxt = 4000; // segments 2 and 3 retransmitted as well
    assert_eq!(c.pipe(), 6000);
    // No more lost segments above HighRxt: rule (2) new data.
    assert_eq!(c.next_seg(), Some((10_000, false)));
}

/// Entering SACK recovery: cwnd = ssthresh = FlightSize/2, first unSACKed segment resent,
/// then nothing more while pipe ≥ cwnd.
#[test]
fn sack_recovery_entry() {
    let mut s = sender("sack", true, 10);
    s.offer(0, u64::MAX);
    sent(&mut s);
    for k in 0..3u64 {
        let mut h = ack(0);
        h.n_sack = 1;
        h.sack[0] = SackBlock { start: 1000, end: 2000 + k * 1000 };
        s.on_ack((k + 1) * MS, &h);
    }
    assert!(s.core.rec.in_recovery);
    assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (5000, 5000));
    // pipe: seg 0 lost & retransmitted (1) + segs 4..9 not lost (6) = 7000 ≥ cwnd.
    assert_eq!(s.core.pipe(), 7000);
    assert_eq!(sent(&mut s), vec![(0, true)]);
}

/// Karn's rule: no RTT sample from an ACK of a retransmitted segment; the backed-off RTO is
/// kept until a segment sent once is acknowledged.
#[test]
fn karn_rule_and_backoff() {
    let mut s = sender("newreno", false, 1);
    s.offer(0, u64::MAX);
    assert_eq!(sent(&mut s), vec![(0, false)]);
    assert_eq!(s.core.rto_deadline, Some(1000 * MS));
    s.on_timeout(1000 * MS);
    assert_eq!(sent(&mut s), vec![(0, true)]);
    assert_eq!(s.core.rtt.rto(), 2000 * MS);
    assert_eq!(s.core.rto_deadline, Some(3000 * MS));
    // The ACK of the retransmission (ambiguous) gives no sample and keeps the back-off.
    s.on_ack(1100 * MS, &ack(1000));
    assert_eq!(s.core.stats.rtt_samples, 0);
    assert_eq!(s.core.rtt.rto(), 2000 * MS);
    // Segment 1000 was sent once (at 1100 ms): its ACK is a valid sample of 80 ms.
    assert_eq!(sent(&mut s).first(), Some(&(1000, false)));
    s.on_ack(1180 * MS, &ack(2000));
    assert_eq!(s.core.stats.rtt_samples, 1);
    assert_eq!(s.core.rtt.srtt(), Some(80 * MS));
    // RFC 6298 (2.2): SRTT 80, RTTVAR 40 → RTO = 80 + 4·40 = 240 ms, back-off cleared.
    assert_eq!(s.core.rtt.rto(), 240 * MS);
}

/// Segments 0..9 out at t = 0 (IW 10); the ACK of segment 0 at 100 ms gives SRTT 100,
/// RTTVAR 50, RTO = 100 + 4·50 = 300 ms, restarts the timer (400 ms) and releases segments
/// 10 and 11 (segment 10 is timed from 100 ms); segment 1 is lost.
fn one_loss_after_first_sample(restart: bool) -> Sender {
    let mut c = cfg(false, 10);
    c.fast_retransmit_restarts_rto = restart;
    let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
    s.offer(0, u64::MAX);
    assert_eq!(sent(&mut s).len(), 10);
    s.on_ack(100 * MS, &ack(1000));
    assert_eq!(s.core.rtt.rto(), 300 * MS);
    assert_eq!(s.core.rto_deadline, Some(400 * MS));
    assert_eq!(sent(&mut s), vec![(10_000, false), (11_000, false)]);
    assert_eq!(s.core.timing, Some((11_000, 100 * MS)));
    s
}

/// ns-2.35 `dupack_action` → `reset_rtx_timer(1, 0)`: the third duplicate ACK (130 ms)
/// restarts the timer at 130 + 300 = 430 ms and stops timing segment 10, so the full ACK at
/// 230 ms gives no sample. With `fast_retransmit_restarts_rto = false` the timer armed by
/// the ACK at 100 ms still expires at 400 ms, 270 ms into the recovery.
#[test]
fn fast_retransmit_restarts_timer_and_stops_timing() {
    for restart in [true, false] {
        let mut s = one_loss_after_first_sample(restart);
        for t in [110, 120, 130] {
            s.on_ack(t * MS, &ack(1000));
        }
        assert_eq!(s.core.stats.fast_retransmits, 1);
        assert_eq!(sent(&mut s), vec![(1000, true)]);
        assert_eq!(s.core.rto_deadline, Some(if restart { 430 * MS } else { 400 * MS }));
        assert_eq!(s.core.timing, None);
        s.on_ack(230 * MS, &ack(12_000));
        assert!(!s.core.rec.in_recovery);
        assert_eq!(s.core.stats.rtt_samples, 1, "no sample from the recovery");
    }
}

/// Karn's rule voids the measurement only when the timed segment itself is resent: resending
/// segment 1 (a CAIAD-style repair at 105 ms) keeps segment 10 timed, and its ACK at 230 ms
/// is a sample of 130 ms (SRTT = 7/8·100 + 1/8·130 = 103.75 ms); resending segment 10 voids it.
#[test]
fn karn_voids_only_the_timed_segment() {
    let mut s = one_loss_after_first_sample(true);
    s.core.retransmit(105 * MS, 1000);
    assert_eq!(s.core.timing, Some((11_000, 100 * MS)));
    s.on_ack(230 * MS, &ack(11_000));
    assert_eq!(s.core.stats.rtt_samples, 2);
    assert_eq!(s.core.rtt.srtt(), Some(103_750_000));
    let mut s = one_loss_after_first_sample(true);
    s.core.retransmit(105 * MS, 10_000);
    assert_eq!(s.core.timing, None);
    s.on_ack(230 * MS, &ack(11_000));
    assert_eq!(s.core.stats.rtt_samples, 1);
}

/// Linux-style sampling (`rtt_sampling = every-ack`): IW 4 at t = 0. ACK 1000 at 100 ms:
/// sample 100 ms. ACK 3000 at 130 ms newly acknowledges segments 1 and 2, both sent once at
/// t = 0: sample 130 ms (SRTT 103.75 ms). Segment 3 is resent at 140 ms; the ACK of 4000 at
/// 150 ms covers a retransmitted segment and gives none (`FLAG_RETRANS_DATA_ACKED`).
#[test]
fn every_ack_sampling_by_hand() {
    let mut c = cfg(false, 4);
    c.rtt_sampling = RttSampling::EveryAck;
    let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
    s.offer(0, u64::MAX);
    assert_eq!(sent(&mut s).len(), 4);
    s.on_ack(100 * MS, &ack(1000));
    s.on_ack(130 * MS, &ack(3000));
    assert_eq!(s.core.stats.rtt_samples, 2);
    assert_eq!(s.core.rtt.srtt(), Some(103_750_000));
    s.core.retransmit(140 * MS, 3000);
    s.on_ack(150 * MS, &ack(4000));
    assert_eq!(s.core.stats.rtt_samples, 2);
    // The next ACK covers only segments sent once (4 and 5, sent at 100 ms): 60 ms.
    s.on_ack(160 * MS, &ack(6000));
    assert_eq!(s.core.stats.rtt_samples, 3);
    assert_eq!(s.core.rtt.min_rtt, Some(60 * MS));
}

/// ns-2.35 Reno with `bugfix_`: two losses in one window (segments 0 and 3 of 0..7). The
/// third duplicate starts recovery (recover = 8000), the partial ACK of 3000 ends it (Reno),
/// and the three duplicates of 3000 that follow do not start a second fast retransmit:
/// 3000 ≤ recover. (Without the guard Reno halved its window twice for one window's losses.)
#[test]
fn reno_second_loss_in_window_waits_for_recover() {
    let mut s = sender("reno", false, 8);
    s.offer(0, u64::MAX);
    sent(&mut s);
    for k in 0..3 {
        s.on_ack(k * MS, &ack(0));
    }
    assert_eq!(s.core.stats.fast_retransmits, 1);
    assert_eq!(s.core.rec.recover, Some(8000));
    s.on_ack(10 * MS, &ack(3000));
    assert!(!s.core.rec.in_recovery);
    for k in 0..3 {
        s.on_ack((11 + k) * MS, &ack(3000));
    }
    assert_eq!(s.core.stats.fast_retransmits, 1);
    assert_eq!(s.core.w.ssthresh, 4000);
}

/// `max_cwnd_bytes` bounds the initial window (fuzzing finding, issue 25 part 6): IW 4 with a
/// 2-segment bound sends 2 segments, not 4 (scenario `initial_cwnd_pkts = 4`,
/// `max_cwnd_pkts = 2`; the docs call `max_cwnd_pkts` an upper bound on cwnd).
#[test]
fn max_cwnd_bounds_the_initial_window() {
    let mut c = cfg(false, 4);
    c.max_cwnd_bytes = 2000;
    let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
    assert_eq!(s.core.w.cwnd, 2000);
    s.offer(0, u64::MAX);
    assert_eq!(sent(&mut s), vec![(0, false), (1000, false)]);
}

/// An ACK number inside a segment acknowledges only the whole segments below it (fuzzing
/// finding, issue 25 part 6): IW 4 (segments 0..3 of 1000 B), ACK 1500 moves snd_una to 1000
/// and releases new data from 4000 on; ACK 1200, inside the first outstanding segment, is
/// neither new nor a duplicate; the timeout resends segment 1000 whole, within snd_max. (The
/// sender used to set snd_una = 1500 and resend [1500, 2500) and later "retransmit" bytes
/// above snd_max it had never sent.) A corruption report inside a segment is ignored too.
#[test]
fn ack_inside_a_segment_acknowledges_whole_segments() {
    let mut s = sender("newreno", false, 4);
    s.offer(0, u64::MAX);
    assert_eq!(sent(&mut s).len(), 4);
    s.on_ack(100 * MS, &ack(1500));
    assert_eq!((s.core.seq.snd_una, s.core.stats.acked_bytes), (1000, 1000));
    assert_eq!(sent(&mut s), vec![(4000, false), (5000, false)]);
    s.on_ack(110 * MS, &ack(1200));
    assert_eq!((s.core.seq.snd_una, s.core.rec.dupacks), (1000, 0));
    s.on_timeout(s.core.rto_deadline.unwrap());
    assert_eq!(sent(&mut s), vec![(1000, true)]);
    assert_eq!(s.core.seq.snd_max, 6000);
    let mut c = Sender::new(cfg(false, 4), crate::cc::build("caiad", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
    c.offer(0, u64::MAX);
    sent(&mut c);
    c.on_ack(MS, &TcpHeader { corrupt_seq: Some(1500), ..ack(0) });
    assert_eq!(sent(&mut c), vec![]);
    c.on_ack(2 * MS, &TcpHeader { corrupt_seq: Some(1000), ..ack(0) });
    assert_eq!(sent(&mut c), vec![(1000, true)]);
}

/// `rto_undo = "eifel"` (RFC 3522 detection, Linux's undo), Reno with timestamps: IW 4 sent at
/// t = 0 (TSval 0). ACK 1000 at 100 ms (TSecr 0): SRTT 100 ms, RTO 300 ms, slow start to cwnd 5,
/// so 4000 and 5000 leave at 100 ms. Then an outage: the timer fires at 400 ms with 5 segments
/// out; Reno sets ssthresh = 2500 (2 segments), cwnd = 1 and resends 1000 (TSval 400 ms).
/// - The originals arrive after all: ACK 6000 at 450 ms echoes TSecr 100 ms < 400 ms, so the
///   timeout was spurious: cwnd = max(1000, 5000) grown by the ACK to 6000, ssthresh back to
///   max(2500, prior 1 000 000), and the go-back-N stops: six new segments 6000..11000 leave.
/// - The same ACK echoing 400 ms (the retransmission arrived first) undoes nothing: cwnd 1000 + 1000,
///   ssthresh 2500, two new segments; so does the same ACK without the option.
#[test]
fn eifel_undoes_a_spurious_timeout_by_hand() {
    for (undo, ecr_ms, spurious) in [(true, 100, true), (true, 400, false), (false, 100, false)] {
        let mut c = cfg(false, 4);
        c.timestamps = true;
        c.rto_undo = if undo { RtoUndoPolicy::Eifel } else { RtoUndoPolicy::None };
        let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 4);
        s.on_ack(100 * MS, &TcpHeader { has_ts: true, ts_ecr: 0, ..ack(1000) });
        assert_eq!(sent(&mut s), vec![(4000, false), (5000, false)]);
        assert_eq!(s.core.rto_deadline, Some(400 * MS));
        s.on_timeout(400 * MS);
        assert_eq!(sent(&mut s), vec![(1000, true)]);
        assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (1000, 2500));
        s.on_ack(450 * MS, &TcpHeader { has_ts: true, ts_ecr: ecr_ms * MS, ..ack(6000) });
        let out = sent(&mut s);
        if spurious {
            assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (6000, 1_000_000));
            assert_eq!(out, (6..12).map(|k| (k * 1000, false)).collect::<Vec<_>>());
            assert_eq!(s.core.stats.spurious_timeouts, 1);
        } else {
            assert_eq!((s.core.w.cwnd, s.core.w.ssthresh), (2000, 2500));
            assert_eq!(out, vec![(6000, false), (7000, false)]);
            assert_eq!(s.core.stats.spurious_timeouts, 0);
        }
        assert!(s.core.rec.rto_undo.is_none(), "the first ACK after the timeout decides");
    }
}

/// `timeout_ssthresh`, worked by hand on `newreno_partial_and_full_ack`'s trace: 14 segments sent,
/// segment 2 lost, fast retransmit at flight 12000 → ssthresh 6000, then 8 duplicates (19 000
/// sent, flight 17 000) and the timer expires inside the recovery. RFC 5681 eq. (4) halves the
/// flight: ssthresh = 17 000/2 = 8500. ns-2.35 halves window() = min(cwnd_, wnd_) without the
/// `dupwnd_` inflation, the recovery's 6 segments: ssthresh = 3 segments. Outside a recovery ns-2
/// halves cwnd (here 12 segments after the slow start, none outstanding beyond it: the same).
#[test]
fn timeout_ssthresh_flight_or_ns2_window_by_hand() {
    for ns2 in [false, true] {
        let mut c = cfg(false, 10);
        c.timeout_ssthresh_from_window = ns2;
        let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
        s.offer(0, u64::MAX);
        s.on_ack(100 * MS, &ack(1000));
        s.on_ack(101 * MS, &ack(2000));
        for k in 0..11 {
            s.on_ack((102 + k) * MS, &ack(2000));
        }
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd, s.core.seq.snd_max), (6000, 17_000, 19_000));
        s.on_timeout(s.core.rto_deadline.unwrap());
        assert_eq!(s.core.w.ssthresh, if ns2 { 3000 } else { 8500 }, "ns2 = {ns2}");
        assert_eq!(s.core.w.cwnd, 1000);
    }
    // Outside a recovery: 4 segments outstanding with cwnd 4000, the timer expires: both 2000.
    for ns2 in [false, true] {
        let mut c = cfg(false, 4);
        c.timeout_ssthresh_from_window = ns2;
        let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("newreno").unwrap());
        s.offer(0, u64::MAX);
        s.on_timeout(s.core.rto_deadline.unwrap());
        assert_eq!(s.core.w.ssthresh, 2000, "ns2 = {ns2}");
    }
}

/// `recover_guard_timeout_only` (ns-2.35 Sack1 clears `recover_` when its fast recovery ends),
/// worked by hand: segments 0..7 out, 0 lost. Three duplicates SACKing 1..3 start recovery
/// (recover = 8000, cwnd = ssthresh = 4000); four more SACK 4..7, so pipe falls to the one
/// retransmission and 8000, 9000 and 10000 go out. ACK 8000 reaches recover and ends recovery
/// (cwnd 4000, three segments in flight: 11000 goes out). Segment 8000, the first sent after the
/// RecoveryPoint, is lost: three duplicates of 8000 SACK 9000..12000. RFC 6675's guard needs the
/// cumulative ACK beyond recover (8000 > 8000 fails): no fast retransmit, the timer must expire.
/// Sack1's: recover was cleared at the end of the recovery, so 8000 is resent at once.
#[test]
fn sack1_recover_guard_clears_at_recovery_end_by_hand() {
    let sack_ack = |n: u64, hi: u64| {
        let mut h = ack(n);
        h.n_sack = 1;
        h.sack[0] = SackBlock { start: n + 1000, end: hi };
        h
    };
    for timeout_only in [false, true] {
        let mut c = cfg(true, 8);
        c.recover_guard_timeout_only = timeout_only;
        let mut s = Sender::new(c, crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("sack").unwrap());
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 8);
        for k in 0..7u64 {
            s.on_ack((k + 1) * MS, &sack_ack(0, 2000 + k * 1000));
        }
        assert_eq!(s.core.rec.recover, Some(8000));
        assert_eq!((s.core.w.ssthresh, s.core.stats.fast_retransmits), (4000, 1));
        assert_eq!(sent(&mut s), vec![(0, true), (8000, false), (9000, false), (10_000, false)]);
        s.on_ack(20 * MS, &ack(8000));
        assert!(!s.core.rec.in_recovery);
        assert_eq!(sent(&mut s), vec![(11_000, false)]);
        for k in 0..3u64 {
            s.on_ack((21 + k) * MS, &sack_ack(8000, 10_000 + k * 1000));
        }
        let resent: Vec<_> = sent(&mut s).into_iter().filter(|x| x.1).collect();
        if timeout_only {
            assert_eq!((s.core.stats.fast_retransmits, resent), (2, vec![(8000, true)]));
        } else {
            assert_eq!((s.core.stats.fast_retransmits, resent), (1, vec![]));
        }
    }
}
