# SPDX-License-Identifier: MIT
# gtsim: the simulated Intel GPU, a Level Zero driver the real loader loads
# through ZE_ENABLE_ALT_DRIVERS. It must never link the loader itself.

# The simulator core (hardware threads, ISA, zebin, registers, config),
# shared by the driver library and the unit tests.
noinst_LTLIBRARIES += libgtsim_core.la
libgtsim_core_la_SOURCES = \
	gtsim/platform.h \
	gtsim/config.c gtsim/config.h \
	gtsim/regfile.c gtsim/regfile.h \
	gtsim/isa.c gtsim/isa.h \
	gtsim/zebin.c gtsim/zebin.h \
	gtsim/debug_zebin.c gtsim/debug_zebin.h \
	gtsim/spirv_spec.c gtsim/spirv_spec.h \
	gtsim/hw.c gtsim/hw.h gtsim/hw_int.h gtsim/hw_access.c \
	gtsim/ssa.h gtsim/ssa_map.c gtsim/ssa_read.c \
	gtsim/iga.c gtsim/iga.h \
	gtsim/decode_cache.c gtsim/decode_cache.h \
	gtsim/exec.c gtsim/exec.h gtsim/exec_int.h gtsim/exec_operands.c gtsim/exec_lsc.c gtsim/exec_dataport.c \
	gtsim/exec_flags.c gtsim/exec_flow.c
libgtsim_core_la_CFLAGS = $(AM_CFLAGS) $(LIBELF_CFLAGS) -fvisibility=hidden -fPIC
# -ldl: libiga64 is dlopened (iga.c), never linked.
libgtsim_core_la_LIBADD = $(LIBELF_LIBS) $(PTHREAD_LIBS) -ldl

# Installed beside zestub's other private libraries; tests use the build tree's copy.
pkglib_LTLIBRARIES += libze_gtsim.la
libze_gtsim_la_SOURCES = \
	gtsim/gtsim.h gtsim/device_build.h gtsim/zet_fill.h gtsim/zet_debug_1_5.h \
	gtsim/ddi.c \
	gtsim/driver.c \
	gtsim/affinity.c \
	gtsim/device.c \
	gtsim/context.c \
	gtsim/memory.c \
	gtsim/module.c \
	gtsim/il_build.c gtsim/il_build.h \
	gtsim/il_cache.c gtsim/il_cache.h \
	gtsim/kernel.c \
	gtsim/printf_buffer.c gtsim/printf_buffer.h \
	gtsim/cmdlist.c \
	gtsim/queue.c \
	gtsim/event.c \
	gtsim/sampler.c \
	gtsim/dbg_proto.c gtsim/dbg_proto.h \
	gtsim/dbg_server.c gtsim/dbg_server.h gtsim/dbg_srv_int.h \
	gtsim/dbg_stale.c gtsim/dbg_stale.h \
	gtsim/dbg_srv_base.c gtsim/dbg_srv_threads.c gtsim/dbg_srv_stops.c gtsim/dbg_srv_spread.c gtsim/dbg_srv_streams.c \
	gtsim/dbg_srv_requests.c gtsim/dbg_srv_interrupts.c gtsim/dbg_srv_modules.c gtsim/dbg_srv_lost.c \
	gtsim/dbg_client.c gtsim/dbg_client_int.h gtsim/dbg_client_regs.c gtsim/dbg_req.c gtsim/dbg_req.h gtsim/dbg_intr_state.c gtsim/dbg_intr_state.h gtsim/zet_device_module.c gtsim/zet_regset_props.c gtsim/zet_regset_props.h \
	gtsim/faults.c gtsim/faults.h
libze_gtsim_la_CFLAGS = $(AM_CFLAGS) $(ZE_CFLAGS) $(LIBELF_CFLAGS) -fvisibility=hidden
# nodelete: gtsim owns threads (simulator workers, the debug endpoint); the
# loader dlcloses drivers from its exit-time destructors, and a thread that
# woke after that would run unmapped code.
libze_gtsim_la_LDFLAGS = -module -avoid-version -shared -no-undefined -Wl,-z,nodelete
libze_gtsim_la_LIBADD = libgtsim_core.la $(LIBELF_LIBS) $(PTHREAD_LIBS)

EXTRA_DIST += gtsim/README.md
