/*
 * cmdline.c - split the boot command line into options.
 *
 * Options are separated by spaces; each is `key=value` or a bare `flag`.
 * A value may be quoted ("a b") to hold spaces; one whose quote is never
 * closed runs to the end of the line and is marked, for params.c to
 * refuse (the options after it would vanish into it).  The text is copied into
 * the struct and cut in place, so keys and values point into it and nothing
 * is allocated.  When a key repeats, the last one wins (as in Linux).
 * What each option means, and which values it allows, is kernel/params.c's
 * business.  Host-tested in tests/host/test_lib.c.
 */
#include <string.h>
#include "cmdline.h"

struct cmdline kernel_cmdline;

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

void cmdline_parse(struct cmdline *cl, const char *text)
{
	char *p;

	memset(cl, 0, sizeof(*cl));
	strlcpy(cl->buf, text ? text : "", sizeof(cl->buf));
	p = cl->buf;
	for (;;) {
		char *key, *value = NULL;
		bool unclosed = false;

		while (is_space(*p))
			p++;
		if (!*p)
			break;
		key = p;
		while (*p && !is_space(*p) && *p != '=')
			p++;
		if (*p == '=') {
			*p++ = '\0';
			if (*p == '"') {
				value = ++p;
				while (*p && *p != '"')
					p++;
				unclosed = !*p;
			} else {
				value = p;
				while (*p && !is_space(*p))
					p++;
			}
		}
		if (*p)
			*p++ = '\0';
		if (cl->nr_opts == CMDLINE_MAX_OPTS) {
			cl->dropped++;
			continue;
		}
		cl->opts[cl->nr_opts].key = key;
		cl->opts[cl->nr_opts].value = value ? value : "";
		cl->opts[cl->nr_opts].unclosed = unclosed;
		cl->nr_opts++;
	}
}

const char *cmdline_get_from(const struct cmdline *cl, const char *key)
{
	const char *found = NULL;
	unsigned int i;

	for (i = 0; i < cl->nr_opts; i++)
		if (strcmp(cl->opts[i].key, key) == 0)
			found = cl->opts[i].value;
	return found;
}

/* Decimal, or hex with 0x.  False on an empty string, junk or overflow. */
bool cmdline_parse_u64(const char *s, u64 *out)
{
	unsigned int base = 10;
	u64 v = 0;

	if (!s || !*s)
		return false;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
		if (!*s)
			return false;
	}
	for (; *s; s++) {
		unsigned int d;

		if (*s >= '0' && *s <= '9')
			d = (unsigned int)(*s - '0');
		else if (base == 16 && *s >= 'a' && *s <= 'f')
			d = (unsigned int)(*s - 'a' + 10);
		else if (base == 16 && *s >= 'A' && *s <= 'F')
			d = (unsigned int)(*s - 'A' + 10);
		else
			return false;
		if (v > (UINT64_MAX - d) / base)
			return false;
		v = v * base + d;
	}
	*out = v;
	return true;
}
