# SPDX-License-Identifier: MIT
# gtsim through the real Level Zero loader, as applications see it.
check_PROGRAMS += tests/gtsim/topology_probe
tests_gtsim_topology_probe_SOURCES = tests/gtsim/topology_probe.c
tests_gtsim_topology_probe_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS)
tests_gtsim_topology_probe_LDADD = $(ZE_LIBS)
TESTS += tests/gtsim/test_topology.sh tests/gtsim/test_examples.sh
EXTRA_DIST += tests/gtsim/test_topology.sh tests/gtsim/test_examples.sh
