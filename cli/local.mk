# SPDX-License-Identifier: MIT
# The zestub program: argument parsing and sub-commands on top of the layers.
bin_PROGRAMS += zestub
zestub_SOURCES = cli/cli.h cli/main.c cli/devices.c cli/dump.c cli/serve.c \
	cli/dump_hang.c cli/dump_hang.h cli/duration.c cli/duration.h \
	cli/dump.h cli/dump_phases.c cli/dump_launch.c cli/forward_signals.c cli/forward_signals.h \
	cli/serve_launcher.c cli/serve_launcher.h \
	cli/outpattern.c cli/outpattern.h \
	cli/merge_cmd.c cli/doctor.c
zestub_LDADD = liblaunch.la libmerge.la libtarget.la libreport.la libgdbstub.la libsessions.la \
	libsymbols.la libregsets.la libzetdebug.la \
	$(ZE_LIBS) $(LIBDWARF_LIBS) $(LIBELF_LIBS) $(PTHREAD_LIBS)
EXTRA_DIST += cli/README.md

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
