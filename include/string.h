/*
 * string.h - the few C library string and memory routines the kernel needs.
 *
 * Written in plain C in kernel/string.c.  gcc and clang may emit calls to
 * memcpy/memset/memmove/memcmp on their own (for struct copies), so these
 * four must exist with exactly these names even in a freestanding kernel.
 * The host build uses the C library's versions instead.
 */
#ifndef STRING_H
#define STRING_H

#include <types.h>

void *memcpy(void *dst, const void *src, size_t n);
void *memmove(void *dst, const void *src, size_t n);
void *memset(void *dst, int c, size_t n);
int memcmp(const void *a, const void *b, size_t n);
size_t strlen(const char *s);
size_t strnlen(const char *s, size_t max);
int strcmp(const char *a, const char *b);
int strncmp(const char *a, const char *b, size_t n);
char *strchr(const char *s, int c);
char *strstr(const char *haystack, const char *needle);
void *memchr(const void *s, int c, size_t n);
size_t strlcpy(char *dst, const char *src, size_t size);

#endif /* STRING_H */
