/*
 * highlights.c - the few lines a reader should not miss, again at the end.
 *
 * A boot prints hundreds of lines; a handful of them are the story (the
 * NMI storm's per-CPU table, for one).  pr_highlight() prints a line like
 * pr_info() and also keeps a copy; highlights_replay() prints every kept
 * line once more as the boot's last words, after the test totals and
 * slabinfo, so `make run` ends on them.
 *
 * The copies live in one static buffer: normal context only (it takes the
 * highlights lock), and a line that does not fit is printed but not kept
 * (the replay then says how many were left out).
 */
#include <printk.h>
#include <spinlock.h>
#include <string.h>

#define HIGHLIGHTS_BUF_SIZE 8192

static char highlights[HIGHLIGHTS_BUF_SIZE];
static size_t highlights_len;
static unsigned int highlights_dropped;
static DEFINE_SPINLOCK(highlights_lock); /* guards the three above */

void pr_highlight(const char *fmt, ...)
{
	char line[256];
	unsigned long flags;
	size_t n;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	printk("%s", line);

	n = strlen(line);
	spin_lock_irqsave(&highlights_lock, flags);
	if (highlights_len + n < sizeof(highlights)) {
		memcpy(highlights + highlights_len, line, n);
		highlights_len += n;
	} else {
		highlights_dropped++;
	}
	spin_unlock_irqrestore(&highlights_lock, flags);
}

void highlights_replay(void)
{
	const char *p = highlights, *end = highlights + highlights_len;

	if (!highlights_len)
		return;
	printk("==== highlights of this boot ====\n");
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p) + 1 : (size_t)(end - p);

		printk("%.*s", (int)len, p);
		p += len;
	}
	if (highlights_dropped)
		printk("(%u more highlighted lines did not fit)\n",
		       highlights_dropped);
}
