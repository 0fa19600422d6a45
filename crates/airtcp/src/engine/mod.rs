//! The discrete-event core: a time-ordered event queue with deterministic tie-breaking, and
//! per-component random streams.

pub(crate) mod event_queue;
pub mod rng;

// The queue is the engine's own; the `testing` feature lends it to the micro-benchmark
// (`benches/engine.rs`), which times its push and pop.
#[cfg(feature = "testing")]
pub use event_queue::{Event, EventQueue, TimerKind};
#[cfg(not(feature = "testing"))]
pub(crate) use event_queue::{Event, EventQueue, TimerKind};
pub use rng::RngStream;
