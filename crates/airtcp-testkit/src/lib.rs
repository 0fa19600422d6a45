//! The invariant campaign (issue 25 part 8): many small random scenarios, each run and checked
//! against what must hold whatever the models do.
//!
//! Why: the engine's unit and property tests check each model against its source; what they
//! cannot show is that no combination of them — a window policy with a recovery strategy over a
//! RED queue marking ECN, a fading channel corrupting packets, a rate schedule with outages, a
//! link repairing its frames, a cut-through hop, an HSDPA cell — loses, duplicates or invents a
//! byte or a packet, or reports a negative or NaN figure. The campaign generates scenarios from a
//! seed (so any run can be reproduced from its index), runs them, and counts violations of:
//!
//! - `end-time`: the run ends at its duration;
//! - `delivered`: per flow, delivered ≤ sent ≤ offered by the application, the sender learns of
//!   no byte the receiver has not delivered, segments received ≤ sent (TCP); datagrams received
//!   (intact or corrupted) ≤ sent, whole datagrams (UDP);
//! - `byte-stream`: every TCP byte delivered exactly once and in order (the receiver's
//!   deliveries tile [0, delivered));
//! - `conservation`: per one-way link, offered = arrived + dropped (overflow, early) + lost for
//!   good + held at the end (`LinkSummary::held_packets`, read from the link's state), and
//!   CE marks + queue drops ≤ offered, arrived + lost ≤ sent;
//! - `metric`: every figure of the summary and the series finite and ≥ 0 (where a series column
//!   is "no value" NaN by definition, it must be exactly that), fractions within [0, 1];
//! - `series`: cumulative series columns never decrease and never pass the summary's totals (and
//!   read exactly them when the last sample falls at the end); sampled queues stay within their
//!   limit;
//! - `cut-through`: every run is repeated event by event (cut-through off), and must give the same
//!   output, bit for bit, but for the event count (until issue 39 only every eighth run was, and
//!   a tie at one nanosecond that cut-through ordered differently went unseen for 10⁵ runs; the
//!   example's `--cut-every N` thins the repeats out when speed matters more);
//! - `panic`: the run panics (overflow checks and debug assertions included where built with
//!   them: `make campaign` and the CI slice use the test profile);
//! - `invalid`: the generator wrote a scenario the engine refuses (a bug of the generator).
//!
//! Each run's first flow (TCP, `n0` → `n1`) and the first link (`n0` → `n1`, its only route) take
//! the window policy, recovery, queue and (capacity, channel kind, effect) of a combination
//! indexed by the run's index through a bijection on the combinations ([`combinations`]: 8064
//! with 12 policies, 8 recoveries, 3 queues and 28 link variants): any [`combinations`]
//! consecutive indices cover every combination once, and a short slice already sees every value
//! of each part. Everything else — topology (2–5 nodes, a random tree plus,
//! sometimes, a link closing a cycle, one-way or duplex), further links and flows (TCP groups in
//! both directions with byte limits, start and stop times; CBR, on/off, VoIP), TCP options, queue,
//! channel and capacity parameters, link retransmission, sampling — is drawn from the run's own
//! random stream. Runs mostly last 1–5 s of simulated time (one in twenty is shorter, down to
//! 1 µs) on links of at most 20 Mb/s, so one takes about a millisecond.

mod check;
mod generate;
mod parts;
mod report;

pub use check::{check, Kind, Violation};
pub use generate::{case, combinations, Case};
pub use report::{describe, figure, run, run_cut_every, Report};
