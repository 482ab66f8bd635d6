/*
 * compiler.h for the ThreadSanitizer build of the threaded stress only.
 *
 * The kernel's READ_ONCE()/WRITE_ONCE() are volatile accesses: "a load or
 * store another CPU may race with, done exactly once".  ThreadSanitizer
 * treats volatile accesses as plain ones and would report every such
 * intended race.  Here they become relaxed atomic accesses, which is what
 * they mean (and what Linux's KCSAN takes them for), so TSan reports only
 * the accesses nobody marked.  Everything else is the real compiler.h.
 */
#ifndef TSAN_COMPILER_H
#define TSAN_COMPILER_H

#include_next <compiler.h>

#undef READ_ONCE
#undef WRITE_ONCE
#define READ_ONCE(x)     __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

#endif /* TSAN_COMPILER_H */
