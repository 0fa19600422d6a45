/* SPDX-License-Identifier: MIT */
/*
 * Host build of the decision core (airtcp_cc.h): one opaque handle per flow, so that the
 * differential test (crates/airtcp-kernel-diff) can drive the very code the BPF programs run.
 */
#include <stdlib.h>

#include "airtcp_cc.h"

/* Which policy a handle runs. */
enum atcp_algo { ATCP_WESTWOOD = 0, ATCP_JERSEY = 1, ATCP_NEW_JERSEY = 2, ATCP_NJ_PLUS = 3 };

struct atcp_host {
	u32 algo;
	union {
		struct atcp_westwood westwood;
		struct atcp_jersey jersey;
		struct atcp_new_jersey nj;
	} s;
};

/* Westwood: p1 = tau_us, p2 = m. Jersey family: p1 = enum atcp_abe_update, p2 = k. NULL on bad algo. */
struct atcp_host *atcp_host_new(u32 algo, u32 p1, u32 p2)
{
	struct atcp_host *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->algo = algo;
	switch (algo) {
	case ATCP_WESTWOOD:
		atcp_westwood_init(&h->s.westwood, p1, p2);
		break;
	case ATCP_JERSEY:
		atcp_jersey_init(&h->s.jersey, (u8)p1, (u8)p2);
		break;
	case ATCP_NEW_JERSEY:
	case ATCP_NJ_PLUS:
		atcp_new_jersey_init(&h->s.nj, algo == ATCP_NJ_PLUS, (u8)p1, (u8)p2);
		break;
	default:
		free(h);
		return NULL;
	}
	return h;
}

void atcp_host_free(struct atcp_host *h)
{
	free(h);
}

void atcp_host_on_ack(struct atcp_host *h, struct atcp_window *w, const struct atcp_ack *a)
{
	switch (h->algo) {
	case ATCP_WESTWOOD:
		atcp_westwood_on_ack(&h->s.westwood, w, a);
		break;
	case ATCP_JERSEY:
		atcp_jersey_on_ack(&h->s.jersey, w, a);
		break;
	default:
		atcp_new_jersey_on_ack(&h->s.nj, w, a);
	}
}

void atcp_host_on_dup_ack(struct atcp_host *h, struct atcp_window *w, const struct atcp_ack *a)
{
	switch (h->algo) {
	case ATCP_WESTWOOD:
		atcp_westwood_on_dup_ack(&h->s.westwood, w, a);
		break;
	case ATCP_JERSEY:
		atcp_jersey_on_dup_ack(&h->s.jersey, w, a);
		break;
	default:
		atcp_new_jersey_on_dup_ack(&h->s.nj, w, a);
	}
}

u32 atcp_host_on_congestion(struct atcp_host *h, struct atcp_window *w, const struct atcp_loss *l)
{
	switch (h->algo) {
	case ATCP_WESTWOOD:
		return atcp_westwood_on_congestion(&h->s.westwood, w, l);
	case ATCP_JERSEY:
		return atcp_jersey_on_congestion(&h->s.jersey, w, l);
	default:
		return atcp_new_jersey_on_congestion(&h->s.nj, w, l);
	}
}

/* The estimate the policy acts on, bytes/s << ATCP_RATE_SHIFT (Westwood: after advancing to now). */
u64 atcp_host_rate_fp(const struct atcp_host *h)
{
	switch (h->algo) {
	case ATCP_WESTWOOD:
		return h->s.westwood.bwe.estimate_fp;
	case ATCP_JERSEY:
		return h->s.jersey.abe.rate_fp;
	default:
		return atcp_new_jersey_rate(&h->s.nj);
	}
}

/* The estimate before its latest update (Jersey family R_{n-1}; Westwood: the estimate). */
u64 atcp_host_prev_rate_fp(const struct atcp_host *h)
{
	switch (h->algo) {
	case ATCP_WESTWOOD:
		return h->s.westwood.bwe.estimate_fp;
	case ATCP_JERSEY:
		return h->s.jersey.abe.prev_rate_fp;
	default:
		return atcp_new_jersey_prev_rate(&h->s.nj);
	}
}

/* ATCP_RATE_SHIFT, for the test to scale rates. */
u32 atcp_host_rate_shift(void)
{
	return ATCP_RATE_SHIFT;
}
