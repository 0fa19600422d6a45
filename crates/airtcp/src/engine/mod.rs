//! The discrete-event core: a time-ordered event queue with deterministic tie-breaking, and
//! per-component random streams.

pub mod event_queue;
pub mod rng;

pub use event_queue::{Event, EventQueue, TimerKind};
pub use rng::RngStream;
