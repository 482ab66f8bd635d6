/*
 * vsprintf.c - formatted output into a buffer, with no C library.
 *
 * Supports what the kernel uses: %d %i %u %x %X %o %p %s %c %%, the length
 * modifiers h, l, ll and z, a field width (`%8x`, or `*` from the arguments),
 * zero padding (`%016lx`), left justification (`%-10s`) and a precision for
 * strings (`%.*s`).  %p prints a pointer as 0x followed by 16 hex digits;
 * %pS prints a code address as "function+offset/size" (Linux's name for
 * it), through kallsyms_format() when the kernel links one in, else as %p.
 *
 * Like C's vsnprintf() it never writes past `size` bytes, always terminates
 * the buffer when size > 0, and returns the length the whole output would
 * have had, so a caller can tell it was cut.  The host tests
 * (tests/host/test_vsprintf.c) check each conversion against these rules.
 */
#include <printk.h>
#include <string.h>

/* kernel/kallsyms.c; absent (NULL) in host builds. */
void kallsyms_format(unsigned long addr, char *buf, size_t size)
	__attribute__((weak));

struct out {
	char *buf;
	size_t size;
	size_t len; /* characters produced so far, written or not */
};

static void put_char(struct out *o, char c)
{
	if (o->len + 1 < o->size)
		o->buf[o->len] = c;
	o->len++;
}

static void put_padding(struct out *o, char c, int count)
{
	while (count-- > 0)
		put_char(o, c);
}

struct spec {
	int width;
	int precision; /* -1: none */
	bool left;
	bool zero;
	bool plus;
	bool space;
	bool alt;
};

static void put_string(struct out *o, const char *s, const struct spec *sp)
{
	size_t n;
	int pad;

	if (!s)
		s = "(null)";
	n = sp->precision >= 0 ? strnlen(s, (size_t)sp->precision) : strlen(s);
	pad = sp->width > (int)n ? sp->width - (int)n : 0;
	if (!sp->left)
		put_padding(o, ' ', pad);
	while (n--)
		put_char(o, *s++);
	if (sp->left)
		put_padding(o, ' ', pad);
}

static void put_number(struct out *o, unsigned long long v, bool negative,
		       unsigned int base, bool upper, const struct spec *sp,
		       const char *prefix)
{
	const char *digits = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	char tmp[24];
	int n = 0, len, pad;
	char sign = 0;

	do {
		tmp[n++] = digits[v % base];
		v /= base;
	} while (v);

	if (negative)
		sign = '-';
	else if (sp->plus)
		sign = '+';
	else if (sp->space)
		sign = ' ';

	len = n + (sign ? 1 : 0) + (int)strlen(prefix);
	pad = sp->width > len ? sp->width - len : 0;

	if (!sp->left && !sp->zero)
		put_padding(o, ' ', pad);
	if (sign)
		put_char(o, sign);
	while (*prefix)
		put_char(o, *prefix++);
	if (!sp->left && sp->zero)
		put_padding(o, '0', pad);
	while (n)
		put_char(o, tmp[--n]);
	if (sp->left)
		put_padding(o, ' ', pad);
}

enum length { LEN_INT, LEN_SHORT, LEN_LONG, LEN_LLONG, LEN_SIZE };

static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	memset(sp, 0, sizeof(*sp));
	sp->precision = -1;
	for (;; f++) {
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else if (*f == '+')
			sp->plus = true;
		else if (*f == ' ')
			sp->space = true;
		else if (*f == '#')
			sp->alt = true;
		else
			break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		if (sp->width < 0) {
			sp->left = true;
			sp->width = -sp->width;
		}
		f++;
	} else {
		while (*f >= '0' && *f <= '9')
			sp->width = sp->width * 10 + (*f++ - '0');
	}
	if (*f == '.') {
		f++;
		sp->precision = 0;
		if (*f == '*') {
			sp->precision = va_arg(*ap, int);
			f++;
		} else {
			while (*f >= '0' && *f <= '9')
				sp->precision = sp->precision * 10 + (*f++ - '0');
		}
	}
	return f;
}

static const char *parse_length(const char *f, enum length *len)
{
	*len = LEN_INT;
	if (*f == 'h') {
		*len = LEN_SHORT;
		f++;
		if (*f == 'h')
			f++;
	} else if (*f == 'l') {
		*len = LEN_LONG;
		f++;
		if (*f == 'l') {
			*len = LEN_LLONG;
			f++;
		}
	} else if (*f == 'z') {
		*len = LEN_SIZE;
		f++;
	}
	return f;
}

static long long signed_arg(enum length len, va_list *ap)
{
	switch (len) {
	case LEN_LONG:  return va_arg(*ap, long);
	case LEN_LLONG: return va_arg(*ap, long long);
	case LEN_SIZE:  return (long long)va_arg(*ap, size_t);
	case LEN_SHORT: return (short)va_arg(*ap, int);
	default:        return va_arg(*ap, int);
	}
}

static unsigned long long unsigned_arg(enum length len, va_list *ap)
{
	switch (len) {
	case LEN_LONG:  return va_arg(*ap, unsigned long);
	case LEN_LLONG: return va_arg(*ap, unsigned long long);
	case LEN_SIZE:  return va_arg(*ap, size_t);
	case LEN_SHORT: return (unsigned short)va_arg(*ap, unsigned int);
	default:        return va_arg(*ap, unsigned int);
	}
}

int vsnprintf(char *buf, size_t size, const char *fmt, va_list args)
{
	struct out o = { .buf = buf, .size = size, .len = 0 };
	struct spec sp;
	enum length len;
	va_list ap;

	va_copy(ap, args);
	for (const char *f = fmt; *f; f++) {
		if (*f != '%') {
			put_char(&o, *f);
			continue;
		}
		f = parse_spec(f + 1, &sp, &ap);
		f = parse_length(f, &len);
		switch (*f) {
		case 'd':
		case 'i': {
			long long v = signed_arg(len, &ap);
			unsigned long long mag = v < 0 ?
				0ULL - (unsigned long long)v : (unsigned long long)v;

			put_number(&o, mag, v < 0, 10, false, &sp, "");
			break;
		}
		case 'u':
			put_number(&o, unsigned_arg(len, &ap), false, 10, false,
				   &sp, "");
			break;
		case 'x':
		case 'X':
			put_number(&o, unsigned_arg(len, &ap), false, 16,
				   *f == 'X', &sp, sp.alt ? "0x" : "");
			break;
		case 'o':
			put_number(&o, unsigned_arg(len, &ap), false, 8, false,
				   &sp, sp.alt ? "0" : "");
			break;
		case 'p': {
			struct spec ps = { .width = 18, .zero = true, /* 0x + 16 */
					   .precision = -1 };

			if (f[1] == 'S' && kallsyms_format) {
				char sym[96];

				f++;
				kallsyms_format((unsigned long)va_arg(ap, void *),
						sym, sizeof(sym));
				put_string(&o, sym, &sp);
				break;
			}
			if (f[1] == 'S')
				f++;
			put_number(&o, (unsigned long long)(uintptr_t)
				   va_arg(ap, void *), false, 16, false, &ps,
				   "0x");
			break;
		}
		case 's':
			put_string(&o, va_arg(ap, const char *), &sp);
			break;
		case 'c': {
			char c = (char)va_arg(ap, int);
			char s[2] = { c, '\0' };

			sp.precision = -1;
			put_string(&o, s, &sp);
			break;
		}
		case '%':
			put_char(&o, '%');
			break;
		case '\0':
			f--; /* a lone '%' at the end: stop */
			break;
		default:
			/* Unknown conversion: show it rather than guess. */
			put_char(&o, '%');
			put_char(&o, *f);
			break;
		}
	}
	va_end(ap);
	if (size > 0)
		buf[o.len < size ? o.len : size - 1] = '\0';
	return (int)o.len;
}

int snprintf(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	return n;
}
