# SPDX-License-Identifier: MIT
# The build system itself: installing under another prefix (tests/build/README.md).
BUILD_TESTS = tests/build/test_install.sh tests/build/test_show_failures.sh
TESTS += $(BUILD_TESTS)
EXTRA_DIST += $(BUILD_TESTS) tests/build/README.md
