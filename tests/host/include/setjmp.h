/* Host shadow of include/setjmp.h: the C library's, which ASan understands. */
#include_next <setjmp.h>
