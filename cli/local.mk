# SPDX-License-Identifier: MIT
# The zestub program: argument parsing and sub-commands on top of sessions/.
bin_PROGRAMS += zestub
zestub_SOURCES = cli/cli.h cli/main.c cli/devices.c cli/dump.c cli/serve.c \
	cli/dump_hang.c cli/dump_hang.h \
	cli/dump.h cli/dump_phases.c cli/dump_launch.c cli/launch.c cli/launch.h cli/launch_proto.h \
	cli/launch_run.c cli/launch_run.h \
	cli/outpattern.c cli/outpattern.h cli/json_parse.c cli/json_parse.h \
	cli/merge.c cli/merge.h cli/merge_out.c cli/doctor.c
zestub_CFLAGS = $(AM_CFLAGS) -DZESTUB_PKGLIBDIR='"$(pkglibdir)"'
zestub_LDADD = libtarget.la libreport.la libgdbstub.la libsessions.la libsymbols.la libregsets.la libzetdebug.la \
	$(ZE_LIBS) $(LIBDWARF_LIBS) $(LIBELF_LIBS) $(PTHREAD_LIBS)
EXTRA_DIST += cli/README.md doc/merge-format.md doc/core-format.md

# libzestub_launch.so: preloaded by launch mode into the program zestub
# starts; holds its first zeModuleCreate until zestub has attached
# (cli/launch_proto.h). Built here, beside its only user, because the
# handshake is private to cli/. Exports only zeModuleCreate.
pkglib_LTLIBRARIES += libzestub_launch.la
libzestub_launch_la_SOURCES = cli/launch_hold.c cli/launch_proto.h
libzestub_launch_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libzestub_launch_la_LDFLAGS = -module -avoid-version -no-undefined
libzestub_launch_la_LIBADD = $(DL_LIBS) $(PTHREAD_LIBS)

# gdbserver-ze: the name Intel's GDB auto-attach runs
# (INTELGT_AUTO_ATTACH_GDBSERVER_PATH=DIR: `DIR/gdbserver-ze --multi --once -`),
# a symlink to zestub in a directory of its own so that pointing GDB there
# brings in nothing else. libexec/gdbserver-ze is the same in the build tree,
# for the tests.
install-exec-hook:
	$(MKDIR_P) '$(DESTDIR)$(pkglibexecdir)'
	ln -sf '$(bindir)/zestub' '$(DESTDIR)$(pkglibexecdir)/gdbserver-ze'
uninstall-hook:
	rm -f '$(DESTDIR)$(pkglibexecdir)/gdbserver-ze'
all-local: libexec/gdbserver-ze
libexec/gdbserver-ze:
	$(MKDIR_P) libexec && ln -sf ../zestub $@
CLEANFILES += libexec/gdbserver-ze
