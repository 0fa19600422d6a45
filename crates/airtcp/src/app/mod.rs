//! Traffic sources. A bulk TCP transfer is simply the sender's `app_limit` (infinite, or a byte
//! count), set at the flow's start; a UDP CBR source follows a rate schedule ([`cbr`]).

pub mod cbr;

pub use cbr::CbrSource;
