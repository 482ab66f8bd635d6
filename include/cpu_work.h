/*
 * cpu_work.h - run a function on every CPU at once, in task context.
 *
 * smp_call_function_*() runs its function in IPI context with IRQs off:
 * right for a short call, wrong for a loop that lasts seconds (the timer
 * tick stops, and with it the sign of life the hard-lockup watchdog looks
 * for).  on_each_cpu_task() instead hands func(info) to the idle loop of
 * every other online CPU, which calls it in task context with IRQs on, and
 * calls it on this CPU too.  Nobody starts until every CPU has picked the
 * work up (a start barrier), so the calls really overlap; the caller
 * returns when every call has returned.
 *
 * Only one work runs at a time, and only from the boot CPU's task context
 * (the self-tests): there is no scheduler to run two.  A KUNIT_ASSERT_*()
 * that fails in func on another CPU does not end the case (its longjmp
 * would land on the runner CPU's stack): it records the failure, says so
 * in a line and returns, like an expectation (kernel/kunit.c).
 *
 * The other CPUs run cpu_idle_loop() (kernel/cpu_work.c) once they are up.
 */
#ifndef CPU_WORK_H
#define CPU_WORK_H

#include <types.h>

typedef void (*cpu_task_func_t)(void *info);

/* Task context, IRQs on.  Returns the number of CPUs that ran func. */
unsigned int on_each_cpu_task(cpu_task_func_t func, void *info);

/* Every AP, last step of its bring-up: halt, run task work, halt. */
void __attribute__((noreturn)) cpu_idle_loop(void);

#endif /* CPU_WORK_H */
