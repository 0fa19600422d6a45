/* SPDX-License-Identifier: MIT */
/* TCP NJ+ (Lee et al. 2008 §3: MABE = max(sender ABE, receiver TABE) per ACK, EASR, BERR; k = 1) as a BPF
 * tcp_congestion_ops. Same TSval caveat as atcp_newjersey.bpf.c. */
#define ATCP_STATE struct atcp_new_jersey
#define ATCP_INIT(s) atcp_new_jersey_init((s), 1, ATCP_ABE_PER_ACK, 1)
#define ATCP_FEED(s, a, mss, dup) atcp_new_jersey_feed((s), (a), (mss), (dup))
#define ATCP_WINDOW(s, w, a) atcp_new_jersey_window((s), (w), (a))
#define ATCP_CONGESTION(s, w, l) atcp_new_jersey_on_congestion((s), (w), (l))
#define ATCP_PER_SEGMENT_ECE 1
#include "atcp_glue.h"

ATCP_OPS(atcp_njplus, "atcp_njplus", ATCP_TCP_CONG_NEEDS_ECN);
