/* SPDX-License-Identifier: MIT */
/* TCP-Jersey (Xu, Tian, Ansari 2004: ABE Fig. 6 per-RTT reading, k = 1; CW via ECN, echoed per segment) as a BPF
 * tcp_congestion_ops. Defaults are the simulator's (cc/jersey/mod.rs). */
#define ATCP_STATE struct atcp_jersey
#define ATCP_INIT(s) atcp_jersey_init((s), ATCP_ABE_PER_RTT, 1)
#define ATCP_FEED(s, a, mss, dup) atcp_jersey_feed((s), (a), (mss), (dup))
#define ATCP_WINDOW(s, w, a) atcp_jersey_window((s), (w), (a))
#define ATCP_CONGESTION(s, w, l) atcp_jersey_on_congestion((s), (w), (l))
#define ATCP_PER_SEGMENT_ECE 1
#include "atcp_glue.h"

ATCP_OPS(atcp_jersey, "atcp_jersey", ATCP_TCP_CONG_NEEDS_ECN);
