//! The C decision core of airtcp's BPF congestion controls (`kernel/core/airtcp_cc.h`), compiled for
//! the host and wrapped safely, so that tests can feed it the same events as the simulator's
//! `airtcp::cc` implementations and compare decisions (`tests/differential.rs`).
//!
//! The core works in microseconds (u32, modulo 2^32) and fixed-point rates (bytes/s << 8) because
//! the BPF machine has no floating point; see the header for what that changes.

use airtcp::cc::{AckInfo, LossKind, LossSignal, Reaction, Window};

/// `struct atcp_window`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct CWindow {
    cwnd: u64,
    ssthresh: u64,
    mss: u64,
}

/// `struct atcp_ack`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct CAck {
    now_us: u32,
    ts_val_us: u32,
    acked_bytes: u64,
    srtt_us: u64,
    min_rtt_us: u64,
    has_ts: u8,
    ece: u8,
    no_growth: u8,
    recovering: u8,
}

/// `struct atcp_loss`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
struct CLoss {
    now_us: u32,
    kind: u32,
    flight_bytes: u64,
    marked: u8,
}

#[repr(C)]
struct CHost {
    _private: [u8; 0],
}

extern "C" {
    fn atcp_host_new(algo: u32, p1: u32, p2: u32) -> *mut CHost;
    fn atcp_host_free(h: *mut CHost);
    fn atcp_host_on_ack(h: *mut CHost, w: *mut CWindow, a: *const CAck);
    fn atcp_host_on_dup_ack(h: *mut CHost, w: *mut CWindow, a: *const CAck);
    fn atcp_host_on_congestion(h: *mut CHost, w: *mut CWindow, l: *const CLoss) -> u32;
    fn atcp_host_rate_fp(h: *const CHost) -> u64;
    fn atcp_host_prev_rate_fp(h: *const CHost) -> u64;
    fn atcp_host_rate_shift() -> u32;
}

/// Which policy a [`Core`] runs, with its parameters (the core's integer forms).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Algo {
    /// Tustin-filter Westwood: tau in microseconds, m.
    Westwood { tau_us: u32, m: u32 },
    /// TCP-Jersey: ABE update rule (0 per-RTT, 1 per-ACK, 2 literal) and integer k.
    Jersey { update: u32, k: u32 },
    /// TCP New Jersey (TABE).
    NewJersey { update: u32, k: u32 },
    /// TCP NJ+ (MABE, EASR, BERR).
    NjPlus { update: u32, k: u32 },
}

/// One flow's state in the C core.
pub struct Core {
    h: *mut CHost,
}

// The handle is owned exclusively; the C state has no thread affinity.
unsafe impl Send for Core {}

/// Nanoseconds to the core's microsecond clock (modulo 2^32, as the kernel's tcp_mstamp is used).
fn us32(ns: u64) -> u32 {
    (ns / 1000) as u32
}

impl Core {
    /// A fresh flow running `algo`.
    pub fn new(algo: Algo) -> Self {
        let (a, p1, p2) = match algo {
            Algo::Westwood { tau_us, m } => (0, tau_us, m),
            Algo::Jersey { update, k } => (1, update, k),
            Algo::NewJersey { update, k } => (2, update, k),
            Algo::NjPlus { update, k } => (3, update, k),
        };
        // SAFETY: plain allocation; NULL only for an unknown algo (not constructible here).
        let h = unsafe { atcp_host_new(a, p1, p2) };
        assert!(!h.is_null(), "atcp_host_new failed");
        Core { h }
    }

    fn window(w: &Window) -> CWindow {
        CWindow { cwnd: w.cwnd, ssthresh: w.ssthresh, mss: w.mss }
    }

    fn ack(a: &AckInfo) -> CAck {
        CAck {
            now_us: us32(a.now),
            ts_val_us: a.ts_val().map_or(0, us32),
            acked_bytes: a.acked_bytes,
            srtt_us: a.srtt_ns / 1000,
            min_rtt_us: a.min_rtt_ns / 1000,
            has_ts: a.ts_val().is_some() as u8,
            ece: a.ece() as u8,
            no_growth: a.no_growth as u8,
            recovering: a.recovering as u8,
        }
    }

    fn back(c: CWindow, w: &mut Window) {
        w.cwnd = c.cwnd;
        w.ssthresh = c.ssthresh;
    }

    /// An ACK of new data (the simulator's `on_ack`). Times must be whole microseconds.
    pub fn on_ack(&mut self, w: &mut Window, a: &AckInfo) {
        let mut c = Self::window(w);
        // SAFETY: valid handle and pointers to live locals.
        unsafe { atcp_host_on_ack(self.h, &mut c, &Self::ack(a)) };
        Self::back(c, w);
    }

    /// A duplicate ACK (the simulator's `on_dup_ack`).
    pub fn on_dup_ack(&mut self, w: &mut Window, a: &AckInfo) {
        let mut c = Self::window(w);
        // SAFETY: as above.
        unsafe { atcp_host_on_dup_ack(self.h, &mut c, &Self::ack(a)) };
        Self::back(c, w);
    }

    /// A loss or congestion signal (the simulator's `on_congestion`).
    pub fn on_congestion(&mut self, w: &mut Window, s: &LossSignal) -> Reaction {
        let mut c = Self::window(w);
        let kind = match s.kind {
            LossKind::DupAcks => 0,
            LossKind::Timeout => 1,
            LossKind::Ecn => 2,
        };
        let l = CLoss { now_us: us32(s.now), kind, flight_bytes: s.flight_bytes, marked: s.marked as u8 };
        // SAFETY: as above.
        let r = unsafe { atcp_host_on_congestion(self.h, &mut c, &l) };
        Self::back(c, w);
        if r == 1 {
            Reaction::KeepWindow
        } else {
            Reaction::Reduce
        }
    }

    /// The estimate the policy acts on, bytes per second (fixed point converted exactly to f64).
    pub fn rate_bytes_per_s(&self) -> f64 {
        // SAFETY: valid handle; pure reads.
        let (fp, shift) = unsafe { (atcp_host_rate_fp(self.h), atcp_host_rate_shift()) };
        fp as f64 / (1u64 << shift) as f64
    }

    /// The estimate before its latest update (R_{n-1}; Westwood: the estimate), bytes per second.
    pub fn prev_rate_bytes_per_s(&self) -> f64 {
        // SAFETY: valid handle; pure reads.
        let (fp, shift) = unsafe { (atcp_host_prev_rate_fp(self.h), atcp_host_rate_shift()) };
        fp as f64 / (1u64 << shift) as f64
    }

    /// The fixed point's resolution, bytes per second.
    pub fn rate_unit() -> f64 {
        // SAFETY: pure.
        1.0 / (1u64 << unsafe { atcp_host_rate_shift() }) as f64
    }
}

impl Drop for Core {
    fn drop(&mut self) {
        // SAFETY: allocated by atcp_host_new, freed once.
        unsafe { atcp_host_free(self.h) }
    }
}
