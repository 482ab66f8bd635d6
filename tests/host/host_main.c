/*
 * host_main.c - main() of the host test programs: runs the registered
 * KUnit suites, with an optional filter as argv[1], exactly as the kernel
 * would.  Kept apart from host_support.c so that other host programs (the
 * benchmark of bench/host/) can link the support code with a main() of
 * their own.
 */
#include <kunit.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	struct kunit_totals t;

	setvbuf(stdout, NULL, _IONBF, 0);
	return kunit_run_all(argc > 1 ? argv[1] : NULL, &t) ? 0 : 1;
}
