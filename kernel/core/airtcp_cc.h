/* SPDX-License-Identifier: MIT */
/*
 * airtcp window policies as a plain-C decision core, shared by the BPF tcp_congestion_ops programs
 * (kernel/bpf/atcp_*.bpf.c files) and a host build (kernel/core/airtcp_cc.c, tested against the simulator's
 * Rust implementations by crates/airtcp-kernel-diff).
 *
 * It mirrors crates/airtcp/src/cc/{estimators.rs, westwood.rs, jersey/mod.rs, jersey/new_jersey.rs} rule for rule. The two
 * differ only where the BPF machine forces it (the verifier has no floating point):
 *
 *   - Time is in microseconds (the kernel's tcp_mstamp unit), held in u32 and compared modulo 2^32
 *     (differences must stay below 2^31 us = 35 min). The Rust code uses u64 nanoseconds, so
 *     Westwood's zero-sample step tau/m must be whole microseconds to match it.
 *   - Rates are fixed point: bytes/s << ATCP_RATE_SHIFT (1/256 B/s resolution). Each filter update
 *     rounds to nearest once (and Westwood's stored sample once more); the Rust code uses f64. So an estimate differs from Rust's by less than
 *     (updates x 1/256) B/s, and a window derived from it (ownd, BWE*RTT_min) can differ by one
 *     rounding step (one segment for ownd, one byte for Westwood's BDP) only when the exact
 *     quotient lies within that error of a rounding boundary. This is the "integer rounding" the
 *     differential test allows, and only in exactly that case.
 *   - Westwood's lazily inserted zero samples (one per tau/m of silence) run in a loop bounded by
 *     ATCP_MAX_ZERO_STEPS; a longer silence sets the estimate to 0 (with the default m = 4 the
 *     filter factor is 7/9 per step, so after 256 steps the Rust estimate is below 1e-27 of its
 *     value: 0 in any window computed from it).
 *
 * Ranges (no overflow of the u64 products): rates up to 1.25e9 B/s (10 Gb/s), RTTs and tau up to
 * 10 s, bytes per ACK up to 2^32.
 *
 * Sizes (cwnd, ssthresh, mss) are bytes, as in the Rust Window.
 */
#ifndef AIRTCP_CC_H
#define AIRTCP_CC_H

#ifndef __bpf__
#include <stdint.h>
typedef uint8_t u8;
typedef uint32_t u32;
typedef int32_t s32;
typedef uint64_t u64;
#endif

#define ATCP_RATE_SHIFT 8
#define ATCP_US_PER_S 1000000ULL
#define ATCP_MAX_ZERO_STEPS 256
#define ATCP_U64_MAX 0xffffffffffffffffULL

/* The window a policy may change (Rust: cc::Window). */
struct atcp_window {
	u64 cwnd;
	u64 ssthresh;
	u64 mss;
};

/* What the sender knows when an ACK arrives (the fields of Rust's cc::AckInfo the policies read). */
struct atcp_ack {
	u32 now_us;       /* sender clock */
	u32 ts_val_us;    /* receiver clock (TSval), valid when has_ts */
	u64 acked_bytes;  /* newly acknowledged (0 for a duplicate) */
	u64 srtt_us;      /* smoothed RTT, 0 before the first sample */
	u64 min_rtt_us;   /* smallest RTT, 0 before the first sample */
	u8 has_ts;
	u8 ece;           /* the ACK carries ECN-Echo */
	u8 no_growth;     /* recovering, or this ACK triggered an ECN reduction */
	u8 recovering;    /* in fast recovery */
};

/* Rust: cc::LossKind. */
enum atcp_loss_kind { ATCP_LOSS_DUPACKS = 0, ATCP_LOSS_TIMEOUT = 1, ATCP_LOSS_ECN = 2 };

/* Rust: cc::LossSignal. */
struct atcp_loss {
	u32 now_us;
	u32 kind;         /* enum atcp_loss_kind */
	u64 flight_bytes;
	u8 marked;        /* congestion warning on the triggering ACK */
};

/* Rust: cc::Reaction. */
enum atcp_reaction { ATCP_REDUCE = 0, ATCP_KEEP_WINDOW = 1 };

/* Rust: jersey::AbeUpdate. */
enum atcp_abe_update { ATCP_ABE_PER_RTT = 0, ATCP_ABE_PER_ACK = 1, ATCP_ABE_LITERAL = 2 };

/* num/den rounded to nearest (unbiased: a steady input converges to its exact fixed point). */
static inline u64 atcp_div_round(u64 num, u64 den)
{
	return den ? (num + den / 2) / den : 0;
}

/* ---------------------------------------------------------------------------------------------- */
/* Shared pieces: Reno growth (RFC 5681), halving, AckedCount.                                     */

/* RFC 5681 eq. (4): ssthresh = max(FlightSize / 2, 2*SMSS). Rust: reno::halve. */
static inline u64 atcp_halve(u64 flight_bytes, u64 mss)
{
	u64 h = flight_bytes / 2;
	return h > 2 * mss ? h : 2 * mss;
}

/* RFC 5681 slow start (eq. 2) and congestion avoidance (eq. 3), Rust: Reno::on_ack. */
static inline void atcp_reno_grow(struct atcp_window *w, u64 acked_bytes)
{
	if (w->cwnd < w->ssthresh) {
		w->cwnd += acked_bytes < w->mss ? acked_bytes : w->mss;
	} else {
		u64 inc = w->cwnd ? w->mss * w->mss / w->cwnd : w->mss;
		w->cwnd += inc ? inc : 1;
	}
}

/* Mascolo et al.'s AckedCount in bytes (Rust: cc/estimators.rs). */
struct atcp_acked_count {
	u64 accounted;
};

static inline u64 atcp_acked_on_ack(struct atcp_acked_count *a, u64 acked_bytes, u64 mss)
{
	if (acked_bytes <= a->accounted) {
		a->accounted -= acked_bytes;
		return acked_bytes < mss ? acked_bytes : mss;
	}
	u64 d = acked_bytes - a->accounted;
	a->accounted = 0;
	return d;
}

static inline u64 atcp_acked_on_dup(struct atcp_acked_count *a, u64 mss)
{
	a->accounted += mss;
	return mss;
}

/* ---------------------------------------------------------------------------------------------- */
/* Westwood (TCP-Jersey §II-A eqs. (1)-(3), Prairie thesis §4). Rust: cc/westwood.rs.              */

/* The Tustin-filtered estimator (Rust: westwood::TustinEstimator). */
struct atcp_tustin {
	u64 estimate_fp;    /* b^, bytes/s << ATCP_RATE_SHIFT */
	u64 last_sample_fp; /* b_{k-1} */
	u32 last_time_us;   /* t_{k-1}, valid when has_time */
	u32 carried_bytes;  /* bytes of ACKs at last_time awaiting the next interval > 0 */
	u32 tau_us;
	u32 m;
	u8 has_time;
};

/*
 * Jersey eq. (2) multiplied through by Delta:
 *   b^_k = ((2tau - Delta) b^_{k-1} + Delta b_k + Delta b_{k-1}) / (2tau + Delta),
 * with Delta b_k = d (bytes) exactly, so the only rounding is the final division (and b_k itself,
 * kept for the next step). Delta <= tau/m < 2 tau always (zero samples are inserted first).
 */
static inline void atcp_tustin_filter(struct atcp_tustin *f, u64 bytes, u64 delta_us)
{
	u64 two_tau = 2 * (u64)f->tau_us;
	u64 d_fp = (bytes * ATCP_US_PER_S) << ATCP_RATE_SHIFT; /* Delta * b_k */
	u64 num = (two_tau - delta_us) * f->estimate_fp + d_fp + delta_us * f->last_sample_fp;
	f->estimate_fp = atcp_div_round(num, two_tau + delta_us);
	f->last_sample_fp = atcp_div_round(d_fp, delta_us);
}

/* Feeds the zero samples due every tau/m of silence up to now (Rust: advance_to). */
static inline void atcp_tustin_advance(struct atcp_tustin *f, u32 now_us)
{
	if (!f->has_time)
		return;
	u32 step = f->tau_us / f->m;
	if (step == 0)
		step = 1;
	s32 gap = (s32)(now_us - f->last_time_us);
	if (gap <= (s32)step)
		return;
	/* Rust loops while t + step < now: n = floor((now - 1 - t) / step) steps. */
	u32 n = ((u32)gap - 1) / step;
	u32 i;
	for (i = 0; i < ATCP_MAX_ZERO_STEPS; i++) {
		if (i >= n)
			break;
		u64 bytes = f->carried_bytes;
		f->carried_bytes = 0;
		atcp_tustin_filter(f, bytes, step);
	}
	if (n > ATCP_MAX_ZERO_STEPS) {
		f->estimate_fp = 0;
		f->last_sample_fp = 0;
		f->carried_bytes = 0;
	}
	f->last_time_us += n * step;
}

/* An ACK at now reporting bytes delivered (Rust: TustinEstimator::on_sample). */
static inline void atcp_tustin_sample(struct atcp_tustin *f, u32 now_us, u64 bytes)
{
	atcp_tustin_advance(f, now_us);
	if (!f->has_time) {
		f->has_time = 1;
		f->last_time_us = now_us;
		return;
	}
	s32 delta = (s32)(now_us - f->last_time_us);
	if (delta <= 0) {
		/* Same instant (or a reordered clock reading): merged into the next interval. */
		f->carried_bytes += (u32)bytes;
		return;
	}
	u64 d = bytes + f->carried_bytes;
	f->carried_bytes = 0;
	atcp_tustin_filter(f, d, (u64)delta);
	f->last_time_us = now_us;
}

struct atcp_westwood {
	struct atcp_tustin bwe;
	struct atcp_acked_count acked;
	u64 min_rtt_us;
};

static inline void atcp_westwood_init(struct atcp_westwood *s, u32 tau_us, u32 m)
{
	*s = (struct atcp_westwood){ 0 };
	s->bwe.tau_us = tau_us;
	s->bwe.m = m;
}

/* BWE*RTT_min in bytes, rounded to the byte, at least 2 segments (Rust: Westwood::bdp_bytes). */
static inline u64 atcp_westwood_bdp(const struct atcp_westwood *s, u64 mss)
{
	u64 den = ATCP_US_PER_S << ATCP_RATE_SHIFT;
	u64 b = (s->bwe.estimate_fp * s->min_rtt_us + den / 2) / den;
	return b > 2 * mss ? b : 2 * mss;
}

/* The estimator part of an ACK or duplicate ACK (Rust: Westwood::feed). */
static inline void atcp_westwood_feed(struct atcp_westwood *s, const struct atcp_ack *a, u64 bytes)
{
	s->min_rtt_us = a->min_rtt_us;
	atcp_tustin_sample(&s->bwe, a->now_us, bytes);
}

/* The estimator part of an ACK (dup = 0) or duplicate ACK (dup = 1), AckedCount included. */
static inline void atcp_westwood_feed_ack(struct atcp_westwood *s, const struct atcp_ack *a, u64 mss, u8 dup)
{
	u64 d = dup ? atcp_acked_on_dup(&s->acked, mss) : atcp_acked_on_ack(&s->acked, a->acked_bytes, mss);
	atcp_westwood_feed(s, a, d);
}

/* The window part of an ACK: Reno's growth between losses. */
static inline void atcp_westwood_window(struct atcp_westwood *s, struct atcp_window *w, const struct atcp_ack *a)
{
	(void)s;
	if (!a->no_growth)
		atcp_reno_grow(w, a->acked_bytes);
}

static inline void atcp_westwood_on_ack(struct atcp_westwood *s, struct atcp_window *w, const struct atcp_ack *a)
{
	atcp_westwood_feed_ack(s, a, w->mss, 0);
	atcp_westwood_window(s, w, a);
}

static inline void atcp_westwood_on_dup_ack(struct atcp_westwood *s, struct atcp_window *w, const struct atcp_ack *a)
{
	atcp_westwood_feed_ack(s, a, w->mss, 1);
}

/* n duplicate ACKs / ECN: ssthresh = BWE*RTT_min, cwnd = min(cwnd, ssthresh); timeout: cwnd = 1. */
static inline u32 atcp_westwood_on_congestion(struct atcp_westwood *s, struct atcp_window *w, const struct atcp_loss *l)
{
	atcp_tustin_advance(&s->bwe, l->now_us);
	if (s->min_rtt_us == 0) {
		/* No RTT_min yet: Reno's halving. */
		w->ssthresh = atcp_halve(l->flight_bytes, w->mss);
		if (l->kind == ATCP_LOSS_TIMEOUT)
			w->cwnd = w->mss;
		else if (w->cwnd > w->ssthresh)
			w->cwnd = w->ssthresh;
		return ATCP_REDUCE;
	}
	w->ssthresh = atcp_westwood_bdp(s, w->mss);
	if (l->kind == ATCP_LOSS_TIMEOUT) {
		w->cwnd = w->mss;
		return ATCP_REDUCE;
	}
	if (w->cwnd >= w->ssthresh) {
		w->cwnd = w->ssthresh;
		return ATCP_REDUCE;
	}
	/* cwnd < ssthresh: kept, also through fast recovery (Jersey II-A "cwnd is then set to be the
	 * same as ssthresh if ... cwnd > ssthresh"; the UCLA module's dupack_action). Rust:
	 * cc::westwood on_congestion. An ECN echo keeps it too, answered as a reduction. */
	return l->kind == ATCP_LOSS_DUPACKS ? ATCP_KEEP_WINDOW : ATCP_REDUCE;
}

/* ---------------------------------------------------------------------------------------------- */
/* TCP-Jersey's ABE (Jersey Fig. 6 / eq. (5)). Rust: jersey::Abe.                                   */

struct atcp_abe {
	u64 rate_fp;      /* R, bytes/s << ATCP_RATE_SHIFT */
	u64 prev_rate_fp; /* R before its latest update */
	u32 t_prev_us;    /* Fig. 6 T_prev, valid when has_prev */
	u32 t_last_us;    /* Fig. 6 T_last */
	u32 bytes_since;  /* per-RTT reading's L */
	u8 has_prev;
	u8 update;        /* enum atcp_abe_update */
	u8 k;             /* TW = k * RTT, integer k (the paper's "usually set to 1") */
};

/* Eq. (5): R = (TW R + L)/(Delta + TW), TW = k RTT. */
static inline void atcp_abe_tsw(struct atcp_abe *a, u64 bytes, u64 delta_us, u64 rtt_us)
{
	u64 tw = (u64)a->k * rtt_us;
	a->prev_rate_fp = a->rate_fp;
	a->rate_fp = atcp_div_round(tw * a->rate_fp + ((bytes * ATCP_US_PER_S) << ATCP_RATE_SHIFT), delta_us + tw);
}

/* An ACK at time t on this estimator's clock reporting bytes; rtt_us = SRTT (0: no update). */
static inline void atcp_abe_on_ack(struct atcp_abe *a, u32 t, u64 bytes, u64 rtt_us)
{
	if (!a->has_prev) {
		a->has_prev = 1;
		a->t_prev_us = t;
		a->t_last_us = t;
		return;
	}
	if ((s32)(t - a->t_prev_us) < 0)
		t = a->t_prev_us; /* a clock never runs backwards (reordered ACKs) */
	u64 since_last = (u32)(t - a->t_last_us);
	switch (a->update) {
	case ATCP_ABE_PER_RTT:
		a->bytes_since += (u32)bytes;
		if (rtt_us > 0 && since_last >= rtt_us) {
			u64 l = a->bytes_since;
			a->bytes_since = 0;
			atcp_abe_tsw(a, l, since_last, rtt_us);
			a->t_last_us = t;
		}
		break;
	case ATCP_ABE_PER_ACK:
		if (rtt_us > 0)
			atcp_abe_tsw(a, bytes, (u32)(t - a->t_prev_us), rtt_us);
		break;
	default: /* ATCP_ABE_LITERAL */
		if (rtt_us > 0 && since_last >= rtt_us) {
			atcp_abe_tsw(a, bytes, (u32)(t - a->t_prev_us), rtt_us);
			a->t_last_us = t;
		}
		break;
	}
	a->t_prev_us = t;
}

/* Eq. (6) in bytes: ownd = floor(RTT R / seg_size) segments, at least 2. Rust: jersey::ownd_bytes. */
static inline u64 atcp_ownd_bytes(u64 rate_fp, u64 rtt_us, u64 mss)
{
	u64 segs = rate_fp * rtt_us / ((ATCP_US_PER_S << ATCP_RATE_SHIFT) * mss);
	return (segs > 2 ? segs : 2) * mss;
}

/* Rate control (§III-C): ssthresh = ownd; cwnd = min(cwnd, ownd). */
static inline void atcp_rate_control(struct atcp_window *w, u64 ownd)
{
	w->ssthresh = ownd;
	if (w->cwnd > w->ssthresh)
		w->cwnd = w->ssthresh;
}

/* Fig. 7 lines 4-10 (Rust: jersey::on_ack_window); has_ownd = 0 before the first RTT sample. */
static inline void atcp_jersey_ack_window(struct atcp_window *w, const struct atcp_ack *a, u8 has_ownd, u64 ownd)
{
	if (a->recovering)
		return;
	if (a->ece && has_ownd)
		atcp_rate_control(w, ownd);
	atcp_reno_grow(w, a->acked_bytes);
}

/* The n-th duplicate ACK (Rust: jersey::on_dupacks); berr = NJ+ §3.3. */
static inline u32 atcp_jersey_dupacks(struct atcp_window *w, const struct atcp_loss *l, u8 has_ownd, u64 ownd, u8 berr)
{
	if (l->marked) {
		if (!has_ownd) {
			w->ssthresh = atcp_halve(l->flight_bytes, w->mss);
			return ATCP_REDUCE;
		}
		atcp_rate_control(w, ownd);
	} else if (has_ownd && berr) {
		w->ssthresh = ownd;
		w->cwnd += w->mss;
	}
	return ATCP_KEEP_WINDOW;
}

/* ECN-Echo once per window (Rust: jersey::on_ecn). */
static inline u32 atcp_jersey_ecn(struct atcp_window *w, u8 has_ownd, u64 ownd)
{
	if (has_ownd)
		atcp_rate_control(w, ownd);
	return ATCP_REDUCE;
}

/* The family's timeout rule (NJ+ Fig. 3a; Rust: jersey::on_timeout). */
static inline void atcp_jersey_timeout(struct atcp_window *w, const struct atcp_loss *l, u8 has_ownd, u64 ownd,
				       u8 has_no_cw_cwnd, u64 no_cw_cwnd)
{
	if (!has_ownd) {
		w->ssthresh = atcp_halve(l->flight_bytes, w->mss);
		w->cwnd = w->mss;
		return;
	}
	w->ssthresh = ownd;
	w->cwnd = l->marked ? w->mss : (has_no_cw_cwnd ? no_cw_cwnd : ownd);
}

/* ---------------------------------------------------------------------------------------------- */
/* TCP-Jersey (Rust: cc/jersey/mod.rs, Jersey).                                                       */

struct atcp_jersey {
	struct atcp_abe abe;
	struct atcp_acked_count acked;
	u64 srtt_us;
};

static inline void atcp_jersey_init(struct atcp_jersey *s, u8 update, u8 k)
{
	*s = (struct atcp_jersey){ 0 };
	s->abe.update = update;
	s->abe.k = k;
}

static inline u64 atcp_jersey_ownd(const struct atcp_jersey *s, u64 mss)
{
	return atcp_ownd_bytes(s->abe.rate_fp, s->srtt_us, mss);
}

/* The estimator part of an ACK (Fig. 7 line 3); dup = 1 for a duplicate ACK. */
static inline void atcp_jersey_feed(struct atcp_jersey *s, const struct atcp_ack *a, u64 mss, u8 dup)
{
	s->srtt_us = a->srtt_us;
	u64 d = dup ? atcp_acked_on_dup(&s->acked, mss) : atcp_acked_on_ack(&s->acked, a->acked_bytes, mss);
	atcp_abe_on_ack(&s->abe, a->now_us, d, s->srtt_us);
}

/* The window part of an ACK (Fig. 7 lines 4-10). */
static inline void atcp_jersey_window(struct atcp_jersey *s, struct atcp_window *w, const struct atcp_ack *a)
{
	atcp_jersey_ack_window(w, a, s->srtt_us > 0, atcp_jersey_ownd(s, w->mss));
}

static inline void atcp_jersey_on_ack(struct atcp_jersey *s, struct atcp_window *w, const struct atcp_ack *a)
{
	atcp_jersey_feed(s, a, w->mss, 0);
	atcp_jersey_window(s, w, a);
}

static inline void atcp_jersey_on_dup_ack(struct atcp_jersey *s, struct atcp_window *w, const struct atcp_ack *a)
{
	atcp_jersey_feed(s, a, w->mss, 1);
}

static inline u32 atcp_jersey_on_congestion(struct atcp_jersey *s, struct atcp_window *w, const struct atcp_loss *l)
{
	u8 has = s->srtt_us > 0;
	u64 ownd = atcp_jersey_ownd(s, w->mss);
	if (l->kind == ATCP_LOSS_DUPACKS)
		return atcp_jersey_dupacks(w, l, has, ownd, 0);
	if (l->kind == ATCP_LOSS_ECN)
		return atcp_jersey_ecn(w, has, ownd);
	atcp_jersey_timeout(w, l, has, ownd, 0, 0);
	return ATCP_REDUCE;
}

/* ---------------------------------------------------------------------------------------------- */
/* TCP New Jersey and NJ+ (Lee et al. 2008, the NJ+ paper; Rust: cc/jersey/new_jersey.rs).                                     */

struct atcp_new_jersey {
	struct atcp_abe sender_abe;   /* R_s, ACK arrivals (NJ+ MABE) */
	struct atcp_abe receiver_abe; /* R_r, data arrivals from TSval (TABE) */
	struct atcp_acked_count acked;
	u64 srtt_us;
	u8 nj_plus;
};

/* update: ATCP_ABE_PER_RTT for New Jersey, ATCP_ABE_PER_ACK for NJ+ (their defaults). */
static inline void atcp_new_jersey_init(struct atcp_new_jersey *s, u8 nj_plus, u8 update, u8 k)
{
	*s = (struct atcp_new_jersey){ 0 };
	s->nj_plus = nj_plus;
	s->sender_abe.update = update;
	s->sender_abe.k = k;
	s->receiver_abe.update = update;
	s->receiver_abe.k = k;
}

static inline u64 atcp_max_u64(u64 a, u64 b)
{
	return a > b ? a : b;
}

/* TABE, or MABE's max(R_s, R_r) for NJ+. */
static inline u64 atcp_new_jersey_rate(const struct atcp_new_jersey *s)
{
	return s->nj_plus ? atcp_max_u64(s->sender_abe.rate_fp, s->receiver_abe.rate_fp) : s->receiver_abe.rate_fp;
}

static inline u64 atcp_new_jersey_prev_rate(const struct atcp_new_jersey *s)
{
	return s->nj_plus ? atcp_max_u64(s->sender_abe.prev_rate_fp, s->receiver_abe.prev_rate_fp)
			  : s->receiver_abe.prev_rate_fp;
}

static inline void atcp_new_jersey_feed(struct atcp_new_jersey *s, const struct atcp_ack *a, u64 mss, u8 dup)
{
	u64 d = dup ? atcp_acked_on_dup(&s->acked, mss) : atcp_acked_on_ack(&s->acked, a->acked_bytes, mss);
	s->srtt_us = a->srtt_us;
	if (a->has_ts)
		atcp_abe_on_ack(&s->receiver_abe, a->ts_val_us, d, s->srtt_us);
	if (s->nj_plus)
		atcp_abe_on_ack(&s->sender_abe, a->now_us, d, s->srtt_us);
}

/* The window part of an ACK: TCP-Jersey's Fig. 7 lines 4-10 with this estimate. */
static inline void atcp_new_jersey_window(struct atcp_new_jersey *s, struct atcp_window *w, const struct atcp_ack *a)
{
	atcp_jersey_ack_window(w, a, s->srtt_us > 0, atcp_ownd_bytes(atcp_new_jersey_rate(s), s->srtt_us, w->mss));
}

static inline void atcp_new_jersey_on_ack(struct atcp_new_jersey *s, struct atcp_window *w, const struct atcp_ack *a)
{
	atcp_new_jersey_feed(s, a, w->mss, 0);
	atcp_new_jersey_window(s, w, a);
}

static inline void atcp_new_jersey_on_dup_ack(struct atcp_new_jersey *s, struct atcp_window *w,
					      const struct atcp_ack *a)
{
	atcp_new_jersey_feed(s, a, w->mss, 1);
}

static inline u32 atcp_new_jersey_on_congestion(struct atcp_new_jersey *s, struct atcp_window *w,
						const struct atcp_loss *l)
{
	u8 has = s->srtt_us > 0;
	u64 ownd = atcp_ownd_bytes(atcp_new_jersey_rate(s), s->srtt_us, w->mss);
	if (l->kind == ATCP_LOSS_DUPACKS)
		return atcp_jersey_dupacks(w, l, has, ownd, s->nj_plus);
	if (l->kind == ATCP_LOSS_ECN)
		return atcp_jersey_ecn(w, has, ownd);
	/* EASR (NJ+ Fig. 3b line 8): cwnd = (ownd_n + ownd_{n-1})/2, whole segments. */
	u64 before = atcp_ownd_bytes(atcp_new_jersey_prev_rate(s), s->srtt_us, w->mss);
	u64 easr = (ownd + before) / 2 / w->mss * w->mss;
	atcp_jersey_timeout(w, l, has, ownd, s->nj_plus && has, easr);
	return ATCP_REDUCE;
}

#endif /* AIRTCP_CC_H */
