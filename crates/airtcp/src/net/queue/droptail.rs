//! DropTail: admit while fewer than `limit` packets wait.

use super::Admission;

/// An arrival finding `q` packets waiting is dropped when `q >= limit`.
#[inline]
pub fn admit(q: u32, limit: u32) -> Admission {
    if q >= limit {
        Admission::OverflowDrop
    } else {
        Admission::Queued
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drops_only_when_full() {
        assert_eq!(admit(0, 2), Admission::Queued);
        assert_eq!(admit(1, 2), Admission::Queued);
        assert_eq!(admit(2, 2), Admission::OverflowDrop);
    }
}
