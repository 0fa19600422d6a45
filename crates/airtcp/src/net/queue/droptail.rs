//! DropTail: admit while fewer than `limit` packets wait.

use super::{default_limit, Admission, Aqm, Queue, QueueKind};
use crate::spec::{pkts, ScenarioError};

/// `kind = "droptail"`: first-in first-out, drop arriving packets when `limit_pkts` are waiting.
#[derive(Debug, Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct DropTailSpec {
    #[serde(default = "default_limit")]
    limit_pkts: u32,
}

impl Default for DropTailSpec {
    fn default() -> Self {
        DropTailSpec { limit_pkts: default_limit() }
    }
}

impl QueueKind for DropTailSpec {
    fn check(&self, field: &str) -> Result<(), ScenarioError> {
        pkts(format!("{field}.limit_pkts"), self.limit_pkts)
    }

    fn build(&self, _small_pkt_tx_ns: u64) -> Queue {
        Queue::new(self.limit_pkts, Aqm::DropTail)
    }
}

/// An arrival finding `q` packets waiting is dropped when `q >= limit`.
#[inline]
pub(crate) fn admit(q: u32, limit: u32) -> Admission {
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
