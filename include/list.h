/*
 * list.h - circular doubly linked lists, the shape Linux uses everywhere.
 *
 * A list_head is embedded in the object it links; an empty list points at
 * itself, so insertion and removal never test for NULL.  Nothing here locks:
 * whoever owns the list says which lock guards it, next to its declaration.
 */
#ifndef LIST_H
#define LIST_H

#include <compiler.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name) { &(name), &(name) }
#define LIST_HEAD(name) struct list_head name = LIST_HEAD_INIT(name)

static inline void INIT_LIST_HEAD(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline void __list_add(struct list_head *n, struct list_head *prev,
			      struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* Insert after head: a stack. */
static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_add(n, head, head->next);
}

/* Insert before head: a queue. */
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_add(n, head->prev, head);
}

/* Unlink only: the entry's own pointers are left stale, for a caller that
 * links it somewhere else or reinitialises it next. */
static inline void __list_del_entry(struct list_head *e)
{
	e->next->prev = e->prev;
	e->prev->next = e->next;
}

/* Unlink and point the entry at itself, so a second list_del() is harmless
 * and list_empty() on the entry says "not on a list". */
static inline void list_del_init(struct list_head *e)
{
	__list_del_entry(e);
	INIT_LIST_HEAD(e);
}

static inline void list_del(struct list_head *e)
{
	list_del_init(e);
}

static inline void list_move(struct list_head *e, struct list_head *head)
{
	list_del(e);
	list_add(e, head);
}

static inline void list_move_tail(struct list_head *e, struct list_head *head)
{
	list_del(e);
	list_add_tail(e, head);
}

static inline bool list_empty(const struct list_head *h)
{
	return READ_ONCE(h->next) == h;
}

#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)
#define list_last_entry(head, type, member) \
	list_entry((head)->prev, type, member)

#define list_for_each(pos, head) \
	for (pos = (head)->next; pos != (head); pos = pos->next)

#define list_for_each_entry(pos, head, member)                                \
	for (pos = list_entry((head)->next, __typeof__(*pos), member);         \
	     &pos->member != (head);                                           \
	     pos = list_entry(pos->member.next, __typeof__(*pos), member))

#define list_for_each_entry_safe(pos, n, head, member)                        \
	for (pos = list_entry((head)->next, __typeof__(*pos), member),         \
	     n = list_entry(pos->member.next, __typeof__(*pos), member);       \
	     &pos->member != (head);                                           \
	     pos = n, n = list_entry(n->member.next, __typeof__(*n), member))

#endif /* LIST_H */
