# SPDX-License-Identifier: MIT
# Plain Level Zero programs: they link the loader only, as on real hardware.
noinst_PROGRAMS += examples/vadd examples/pagefault
examples_common_cflags = $(AM_CFLAGS) $(ZE_CFLAGS) \
	-DZESTUB_KERNEL_DIR='"$(abs_top_srcdir)/tests/kernels/fixtures"'
examples_vadd_SOURCES = examples/vadd.c examples/l0_common.c examples/l0_common.h
examples_vadd_CFLAGS = $(examples_common_cflags)
examples_vadd_LDADD = $(ZE_LIBS)
examples_pagefault_SOURCES = examples/pagefault.c examples/l0_common.c examples/l0_common.h
examples_pagefault_CFLAGS = $(examples_common_cflags)
examples_pagefault_LDADD = $(ZE_LIBS)
# spin: a kernel that loops until a debugger writes its flag.
noinst_PROGRAMS += examples/spin
examples_spin_SOURCES = examples/spin.c examples/l0_common.c examples/l0_common.h
examples_spin_CFLAGS = $(examples_common_cflags)
examples_spin_LDADD = $(ZE_LIBS)
EXTRA_DIST += examples/README.md

# sycl_like: plays a SYCL runtime's XPTI part (sycl_rt.c) through our
# dispatcher, libxptifw, while running kernels with Level Zero.
noinst_PROGRAMS += examples/sycl_like
examples_sycl_like_SOURCES = examples/sycl_like.c examples/sycl_rt.c examples/sycl_rt.h \
	examples/l0_common.c examples/l0_common.h
examples_sycl_like_CFLAGS = $(examples_common_cflags)
examples_sycl_like_LDADD = libxptifw.la $(ZE_LIBS) $(PTHREAD_LIBS)

# mpi_pagefault: an MPI job where ranks 1 and 3 page-fault (zestub dump
# under mpirun, then zestub merge). Built only when MPI is installed.
if HAVE_MPI
noinst_PROGRAMS += examples/mpi_pagefault
examples_mpi_pagefault_SOURCES = examples/mpi_pagefault.c examples/l0_common.c \
	examples/l0_common.h
examples_mpi_pagefault_CFLAGS = $(examples_common_cflags) $(MPI_CFLAGS)
examples_mpi_pagefault_LDADD = $(MPI_LIBS) $(ZE_LIBS)
endif
EXTRA_DIST += examples/mpi_pagefault.c

# sycl_hang: a launch that never completes (a barrier one thread of each
# work-group never reaches; gtsim: GTSIM_CONFIG barrier_skip=1).
noinst_PROGRAMS += examples/sycl_hang
examples_sycl_hang_SOURCES = examples/sycl_hang.c examples/sycl_rt.c examples/sycl_rt.h \
	examples/l0_common.c examples/l0_common.h
examples_sycl_hang_CFLAGS = $(examples_common_cflags)
examples_sycl_hang_LDADD = libxptifw.la $(ZE_LIBS) $(PTHREAD_LIBS)
