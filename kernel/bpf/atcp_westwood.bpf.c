/* SPDX-License-Identifier: MIT */
/* TCP Westwood (seed Tustin-filter estimator, TCP-Jersey §II-A) as a BPF tcp_congestion_ops.
 * Defaults are the simulator's: tau = 0.5 s, m = 4 (cc/westwood.rs). */
#define ATCP_STATE struct atcp_westwood
#define ATCP_INIT(s) atcp_westwood_init((s), 500000, 4)
#define ATCP_FEED(s, a, mss, dup) atcp_westwood_feed_ack((s), (a), (mss), (dup))
#define ATCP_WINDOW(s, w, a) atcp_westwood_window((s), (w), (a))
#define ATCP_CONGESTION(s, w, l) atcp_westwood_on_congestion((s), (w), (l))
#define ATCP_PER_SEGMENT_ECE 0
#include "atcp_glue.h"

ATCP_OPS(atcp_westwood, "atcp_westwood", 0);
