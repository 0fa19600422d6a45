/* SPDX-License-Identifier: MIT */
/* TCP New Jersey (NJ+ paper, Lee et al. 2008, §2.5: TABE on the receiver's clock from TSval, per-RTT update, k = 1) as
 * a BPF tcp_congestion_ops. The kernel lacks the receiver's data-arrival time: TSval is the time the
 * receiver sent the ACK, in milliseconds unless microsecond timestamps are negotiated (see
 * kernel/README.md). */
#define ATCP_STATE struct atcp_new_jersey
#define ATCP_INIT(s) atcp_new_jersey_init((s), 0, ATCP_ABE_PER_RTT, 1)
#define ATCP_FEED(s, a, mss, dup) atcp_new_jersey_feed((s), (a), (mss), (dup))
#define ATCP_WINDOW(s, w, a) atcp_new_jersey_window((s), (w), (a))
#define ATCP_CONGESTION(s, w, l) atcp_new_jersey_on_congestion((s), (w), (l))
#define ATCP_PER_SEGMENT_ECE 1
#include "atcp_glue.h"

ATCP_OPS(atcp_newjersey, "atcp_newjersey", ATCP_TCP_CONG_NEEDS_ECN);
