/* Host shadow of include/string.h: the C library's, plus strlcpy. */
#ifndef HOST_STRING_H
#define HOST_STRING_H
#include_next <string.h>
size_t strlcpy(char *dst, const char *src, size_t size);
#endif
