//! BBR against hand-worked figures (draft-00, tcp_bbr.c) and through the sender.

use super::*;
use crate::cc::westwood::tests::{ack_at, header};
use crate::net::{SackBlock, TcpHeader};
use crate::tcp::rate::RateSampler;

const MS: u64 = 1_000_000;
const S: u64 = 1_000_000_000;

/// BBR after `on_start` with an initial window of `iw` 1000-byte segments.
fn started(iw: u64) -> (Bbr, Window) {
    let mut b = Bbr::new(&BbrParams::default());
    let mut w = Window { cwnd: iw * 1000, ssthresh: 0, mss: 1000 };
    b.on_start(&mut w, 1 << 30);
    (b, w)
}

/// A 1000-byte segment sent at `now`, told to BBR and to the sender's rate sampler as the sender
/// tells them.
fn send(b: &mut Bbr, r: &mut RateSampler, now: u64, seq: u64, flight: u64) {
    b.on_send(&SendInfo { now, seq, len: 1000, retransmission: false, flight_bytes: flight });
    r.on_send(now, seq, 1000, false, flight);
}

/// ACK `a` (new or duplicate) as the sender hands it to BBR: with the sampler's rate sample, and
/// the application-limited mark handed back after it.
fn deliver(b: &mut Bbr, w: &mut Window, r: &mut RateSampler, dup: bool, (a, sack): (AckInfo<'static>, &[SackBlock])) {
    let rs = r.on_ack(a.now, a.ack(), sack, a.min_rtt_ns);
    let a = AckInfo { rate: Some(&rs), ..a };
    if dup {
        b.on_dup_ack(w, &a);
    } else {
        b.on_ack(w, &a);
    }
    if let Some(mark) = b.take_app_limited() {
        r.set_app_limited(mark);
    }
}

/// An ACK at `now` of number `ack` (`acked` bytes newly, `flight` outstanding after it), with
/// SRTT and the sender's minimum RTT 100 ms, and `sack` blocks.
fn ack(now: u64, ack: u64, acked: u64, flight: u64, sack: &[(u64, u64)]) -> (AckInfo<'static>, &'static [SackBlock]) {
    let h = TcpHeader { ack, n_sack: sack.len() as u8, ..TcpHeader::default() };
    let blocks = sack.iter().map(|&(start, end)| SackBlock { start, end }).collect::<Vec<_>>().leak();
    (AckInfo { flight_bytes: flight, header: header(h), ..ack_at(now, acked, 100 * MS) }, blocks)
}

/// The max filter over 10 rounds: samples 5 (round 1), 9 (round 2), 7 (round 3), 3 (round 11).
/// In round 11 round 1 has left the window (1 + 10 ≤ 11) but round 2 has not: max 9. In round
/// 12 round 2 has left too: max(7, 3) = 7; in round 13, 3. A second sample in a round keeps
/// that round's larger one.
#[test]
fn btlbw_is_the_max_over_ten_rounds() {
    let mut f = MaxFilter::default();
    f.update(1, 5, 10);
    f.update(2, 9, 10);
    f.update(2, 4, 10);
    f.update(3, 7, 10);
    assert_eq!(f.get(3, 10), 9);
    f.update(11, 3, 10);
    assert_eq!((f.get(11, 10), f.get(12, 10), f.get(13, 10), f.get(21, 10)), (9, 7, 3, 0));
    f.update(12, 2, 10);
    assert_eq!(f.rounds.iter().map(|r| r.0).collect::<Vec<_>>(), vec![3, 11, 12]);
}

/// RTprop (draft-00 §4.1.2.3): 100 ms at t = 0; 120 ms at 5 s is ignored (higher, not expired);
/// 90 ms at 6 s is taken (lower) and restarts the 10 s window; 150 ms at 16 s is ignored (16 s
/// is not after 6 + 10 s); at 16 s + 1 ns the estimate has expired and 150 ms replaces it.
#[test]
fn rtprop_is_the_min_over_ten_seconds_with_expiry() {
    let (mut b, _) = started(10);
    for (t, rtt, want, stamp) in
        [(0, 100, 100, 0), (5 * S, 120, 100, 0), (6 * S, 90, 90, 6 * S), (16 * S, 150, 90, 6 * S), (16 * S + 1, 150, 150, 16 * S + 1)]
    {
        b.update_rtprop(t, Some(rtt * MS));
        assert_eq!((b.rtprop_ns, b.rtprop_stamp), (want * MS, stamp), "at {t}");
    }
    assert!(b.rtprop_expired);
}

/// Rate samples (rate-est §3) through on_send/on_ack, IW 10, one segment every 10 ms from 0,
/// each acknowledged 100 ms after it was sent:
/// - ACK of segment 0 at 100 ms: delivered 1000 since P.delivered = 0 at P.delivered_time = 0;
///   send_elapsed = 0, ack_elapsed = 100 ms → 10 000 B/s; round 1; RTprop 100 ms; cwnd grows
///   by the 1000 B delivered (C.delivered < InitialCwnd); the pacing rate is re-initialised
///   from SRTT: 2.885·10 000 B/0.1 s = 288 539 B/s.
/// - Segment 10 is sent at 100 ms with P.delivered = 1000, P.delivered_time = 100 ms,
///   P.first_sent_time = 0 (the send time of segment 0, the last one delivered).
/// - ACK of segment 9 at 190 ms: 10 000 B in max(90, 190) ms = 52 631 B/s.
/// - ACK of segment 10 at 200 ms: 10 000 B in max(100 − 0, 200 − 100) ms = 100 000 B/s, the
///   rate segments were sent at; P.delivered = 1000 ≥ next_round_delivered = 1000: round 2.
#[test]
fn delivery_rate_samples_by_hand() {
    let (mut b, mut w) = started(10);
    let mut r = RateSampler::new(1000);
    assert_eq!(b.pacing_rate, 28_853_900); // 2.885·10 000 B/1 ms
    for k in 0..10 {
        send(&mut b, &mut r, k * 10 * MS, k * 1000, k * 1000);
    }
    deliver(&mut b, &mut w, &mut r, false, ack(100 * MS, 1000, 1000, 9000, &[]));
    assert_eq!((b.btlbw(), b.round_count, b.rtprop_ns), (10_000, 1, 100 * MS));
    assert_eq!((b.cwnd, w.cwnd, b.pacing_rate), (11_000, 11_000, 288_539));
    send(&mut b, &mut r, 100 * MS, 10_000, 9000);
    for k in 1..10 {
        deliver(&mut b, &mut w, &mut r, false, ack((100 + 10 * k) * MS, (k + 1) * 1000, 1000, 10_000 - k * 1000, &[]));
    }
    assert_eq!((b.btlbw(), b.round_count), (52_631, 1));
    deliver(&mut b, &mut w, &mut r, false, ack(200 * MS, 11_000, 1000, 0, &[]));
    assert_eq!((b.btlbw(), b.round_count, b.delivered), (100_000, 2, 11_000));
    assert_eq!(b.estimates()[0].1, 800_000.0);
}

/// SACKed segments are delivered when SACKed, not again when cumulatively acknowledged, and
/// leave the in-flight count: 5 segments out at 0; a duplicate ACK at 100 ms SACKing 2000–4000
/// delivers 2000 B (in flight 5000 − 2000 = 3000); the cumulative ACK of 5000 at 110 ms
/// delivers only segments 0 and 1 and 4 (3000 B).
#[test]
fn sacked_segments_are_delivered_once() {
    let (mut b, mut w) = started(10);
    let mut r = RateSampler::new(1000);
    for k in 0..5 {
        send(&mut b, &mut r, 0, k * 1000, k * 1000);
    }
    deliver(&mut b, &mut w, &mut r, true, ack(100 * MS, 0, 0, 5000, &[(2000, 4000)]));
    assert_eq!((b.delivered, b.sacked_bytes, b.in_flight(5000)), (2000, 2000, 3000));
    deliver(&mut b, &mut w, &mut r, false, ack(110 * MS, 5000, 5000, 0, &[]));
    assert_eq!((b.delivered, b.sacked_bytes, b.in_flight(0)), (5000, 0, 0));
}

/// Hand-worked targets: BtlBw 250 000 B/s (2 Mbit/s), RTprop 100 ms → BDP 25 000 B. Pacing
/// rate 250 000 B/s ≥ 1.2 Mbit/s → send quantum max(min(250 B, 64 KB), 2 segments) = 2000 B.
/// cwnd target in ProbeBW = 2·25 000 + 3·2000 = 56 000 B; inflight(1.25) = 37 250 B,
/// inflight(1) = 31 000 B. Pacing rate in phase 0: 1.25·250 000 = 312 500 B/s; in Drain:
/// 250 000/2.885 = 86 643 B/s. Below 1.2 Mbit/s (100 000 B/s) the quantum is 1 segment.
#[test]
fn cwnd_and_pacing_targets_by_hand() {
    let (mut b, mut w) = started(10);
    b.btlbw_filter.update(0, 250_000, 10);
    b.rtprop_ns = 100 * MS;
    b.filled_pipe = true;
    b.pacing_rate = 250_000;
    assert_eq!(b.send_quantum(), 2000);
    assert_eq!((b.inflight(2.0), b.inflight(1.25), b.inflight(1.0)), (56_000, 37_250, 31_000));
    b.cycle_index = 7;
    b.mode = Mode::ProbeBw;
    b.advance_cycle_phase(0);
    b.set_pacing_rate(100 * MS);
    assert_eq!((b.cycle_index, b.pacing_gain, b.pacing_rate), (0, 1.25, 312_500));
    b.pacing_gain = 1.0 / HIGH_GAIN;
    b.set_pacing_rate(100 * MS);
    assert_eq!(b.pacing_rate, 86_643);
    b.pacing_rate = 100_000;
    assert_eq!(b.send_quantum(), 1000);
    // cwnd approaches the target by what each ACK delivers, and is cut to it from above.
    b.pacing_rate = 250_000;
    b.cwnd_gain = 2.0;
    b.cwnd = 50_000;
    b.set_cwnd(4000, 40_000);
    assert_eq!(b.cwnd, 54_000);
    b.set_cwnd(4000, 40_000);
    assert_eq!(b.cwnd, 56_000);
    b.cwnd = 90_000;
    b.set_cwnd(1000, 40_000);
    assert_eq!(b.cwnd, 56_000);
    // Never below 4 segments.
    b.btlbw_filter = MaxFilter::default();
    b.cwnd = 1000;
    b.set_cwnd(1000, 0);
    assert_eq!(b.cwnd, 4000);
    let _ = &mut w;
}

/// The ProbeBW phase rule (draft-00 §4.3.4.3) with the targets above (RTprop 100 ms, phase
/// started at 0): gain 1 ends strictly after one RTprop; gain 1.25 also needs inflight ≥
/// 37 250 B or a loss; gain 0.75 ends after one RTprop or as soon as inflight ≤ 31 000 B.
#[test]
fn gain_cycle_phase_advance_rule() {
    let (mut b, _) = started(10);
    b.btlbw_filter.update(0, 250_000, 10);
    b.rtprop_ns = 100 * MS;
    b.pacing_rate = 250_000;
    b.mode = Mode::ProbeBw;
    b.cycle_stamp = 0;
    b.pacing_gain = 1.0;
    assert!(!b.is_next_cycle_phase(100 * MS, 0, true));
    assert!(b.is_next_cycle_phase(100 * MS + 1, 0, false));
    b.pacing_gain = 1.25;
    assert!(!b.is_next_cycle_phase(150 * MS, 37_249, false));
    assert!(b.is_next_cycle_phase(150 * MS, 37_250, false));
    assert!(b.is_next_cycle_phase(150 * MS, 0, true));
    assert!(!b.is_next_cycle_phase(50 * MS, 40_000, true));
    b.pacing_gain = 0.75;
    assert!(!b.is_next_cycle_phase(50 * MS, 31_001, false));
    assert!(b.is_next_cycle_phase(50 * MS, 31_000, false));
    assert!(b.is_next_cycle_phase(101 * MS, 99_999, false));
    // The cycle: 1.25, 0.75, then six phases of 1, and round again.
    b.cycle_index = 0;
    let mut gains = vec![];
    for k in 0..9 {
        b.advance_cycle_phase(k);
        gains.push(b.pacing_gain);
    }
    assert_eq!(gains, [0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.25, 0.75]);
    assert_eq!(b.cycle_stamp, 8);
}

/// ProbeBW starts at a phase drawn from the 7 that are not 0.75 (index 7 − r, r in 0..7, then
/// advanced: indices 0, 2, …, 7), each of them reached, and the draw is a function of the
/// entry time and count only.
#[test]
fn probe_bw_start_phase_excludes_drain() {
    let mut seen = [0u32; 8];
    let (mut a, _) = started(10);
    let (mut b, _) = started(10);
    for k in 0..700u64 {
        a.enter_probe_bw(k * 12_345_679);
        b.enter_probe_bw(k * 12_345_679);
        assert_eq!(a.cycle_index, b.cycle_index);
        assert_eq!((a.mode, a.cwnd_gain, a.cycle_stamp), (Mode::ProbeBw, 2.0, k * 12_345_679));
        assert_eq!(a.pacing_gain, GAIN_CYCLE[a.cycle_index]);
        seen[a.cycle_index] += 1;
    }
    assert_eq!(seen[1], 0);
    assert!(seen.iter().enumerate().all(|(i, &n)| i == 1 || n > 50), "{seen:?}");
}

/// Full pipe (draft-00 §4.3.2.2): BtlBw per round 100, 125, 150, 156, 156 B/s: 125 ≥ 1.25·100
/// resets the count; 150 < 156.25, 156 and 156 are three rounds without 25% growth → filled.
/// ACKs that start no round and app-limited samples do not count. Then Drain (pacing
/// 1/2.885, cwnd gain 2.885) until inflight ≤ inflight(1), then ProbeBW.
#[test]
fn full_pipe_after_three_rounds_without_growth() {
    let (mut b, _) = started(10);
    let rs = RateSample::default();
    for (round, bw, filled) in [(1, 100, false), (2, 125, false), (3, 150, false), (4, 156, false), (5, 156, true)] {
        b.round_count = round;
        b.btlbw_filter = MaxFilter::default();
        b.btlbw_filter.update(round, bw, 10);
        b.round_start = false;
        b.check_full_pipe(&rs);
        b.round_start = true;
        b.check_full_pipe(&RateSample { app_limited: true, ..rs });
        assert_eq!(b.full_bw_count, [0, 0, 0, 1, 2][round as usize - 1]);
        b.check_full_pipe(&rs);
        assert_eq!(b.filled_pipe, filled, "round {round}");
    }
    assert_eq!(b.full_bw, 125);
    b.rtprop_ns = 100 * MS;
    b.btlbw_filter.update(5, 250_000, 10);
    b.pacing_rate = 250_000;
    b.check_drain(0, 31_001);
    assert_eq!((b.mode, b.pacing_gain, b.cwnd_gain), (Mode::Drain, 1.0 / HIGH_GAIN, HIGH_GAIN));
    b.check_drain(MS, 31_000);
    assert_eq!(b.mode, Mode::ProbeBw);
}

/// ProbeRTT (draft-00 §4.3.5): RTprop 100 ms from t = 0, in ProbeBW with cwnd 56 000. At
/// 10 s + 1 ns the estimate has expired: ProbeRTT, cwnd saved, capped at 4 segments. While
/// 20 000 B are in flight the 200 ms do not start; at 11 s inflight is 4000: done at 11.2 s,
/// and a round must pass too. A round start at 11.1 s, then at 11.2 s (not after it) still
/// ProbeRTT; at 11.2 s + 1 ns back to ProbeBW, cwnd restored, RTprop re-stamped.
#[test]
fn probe_rtt_entry_and_exit() {
    let (mut b, _) = started(10);
    b.btlbw_filter.update(0, 250_000, 10);
    b.rtprop_ns = 100 * MS;
    b.filled_pipe = true;
    b.pacing_rate = 250_000;
    b.enter_probe_bw(0);
    b.cwnd = 56_000;
    b.update_rtprop(10 * S, None);
    b.check_probe_rtt(10 * S, 20_000);
    assert_eq!(b.mode, Mode::ProbeBw);
    b.update_rtprop(10 * S + 1, None);
    b.check_probe_rtt(10 * S + 1, 20_000);
    assert_eq!((b.mode, b.prior_cwnd, b.pacing_gain, b.cwnd_gain), (Mode::ProbeRtt, 56_000, 1.0, 1.0));
    b.set_cwnd(1000, 20_000);
    assert_eq!(b.cwnd, 4000);
    assert!(b.app_limited_mark.is_some_and(|m| m > 0));
    b.check_probe_rtt(10 * S + 500 * MS, 20_000);
    assert_eq!(b.probe_rtt_done_stamp, None);
    b.delivered = 777_000;
    b.check_probe_rtt(11 * S, 4000);
    assert_eq!((b.probe_rtt_done_stamp, b.next_round_delivered), (Some(11 * S + 200 * MS), 777_000));
    b.round_start = true;
    b.check_probe_rtt(11 * S + 100 * MS, 4000);
    b.round_start = false;
    b.check_probe_rtt(11 * S + 200 * MS, 4000);
    assert_eq!(b.mode, Mode::ProbeRtt);
    b.check_probe_rtt(11 * S + 200 * MS + 1, 4000);
    assert_eq!((b.mode, b.cwnd, b.rtprop_stamp), (Mode::ProbeBw, 56_000, 11 * S + 200 * MS + 1));
    // Without a full pipe ProbeRTT returns to Startup.
    b.filled_pipe = false;
    b.rtprop_stamp = 0;
    b.update_rtprop(20 * S, None);
    b.check_probe_rtt(20 * S, 0);
    b.round_start = true;
    b.check_probe_rtt(21 * S, 0);
    assert_eq!((b.mode, b.pacing_gain), (Mode::Startup, HIGH_GAIN));
}

/// Fast recovery (tcp_bbr.c `bbr_set_cwnd_to_recover_or_restore`): 10 segments out, cwnd
/// 60 000. A duplicate ACK SACKs 1000–4000; at the fast retransmit cwnd = in flight = 10 000 −
/// 3000 = 7000 (prior cwnd saved). The next duplicate ACK SACKs one more segment: packet
/// conservation, cwnd = max(7000, 6000 + 1000). The end of recovery restores 60 000.
#[test]
fn recovery_conserves_packets_then_restores() {
    let (mut b, mut w) = started(10);
    let mut r = RateSampler::new(1000);
    for k in 0..10 {
        send(&mut b, &mut r, 0, k * 1000, k * 1000);
    }
    b.cwnd = 60_000;
    deliver(&mut b, &mut w, &mut r, true, ack(100 * MS, 0, 0, 10_000, &[(1000, 4000)]));
    let before = b.cwnd;
    let reaction = b.on_congestion(&mut w, &LossSignal { now: 100 * MS, kind: LossKind::DupAcks, marked: false, flight_bytes: 10_000 });
    assert_eq!((reaction, b.cwnd, w.cwnd, b.prior_cwnd), (Reaction::KeepWindow, 7000, 7000, before));
    assert!(b.packet_conservation);
    deliver(&mut b, &mut w, &mut r, true, ack(101 * MS, 0, 0, 10_000, &[(1000, 5000)]));
    assert_eq!(b.cwnd, 7000);
    b.on_recovery_exit(&mut w);
    assert_eq!((b.cwnd, w.cwnd), (before, before));
}

/// Timeout, in ProbeBW (BtlBw 250 000 B/s, RTprop 100 ms: target 56 000 B): cwnd 50 000 with
/// 60 segments sent → cwnd 1 segment, saved 50 000. The next ACK grows cwnd by what it
/// delivers, min(1000 + 1000, target), and then to BBRMinPipeCwnd = 4 segments (draft-00
/// §4.2.3.6, tcp_bbr.c `bbr_set_cwnd`). The ACK that covers all 60 000 B ends the loss episode:
/// cwnd = max(4000, 50 000), and then + 59 000 delivered, at most the target.
#[test]
fn timeout_cuts_to_one_segment_then_restores() {
    let (mut b, mut w) = started(10);
    let mut r = RateSampler::new(1000);
    for k in 0..60 {
        send(&mut b, &mut r, 0, k * 1000, k * 1000);
    }
    b.btlbw_filter.update(0, 250_000, 10);
    b.rtprop_ns = 100 * MS;
    b.filled_pipe = true;
    b.pacing_rate = 250_000;
    b.enter_probe_bw(0);
    b.cwnd = 50_000;
    b.on_congestion(&mut w, &LossSignal { now: S, kind: LossKind::Timeout, marked: false, flight_bytes: 60_000 });
    assert_eq!((b.cwnd, w.cwnd, b.prior_cwnd, b.loss_until), (1000, 1000, 50_000, Some(60_000)));
    send(&mut b, &mut r, S, 0, 60_000);
    deliver(&mut b, &mut w, &mut r, false, ack(S + 100 * MS, 1000, 1000, 59_000, &[]));
    assert_eq!(b.cwnd, 4000);
    deliver(&mut b, &mut w, &mut r, false, ack(S + 200 * MS, 60_000, 59_000, 0, &[]));
    assert_eq!(b.loss_until, None);
    assert_eq!(b.cwnd, (50_000 + 59_000).min(b.inflight(b.cwnd_gain)));
    assert!(b.cwnd >= 50_000);
}

/// ECN-Echo leaves the window alone (BBR v1 has no ECN response).
#[test]
fn ecn_is_ignored() {
    let (mut b, mut w) = started(10);
    let r = b.on_congestion(&mut w, &LossSignal { now: 0, kind: LossKind::Ecn, marked: true, flight_bytes: 10_000 });
    assert_eq!((r, w.cwnd, b.cwnd), (Reaction::KeepWindow, 10_000, 10_000));
}

/// Through the sender: BBR paces from the first segment. IW 10 × 1000 B, no RTT yet: rate =
/// 2.885·10 000 B/1 ms = 28 853 900 B/s, one segment every ⌊10¹²/28 853 900⌋ = 34 657 ns. The
/// offer sends one segment and asks to be woken at 34 657 ns; the timer sends the next.
/// Reno does not pace: all 10 leave at once and no pacing timer is asked for.
#[test]
fn sender_paces_bbr_only() {
    use crate::tcp::sender::tests::{cfg, sent};
    use crate::tcp::Sender;
    let mut s = Sender::new(cfg(true, 10), crate::cc::build("bbr", None).unwrap(), crate::tcp::recovery::by_name("sack").unwrap());
    assert!(s.core.paced);
    s.offer(0, u64::MAX);
    assert_eq!(sent(&mut s), vec![(0, false)]);
    assert_eq!(s.core.pacing_deadline, Some(34_657));
    s.on_pacing_timer(34_657);
    assert_eq!(sent(&mut s), vec![(1000, false)]);
    assert_eq!(s.core.pacing_deadline, Some(2 * 34_657));
    let mut r = Sender::new(cfg(true, 10), crate::cc::build("reno", None).unwrap(), crate::tcp::recovery::by_name("sack").unwrap());
    r.offer(0, u64::MAX);
    assert_eq!(sent(&mut r).len(), 10);
    assert_eq!((r.core.paced, r.core.pacing_deadline, r.core.next_send_at), (false, None, 0));
}

#[test]
fn params_are_checked() {
    let e = |p: BbrParams| p.check().unwrap_err();
    assert_eq!(e(BbrParams { high_gain: 1.0, ..BbrParams::default() }), "high_gain: 1 is out of range (allowed: 1 < high_gain <= 100)");
    assert_eq!(e(BbrParams { cwnd_gain: 0.5, ..BbrParams::default() }), "cwnd_gain: 0.5 is out of range (allowed: 1 <= cwnd_gain <= 100)");
    assert!(e(BbrParams { cwnd_gain: f64::NAN, ..BbrParams::default() }).starts_with("cwnd_gain:"));
    assert_eq!(e(BbrParams { bw_window_rounds: 0, ..BbrParams::default() }), "bw_window_rounds: 0 is out of range (allowed: 1 to 1000)");
    assert_eq!(
        e(BbrParams { rtprop_window: SimDuration::from_nanos(1000), ..BbrParams::default() }),
        "rtprop_window: 0.001ms is out of range (allowed: 1ms to 3600s)"
    );
    assert!(BbrParams::default().check().is_ok());
    assert!((HIGH_GAIN - 2.885).abs() < 1e-3);
    let t = toml::from_str::<toml::Table>("high_gain = 3.0\nrtprop_window = \"5s\"").unwrap();
    assert!(crate::cc::build("bbr", Some(&t)).is_ok());
    let t = toml::from_str::<toml::Table>("gain = 3.0").unwrap();
    assert!(crate::cc::build("bbr", Some(&t)).is_err());
}

/// A fuzzing finding (`fuzz/regressions/sender/bbr-inflight-target-overflow`): BtlBw near 2^64
/// bytes/s over a 10-s RTprop makes gain·BDP saturate the `as u64` conversion, and adding 3
/// send quanta then overflowed. The target saturates at u64::MAX (no window limit); with a
/// sane model it is the hand-worked gain·BDP + 3·quantum: 1.25 MB/s · 100 ms · 2 = 250 000 B,
/// plus 3 send quanta: pacing 1.25 MB/s (10 Mb/s, above 1.2 Mb/s) gives max(1 ms of it = 1250 B,
/// the 2-segment floor 2000 B) = 2000 B, so 250 000 + 6000 = 256 000 B.
#[test]
fn inflight_target_saturates_instead_of_overflowing() {
    let (mut b, _) = started(10);
    b.rtprop_ns = 10 * S;
    b.btlbw_filter.update(b.round_count, u64::MAX / 2, 10);
    b.pacing_rate = u64::MAX / 2;
    assert_eq!(b.inflight(2.0), u64::MAX);
    let (mut b, _) = started(10);
    b.rtprop_ns = 100 * MS;
    b.btlbw_filter.update(b.round_count, 1_250_000, 10);
    b.pacing_rate = 1_250_000;
    assert_eq!(b.inflight(2.0), 256_000);
}
