/*
 * compiler.h - thin names for the compiler features the kernel relies on.
 *
 * Each macro says what it is for at the call site: READ_ONCE() marks a load
 * that another CPU or an interrupt may race with, barrier() stops the compiler
 * (not the CPU) from moving memory accesses across it.  Both gcc and clang
 * understand every builtin used here.
 */
#ifndef COMPILER_H
#define COMPILER_H

#include <types.h>

/* Guarded: a host C library may define some of these already. */
#ifndef __packed
#define __packed        __attribute__((packed))
#endif
#ifndef __aligned
#define __aligned(x)    __attribute__((aligned(x)))
#endif
#ifndef __section
#define __section(s)    __attribute__((section(s)))
#endif
#ifndef __used
#define __used          __attribute__((used))
#endif
#ifndef __unused
#define __unused        __attribute__((unused))
#endif
#ifndef __noreturn
#define __noreturn      __attribute__((noreturn))
#endif
#ifndef __noinline
#define __noinline      __attribute__((noinline))
#endif
#ifndef __always_inline
#define __always_inline inline __attribute__((always_inline))
#endif
#ifndef __printf
#define __printf(a, b)  __attribute__((format(printf, a, b)))
#endif

#define likely(x)   __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)

#define barrier() __asm__ __volatile__("" ::: "memory")

/* A load or store the compiler must do exactly once, as written. */
#define READ_ONCE(x)     (*(const volatile __typeof__(x) *)&(x))
#define WRITE_ONCE(x, v) (*(volatile __typeof__(x) *)&(x) = (v))

/*
 * The compiler forgets what it knew about var's value (Linux's macro of
 * the same name).  For a pointer computed from several parts, such as a
 * per-CPU entry (base + CPU * size): the compiler would otherwise rebuild
 * each field's address from the parts, again and again, instead of adding
 * the field's offset to the one pointer.
 */
#define OPTIMIZER_HIDE_VAR(var) __asm__ ("" : "+r"(var))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#define container_of(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

#define ALIGN_UP(x, a)   (((x) + ((a) - 1)) & ~((__typeof__(x))(a) - 1))
#define ALIGN_DOWN(x, a) ((x) & ~((__typeof__(x))(a) - 1))
#define IS_ALIGNED(x, a) (((x) & ((__typeof__(x))(a) - 1)) == 0)
#define DIV_ROUND_UP(n, d) (((n) + (d) - 1) / (d))

#define min(a, b) ((a) < (b) ? (a) : (b))
#define max(a, b) ((a) > (b) ? (a) : (b))

#define BUILD_BUG_ON(cond) _Static_assert(!(cond), #cond)

/* Return address of the current function: the "caller" in bug reports. */
#define _RET_IP_ ((unsigned long)__builtin_return_address(0))
#define _THIS_IP_ ({ __label__ __here; __here: (unsigned long)&&__here; })

#endif /* COMPILER_H */
