/* SPDX-License-Identifier: MIT */
/* What xtab_app publishes, for test_xtab_e2e to find. */
#ifndef ZESTUB_TESTS_XPTI_XTAB_APP_H
#define ZESTUB_TESTS_XPTI_XTAB_APP_H

#define XTAB_APP_SUBMISSIONS 3
#define XTAB_APP_QUEUE 0x51
#define XTAB_APP_ALLOC_FUNCTION "sycl::malloc_device"
#define XTAB_APP_ALLOC_LINE 30
#define XTAB_APP_LIVE_PTR UINT64_C(0xff00000000010000)
#define XTAB_APP_LIVE_SIZE 4096
#define XTAB_APP_FREED_PTR UINT64_C(0xff00000000020000)
#define XTAB_APP_GUARD 64

#endif
