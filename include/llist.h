/*
 * llist.h - a lock-less singly linked list (a Treiber stack).
 *
 * Any number of producers push with a compare-and-swap loop; the consumer
 * takes the whole list at once with an exchange (llist_del_all), so no
 * consumer ever sees a half-removed node and the ABA problem of single pops
 * cannot arise.  This is what lets an NMI hand work to normal context: the
 * NMI pushes (never waits: the CAS only retries if another CPU pushed at the
 * same instant), and whoever holds the right lock later takes the lot.
 */
#ifndef LLIST_H
#define LLIST_H

#include <compiler.h>

struct llist_node {
	struct llist_node *next;
};

struct llist_head {
	struct llist_node *first;
};

#define LLIST_HEAD_INIT { .first = NULL }

static inline void init_llist_head(struct llist_head *h)
{
	h->first = NULL;
}

static inline bool llist_empty(const struct llist_head *h)
{
	return __atomic_load_n(&h->first, __ATOMIC_RELAXED) == NULL;
}

/* Push one node; returns true if the list was empty before. */
static inline bool llist_add(struct llist_node *n, struct llist_head *h)
{
	struct llist_node *first = __atomic_load_n(&h->first, __ATOMIC_RELAXED);

	do {
		n->next = first;
	} while (!__atomic_compare_exchange_n(&h->first, &first, n, true,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	return first == NULL;
}

/* Take every node; the newest comes first. */
static inline struct llist_node *llist_del_all(struct llist_head *h)
{
	return __atomic_exchange_n(&h->first, NULL, __ATOMIC_ACQUIRE);
}

/* Reverse a list taken with llist_del_all(): oldest first, for FIFO work. */
static inline struct llist_node *llist_reverse_order(struct llist_node *n)
{
	struct llist_node *oldest_first = NULL;

	while (n) {
		struct llist_node *next = n->next;

		n->next = oldest_first;
		oldest_first = n;
		n = next;
	}
	return oldest_first;
}

#define llist_entry(ptr, type, member) container_of(ptr, type, member)

#endif /* LLIST_H */
