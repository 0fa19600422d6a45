/* SPDX-License-Identifier: MIT */
/*
 * The kernel side of an airtcp window policy: maps the kernel's tcp_congestion_ops callbacks onto
 * the decision core (kernel/core/airtcp_cc.h). Each atcp_<algo>.bpf.c defines the ATCP_* hooks and
 * includes this file once.
 *
 * How the simulator's events map onto the kernel's (documented in kernel/README.md):
 *   ACK / duplicate ACK  -> in_ack_event: bytes = snd_una advance; 0 with data outstanding and no
 *                           window update is a duplicate. ECE from CA_ACK_ECE. The estimator part.
 *   window growth        -> cong_avoid (only outside CWR/Recovery, as the simulator's no_growth),
 *                           one ACK of `acked` segments; skipped when not cwnd-limited (as Linux).
 *   n-th DUPACK / ECN    -> ssthresh() on entering Recovery or CWR, answered as the core answers
 *                           the n-th duplicate ACK with the last ACK's mark. KeepWindow is done by
 *                           returning the current cwnd (PRR then keeps it) and restoring the
 *                           policy's ssthresh when the state returns to Open.
 *   timeout              -> CA_EVENT_LOSS flags it; set_state(TCP_CA_Loss), which runs after the
 *                           kernel set cwnd = in-flight + 1, applies the core's timeout rule.
 *   per-segment ECE      -> on the receiver, CA_EVENT_ECN_IS_CE / ECN_NO_CE set / clear
 *                           TCP_ECN_DEMAND_CWR, so an ACK echoes the mark of the segment it
 *                           acknowledges (Rust EcnEcho::PerSegment) rather than RFC 3168's
 *                           "until CWR" (Jersey family only).
 * cwnd is kept in bytes by the core; the kernel's snd_cwnd (segments) is the whole part and the
 * remainder is carried in the private state, so congestion avoidance's mss*mss/cwnd bytes per ACK
 * add up as in the simulator.
 */
#ifndef ATCP_GLUE_H
#define ATCP_GLUE_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "../core/airtcp_cc.h"

char _license[] SEC("license") = "Dual MIT/GPL";

/* include/net/tcp.h and include/net/inet_ecn.h values (macros, so not in vmlinux.h). */
#define ATCP_TCP_INFINITE_SSTHRESH 0x7fffffffU
#define ATCP_TCP_ECN_DEMAND_CWR 4
#define ATCP_TCP_CONG_NEEDS_ECN 0x2

/* Per-socket state, in icsk_ca_priv (ICSK_CA_PRIV_SIZE = 13 u64 = 104 bytes). */
struct atcp_priv {
	ATCP_STATE s;
	u32 prior_snd_una;
	u32 saved_ssthresh; /* the policy's ssthresh (segments) while the kernel holds ssthresh = cwnd */
	u16 cwnd_frac;      /* cwnd bytes beyond snd_cwnd whole segments */
	u8 last_ece;        /* the latest ACK carried ECN-Echo */
	u8 keep_window;     /* Recovery entered with ATCP_KEEP_WINDOW */
	u8 rto_pending;     /* CA_EVENT_LOSS seen, set_state(TCP_CA_Loss) to come */
};

_Static_assert(sizeof(struct atcp_priv) <= 13 * sizeof(u64), "atcp_priv exceeds ICSK_CA_PRIV_SIZE");

static __always_inline struct tcp_sock *atcp_tp(struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline struct atcp_priv *atcp_priv(struct sock *sk)
{
	return (struct atcp_priv *)((struct inet_connection_sock *)sk)->icsk_ca_priv;
}

static __always_inline u64 atcp_mss(struct tcp_sock *tp)
{
	return tp->mss_cache ? tp->mss_cache : 1;
}

/* The kernel window in bytes. */
static __always_inline void atcp_window_get(struct tcp_sock *tp, struct atcp_priv *p, struct atcp_window *w)
{
	w->mss = atcp_mss(tp);
	w->cwnd = (u64)tp->snd_cwnd * w->mss + (p->cwnd_frac < w->mss ? p->cwnd_frac : 0);
	w->ssthresh = tp->snd_ssthresh >= ATCP_TCP_INFINITE_SSTHRESH ? ATCP_U64_MAX : (u64)tp->snd_ssthresh * w->mss;
}

static __always_inline u32 atcp_segs(u64 bytes, u64 mss)
{
	u64 s = bytes / mss;
	if (s >= ATCP_TCP_INFINITE_SSTHRESH)
		return ATCP_TCP_INFINITE_SSTHRESH;
	return s ? (u32)s : 1;
}

static __always_inline void atcp_window_put(struct tcp_sock *tp, struct atcp_priv *p, const struct atcp_window *w)
{
	u32 cwnd = atcp_segs(w->cwnd, w->mss);
	if (cwnd > tp->snd_cwnd_clamp)
		cwnd = tp->snd_cwnd_clamp;
	tp->snd_cwnd = cwnd;
	p->cwnd_frac = (u16)(w->cwnd > (u64)cwnd * w->mss ? w->cwnd - (u64)cwnd * w->mss : 0);
	tp->snd_ssthresh = w->ssthresh == ATCP_U64_MAX ? ATCP_TCP_INFINITE_SSTHRESH : atcp_segs(w->ssthresh, w->mss);
}

/* An ACK as the core sees it. */
static __always_inline void atcp_ack_get(struct tcp_sock *tp, struct atcp_priv *p, struct atcp_ack *a)
{
	u32 min_rtt = tp->rtt_min.s[0].v;
	a->now_us = (u32)tp->tcp_mstamp;
	/* TSval is the receiver's clock in ms unless usec timestamps were negotiated (tcp_usec_ts). */
	a->ts_val_us = tp->tcp_usec_ts ? tp->rx_opt.rcv_tsval : tp->rx_opt.rcv_tsval * 1000;
	a->has_ts = tp->rx_opt.saw_tstamp;
	a->srtt_us = tp->srtt_us >> 3;
	a->min_rtt_us = min_rtt == ~0U ? 0 : min_rtt;
	a->ece = p->last_ece;
	a->acked_bytes = 0;
	a->no_growth = 0;
	a->recovering = 0;
}

SEC("struct_ops/atcp_init")
void BPF_PROG(atcp_init, struct sock *sk)
{
	struct atcp_priv *p = atcp_priv(sk);
	ATCP_INIT(&p->s);
	p->prior_snd_una = atcp_tp(sk)->snd_una;
	p->saved_ssthresh = 0;
	p->cwnd_frac = 0;
	p->last_ece = 0;
	p->keep_window = 0;
	p->rto_pending = 0;
}

/* Every ACK, duplicates included: the estimator part of the simulator's on_ack / on_dup_ack. */
SEC("struct_ops/atcp_in_ack_event")
void BPF_PROG(atcp_in_ack_event, struct sock *sk, u32 flags)
{
	struct tcp_sock *tp = atcp_tp(sk);
	struct atcp_priv *p = atcp_priv(sk);
	struct atcp_ack a;
	u32 acked = tp->snd_una - p->prior_snd_una;
	u64 mss = atcp_mss(tp);

	p->prior_snd_una = tp->snd_una;
	p->last_ece = (flags & CA_ACK_ECE) ? 1 : 0;
	atcp_ack_get(tp, p, &a);
	a.acked_bytes = acked;
	if (acked > 0)
		ATCP_FEED(&p->s, &a, mss, 0);
	else if (tp->packets_out > 0 && !(flags & CA_ACK_WIN_UPDATE))
		ATCP_FEED(&p->s, &a, mss, 1);
}

/* Linux's tcp_is_cwnd_limited(). */
static __always_inline int atcp_cwnd_limited(struct tcp_sock *tp)
{
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return tp->is_cwnd_limited;
}

/* Window growth outside CWR/Recovery: the window part of the simulator's on_ack. */
SEC("struct_ops/atcp_cong_avoid")
void BPF_PROG(atcp_cong_avoid, struct sock *sk, u32 ack, u32 acked)
{
	struct tcp_sock *tp = atcp_tp(sk);
	struct atcp_priv *p = atcp_priv(sk);
	struct atcp_window w;
	struct atcp_ack a;

	if (!atcp_cwnd_limited(tp))
		return;
	atcp_window_get(tp, p, &w);
	atcp_ack_get(tp, p, &a);
	a.acked_bytes = (u64)acked * w.mss;
	ATCP_WINDOW(&p->s, &w, &a);
	atcp_window_put(tp, p, &w);
}

/* Entering Recovery (n-th duplicate ACK), CWR (ECN-Echo) or Loss (timeout; fixed in set_state). */
SEC("struct_ops/atcp_ssthresh")
u32 BPF_PROG(atcp_ssthresh, struct sock *sk)
{
	struct tcp_sock *tp = atcp_tp(sk);
	struct atcp_priv *p = atcp_priv(sk);
	struct atcp_window w;
	struct atcp_loss l = {};
	u32 r;

	atcp_window_get(tp, p, &w);
	l.now_us = (u32)tp->tcp_mstamp;
	l.kind = ATCP_LOSS_DUPACKS;
	l.marked = p->last_ece;
	l.flight_bytes = (u64)tp->packets_out * w.mss;
	r = ATCP_CONGESTION(&p->s, &w, &l);
	if (r == ATCP_KEEP_WINDOW && !l.marked) {
		/* Explicit retransmit without a window cut: PRR keeps cwnd when ssthresh = cwnd. */
		p->keep_window = 1;
		p->saved_ssthresh = w.ssthresh == ATCP_U64_MAX ? ATCP_TCP_INFINITE_SSTHRESH : atcp_segs(w.ssthresh, w.mss);
		return tp->snd_cwnd > 2 ? tp->snd_cwnd : 2;
	}
	p->keep_window = 0;
	u32 ss = atcp_segs(w.ssthresh, w.mss);
	return ss > 2 ? ss : 2;
}

SEC("struct_ops/atcp_cwnd_event")
void BPF_PROG(atcp_cwnd_event, struct sock *sk, enum tcp_ca_event ev)
{
	struct tcp_sock *tp = atcp_tp(sk);
	struct atcp_priv *p = atcp_priv(sk);

	if (ev == CA_EVENT_LOSS) {
		p->rto_pending = 1;
		return;
	}
#if ATCP_PER_SEGMENT_ECE
	if (ev == CA_EVENT_ECN_IS_CE)
		tp->ecn_flags |= ATCP_TCP_ECN_DEMAND_CWR;
	else if (ev == CA_EVENT_ECN_NO_CE)
		tp->ecn_flags &= ~ATCP_TCP_ECN_DEMAND_CWR;
#endif
}

SEC("struct_ops/atcp_set_state")
void BPF_PROG(atcp_set_state, struct sock *sk, u8 new_state)
{
	struct tcp_sock *tp = atcp_tp(sk);
	struct atcp_priv *p = atcp_priv(sk);

	if (new_state == TCP_CA_Loss && p->rto_pending) {
		struct atcp_window w;
		struct atcp_loss l = {};
		p->rto_pending = 0;
		p->keep_window = 0;
		atcp_window_get(tp, p, &w);
		w.cwnd = (u64)tp->prior_cwnd * w.mss; /* the window before the kernel's cut */
		l.now_us = (u32)tp->tcp_mstamp;
		l.kind = ATCP_LOSS_TIMEOUT;
		l.marked = p->last_ece;
		l.flight_bytes = (u64)tp->prior_cwnd * w.mss;
		ATCP_CONGESTION(&p->s, &w, &l);
		atcp_window_put(tp, p, &w);
		return;
	}
	if (new_state == TCP_CA_Open && p->keep_window) {
		p->keep_window = 0;
		tp->snd_ssthresh = p->saved_ssthresh;
	}
}

/* Linux Reno's undo: the window before the reduction. */
SEC("struct_ops/atcp_undo_cwnd")
u32 BPF_PROG(atcp_undo_cwnd, struct sock *sk)
{
	struct tcp_sock *tp = atcp_tp(sk);
	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

#define ATCP_OPS(var, ca_name, ca_flags)                                                                     \
	SEC(".struct_ops")                                                                                   \
	struct tcp_congestion_ops var = {                                                                    \
		.init = (void *)atcp_init,                                                                   \
		.in_ack_event = (void *)atcp_in_ack_event,                                                   \
		.cong_avoid = (void *)atcp_cong_avoid,                                                       \
		.ssthresh = (void *)atcp_ssthresh,                                                           \
		.cwnd_event = (void *)atcp_cwnd_event,                                                       \
		.set_state = (void *)atcp_set_state,                                                         \
		.undo_cwnd = (void *)atcp_undo_cwnd,                                                         \
		.flags = ca_flags,                                                                           \
		.name = ca_name,                                                                             \
	}

#endif /* ATCP_GLUE_H */
