/*
 * viz_test.c - the allocator snapshots of viz= (kernel/viz.c) come from
 * the timer while the allocator works.
 *
 * One case, in every boot.  Without viz= (or with viz=0) the tick must
 * write nothing: the count of snapshots stays 0.  With viz= and no second
 * serial port the case is skipped (the boot said why in one line).  With
 * both, it allocates and frees
 * kmalloc objects (so the sheaves it draws move) until VIZ_TEST_SNAPSHOTS
 * more snapshots have been written, waiting for the ticks themselves
 * (test_wait.h), never for a time.  So a boot with test=...,viz always
 * leaves at least that many snapshots on COM2 however fast the host is,
 * which the harness's check of the COM2 log counts on
 * (tests/harness/viz_check.py, check_live()).
 */
#include <kunit.h>
#include <slab.h>
#include <viz.h>
#include "test_wait.h"
#include "../../kernel/params.h"

#define VIZ_TEST_SNAPSHOTS 6
#define VIZ_TEST_OBJECTS   96     /* more than a kmalloc-64 sheaf holds */
#define VIZ_TEST_SIZE      64

static void snapshots_come_from_the_tick(struct kunit *test)
{
	void *held[VIZ_TEST_OBJECTS];
	unsigned long first = viz_snapshots();
	u64 end = test_deadline();
	bool timed_out = false;
	unsigned int i;

	if (!param_number(PARAM_VIZ)) {
		KUNIT_EXPECT_EQ(test, first, 0ul);
		KUNIT_EXPECT_FALSE(test, viz_running());
		return;
	}
	if (!viz_running())
		kunit_skip(test, "viz= given, and no UART at COM2 to write to");
	while (viz_snapshots() < first + VIZ_TEST_SNAPSHOTS && !timed_out) {
		for (i = 0; i < VIZ_TEST_OBJECTS; i++)
			held[i] = kmalloc(VIZ_TEST_SIZE, GFP_KERNEL);
		for (i = 0; i < VIZ_TEST_OBJECTS; i++)
			kfree(held[i]);
		timed_out = test_deadline_passed(end);
	}
	KUNIT_EXPECT_FALSE(test, timed_out);
	KUNIT_EXPECT_GE(test, viz_snapshots(), first + VIZ_TEST_SNAPSHOTS);
}

static struct kunit_case viz_cases[] = {
	KUNIT_CASE(snapshots_come_from_the_tick),
	{}
};

static struct kunit_suite viz_suite = {
	.name = "viz",
	.test_cases = viz_cases,
};
kunit_test_suite(viz_suite);
