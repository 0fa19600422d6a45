//! Loss-recovery strategies, separate from the window policy (`cc`), as ns-3 separates
//! `TcpRecoveryOps` from `TcpCongestionOps`. Each strategy decides what happens from the n-th
//! duplicate ACK until the loss is repaired; timeouts are handled by the sender for all of them.
//!
//! A strategy sees the sender through a [`RecoveryCtx`] (defined in `tcp/core/ctx.rs`, whose
//! field is private there), as ns-3's `TcpRecoveryOps` hooks get the socket's state
//! (`TcpSocketState`) and not the socket. What each part is for:
//! - the **scoreboard and the sequence space**, read: SACK, FACK, PRR and Linux choose what to
//!   send from which segments are SACKed, lost or retransmitted, and every strategy compares
//!   snd_una with the recovery point. Two named moves of snd_nxt (Tahoe's go-back-N; a SACK
//!   recovery's stop of a timeout's go-back-N) and Linux's forgetting of SACK marks at its exit
//!   are the only changes.
//! - the **recovery episode** (recover, the window to restore, the policy's reaction, cwnd before
//!   it, HighRxt): set at its start (`RecoveryCtx::begin_recovery`), HighRxt as retransmissions
//!   go (RFC 6675 §4); the duplicate-ACK count, limited transmit and the Eifel undo record stay
//!   the sender's.
//! - the **window**: a strategy sets cwnd (inflation and deflation, the restored window, PRR's
//!   quota); ssthresh is the window policy's, read only (Linux's exit moderation).
//! - the **settings** (MSS, receiver window, `max_cwnd_bytes`, NewReno's
//!   `rto_reset_every_partial_ack`) and the **minimum RTT** (RACK's test in `prr-rack`), read.
//! - one **timer flag**: NewReno's Impatient variant stops restarting the retransmission timer
//!   after the first partial ACK (RFC 6582 §4); the deadline itself is out of reach.
//! - the **send hook** (`retransmit`, `send_new`, `send_window_limited`, `pacing_allows`): every
//!   segment goes through the sender's one `emit`, which marks the scoreboard, moves snd_max,
//!   keeps Karn's rule, tells the pacing clock and the rate sampler, counts, and starts the timer.
//!
//! Out of reach: the RTT estimator, the retransmission timer's deadline, the window policy, the
//! ECN state, the counters and the segments already emitted. Outside a recovery the sender sends
//! what min(cwnd, rwnd) allows without asking the strategy (each one did exactly that);
//! [`LossRecovery::send`] runs during a recovery, and always for a strategy that marks losses.

pub(crate) mod fack;
pub(crate) mod linux;
pub(crate) mod newreno;
pub(crate) mod prr;
pub(crate) mod reno;
pub(crate) mod sack;
pub(crate) mod tahoe;

use crate::cc::Reaction;
pub use crate::tcp::core::RecoveryCtx;
use crate::time::SimTime;

/// A loss-recovery strategy. Its hooks get a [`RecoveryCtx`]: the scoreboard, the recovery
/// episode, the window and a send hook, not the whole sender (see the module doc).
pub trait LossRecovery: Send {
    /// Name as written in scenario files.
    fn name(&self) -> &'static str;
    /// Whether a new fast retransmit may start now (the "recover" guard of RFC 6582 §3.2 step 2).
    fn may_enter(&self, s: &RecoveryCtx<'_>) -> bool {
        s.recover_guard_passes()
    }
    /// Whether this duplicate ACK shows a loss before the DupThresh-th one (FACK's
    /// snd.fack − snd.una > DupThresh·MSS); the sender then starts fast retransmit.
    fn detects_loss(&self, _s: &RecoveryCtx<'_>) -> bool {
        false
    }
    /// The n-th duplicate ACK arrived outside recovery; the policy already reacted with `reaction`.
    fn enter(&mut self, s: RecoveryCtx<'_>, now: SimTime, reaction: Reaction);
    /// A duplicate ACK arrived during recovery.
    fn on_dup_ack(&mut self, s: RecoveryCtx<'_>, now: SimTime);
    /// A cumulative ACK advanced snd_una by `acked` bytes during recovery. Returns true when
    /// recovery ends.
    fn on_ack(&mut self, s: RecoveryCtx<'_>, now: SimTime, acked: u64) -> bool;
    /// Sends what the window allows during a recovery. The sender asks only then (and, for a
    /// strategy that marks losses, after every ACK and timeout): outside a recovery every other
    /// strategy sends what min(cwnd, rwnd) allows, which the sender does itself
    /// (`RecoveryCtx::send_window_limited`), saving a call per ACK.
    fn send(&mut self, mut s: RecoveryCtx<'_>, now: SimTime) {
        s.send_window_limited(now);
    }
    /// Whether [`LossRecovery::send`] is the trait's own, the window-limited send (asked once, at
    /// the start): the sender then sends what min(cwnd, rwnd) allows after an ACK in a recovery
    /// as it does outside one, without the call, and the engine pulls those segments one by one
    /// into their packets (issue 42: every ACK of a Reno or NewReno recovery). A strategy that
    /// overrides `send` must leave this false; the differential tests of the sender's ACK paths
    /// hold the answer of each strategy against its `send`.
    fn sends_window_limited(&self) -> bool {
        false
    }
    /// Whether the strategy marks lost segments itself on every ACK (`linux::Linux`): the sender
    /// then starts a recovery when [`LossRecovery::mark_losses`] newly marks a segment lost,
    /// instead of on the DupThresh-th duplicate ACK, and does no limited transmit.
    fn marks_losses(&self) -> bool {
        false
    }
    /// After an ACK that is new or duplicate has been processed (scoreboard, snd_una, window):
    /// marks lost segments; true when at least one was newly marked.
    fn mark_losses(&mut self, _s: RecoveryCtx<'_>, _now: SimTime) -> bool {
        false
    }
    /// Only for strategies that mark losses: the first `n` outstanding segments are about to leave
    /// the scoreboard (cumulatively ACKed).
    fn before_cumulative_ack(&mut self, _s: &RecoveryCtx<'_>, _n: usize) {}
    /// Packets in flight now, in bytes, for a window policy that asks
    /// ([`crate::cc::CongestionControl::reads_in_flight`]): outstanding segments that the receiver
    /// has not SACKed, times the MSS.
    fn in_flight_bytes(&self, s: &RecoveryCtx<'_>) -> u64 {
        s.board().iter().filter(|m| !m.sacked).count() as u64 * s.w().mss
    }
    /// Only for strategies that mark losses: the retransmission timer expired; the sender has
    /// backed off, signalled the window policy and set `recover`, and sends through
    /// [`LossRecovery::send`] right after this (the others go back N by `send_window_limited`).
    fn on_timeout(&mut self, _s: RecoveryCtx<'_>, _now: SimTime) {}
    /// The last timeout proved spurious and was undone (`rto_undo = "eifel"`): forget what it
    /// marked lost. The sender has restored the window and stopped the go-back-N resends.
    fn on_spurious_timeout(&mut self, _s: RecoveryCtx<'_>) {}
}

/// RFC 5681 §3.2 steps 2–3, shared by Reno and NewReno: retransmit the first unacknowledged
/// segment and set cwnd = (ssthresh, or the kept window) + DupThresh·SMSS ("inflation" by the
/// segments that have left the network: one per duplicate ACK, fewer than DupThresh when Vegas
/// expiry started the retransmit early).
pub(crate) fn fast_retransmit_with_inflation(mut s: RecoveryCtx<'_>, now: SimTime, reaction: Reaction) {
    s.begin_recovery(reaction);
    s.retransmit(now, s.seq().snd_una);
    s.set_cwnd(s.rec().recovery_base + s.rec().dupacks as u64 * s.w().mss);
}

/// One entry of the recovery registry: the name scenario files use, whether the strategy reads
/// the receiver's SACK blocks (a flow must then have `sack = true`), and its constructor.
pub struct Strategy {
    pub name: &'static str,
    pub needs_sack: bool,
    pub make: fn() -> Box<dyn LossRecovery>,
}

/// Every loss-recovery strategy, in the order listings and the invariant campaign use. Adding
/// one is one file under `tcp/recovery/` and one line here.
pub const REGISTRY: &[Strategy] = &[
    Strategy { name: "tahoe", needs_sack: false, make: || Box::new(tahoe::Tahoe) },
    Strategy { name: "reno", needs_sack: false, make: || Box::new(reno::Reno) },
    Strategy { name: "newreno", needs_sack: false, make: || Box::new(newreno::NewReno::default()) },
    Strategy { name: "sack", needs_sack: true, make: || Box::new(sack::Sack) },
    Strategy { name: "fack", needs_sack: true, make: || Box::new(fack::Fack) },
    Strategy { name: "linux", needs_sack: true, make: || Box::new(linux::Linux::default()) },
    Strategy { name: "prr", needs_sack: true, make: || Box::new(prr::Prr::default()) },
    Strategy { name: "prr-rack", needs_sack: true, make: || Box::new(prr::Prr::with_rack()) },
];

const NAME_ARRAY: [&str; REGISTRY.len()] = registry_names!(REGISTRY);

/// Names accepted in scenario files (those of [`REGISTRY`]).
pub const NAMES: &[&str] = &NAME_ARRAY;

/// The registry entry named `name`.
pub fn find(name: &str) -> Option<&'static Strategy> {
    REGISTRY.iter().find(|s| s.name == name)
}

/// Builds the strategy named `name`.
pub fn by_name(name: &str) -> Option<Box<dyn LossRecovery>> {
    find(name).map(|s| (s.make)())
}

#[cfg(test)]
mod tests {
    use std::sync::{Arc, Mutex};

    use super::*;
    use crate::tcp::sender::tests::{ack, cfg, sent};
    use crate::tcp::Sender;

    const MS: u64 = 1_000_000;

    /// NewReno's hooks, recording whether each call of its `send` came during a recovery.
    struct Probe {
        inner: newreno::NewReno,
        sends: Arc<Mutex<Vec<bool>>>,
    }

    impl LossRecovery for Probe {
        fn name(&self) -> &'static str {
            "probe"
        }
        fn enter(&mut self, s: RecoveryCtx<'_>, now: SimTime, reaction: Reaction) {
            self.inner.enter(s, now, reaction);
        }
        fn on_dup_ack(&mut self, s: RecoveryCtx<'_>, now: SimTime) {
            self.inner.on_dup_ack(s, now);
        }
        fn on_ack(&mut self, s: RecoveryCtx<'_>, now: SimTime, acked: u64) -> bool {
            self.inner.on_ack(s, now, acked)
        }
        fn send(&mut self, mut s: RecoveryCtx<'_>, now: SimTime) {
            self.sends.lock().unwrap().push(s.rec().in_recovery);
            s.send_window_limited(now);
        }
    }

    /// The contract of `LossRecovery::send`: asked only during a recovery; outside one the sender
    /// sends what min(cwnd, rwnd) allows itself. Reno, IW 4: ACK 1000 grows cwnd to 5000, and
    /// the sender (not the strategy) sends 4000 and 5000; the third duplicate ACK retransmits
    /// 1000 (ssthresh = 5000/2, cwnd = 2500 + 3000 = 5500: no room above snd_max 6000), and the
    /// strategy is asked once, in recovery; the full ACK of 6000 ends the recovery and the new
    /// window's segments go out without asking it.
    #[test]
    fn send_is_asked_only_during_a_recovery() {
        let sends = Arc::new(Mutex::new(vec![]));
        let probe = Probe { inner: newreno::NewReno::default(), sends: Arc::clone(&sends) };
        let mut s = Sender::new(cfg(false, 4), crate::cc::build("reno", None).unwrap(), Box::new(probe));
        s.offer(0, u64::MAX);
        assert_eq!(sent(&mut s).len(), 4);
        s.on_ack(MS, &ack(1000));
        assert_eq!(sent(&mut s), vec![(4000, false), (5000, false)]);
        for k in 2..=4 {
            s.on_ack(k * MS, &ack(1000));
        }
        assert!(s.core.rec.in_recovery);
        assert_eq!((s.core.w.ssthresh, s.core.w.cwnd), (2500, 5500));
        assert_eq!(sent(&mut s), vec![(1000, true)]);
        s.on_ack(5 * MS, &ack(6000));
        assert!(!s.core.rec.in_recovery);
        assert!(!sent(&mut s).is_empty());
        assert_eq!(*sends.lock().unwrap(), vec![true]);
    }
}
