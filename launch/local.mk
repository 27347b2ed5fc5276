# SPDX-License-Identifier: MIT
# Launch mode: starting a program held in its first zeModuleCreate until
# zestub has attached (launch/README.md).

# What zestub links: start, hold, release and reap programs (launch.c), and
# vRun's set of them (launch_run.c). It finds the preloaded library in the
# install path too.
noinst_LTLIBRARIES += liblaunch.la
liblaunch_la_SOURCES = launch/launch.c launch/launch.h launch/launch_proto.h \
	launch/launch_run.c launch/launch_run.h
# Also pkglibdir relative to bindir, which `make install prefix=DIR`
# keeps while it changes both (launch.c looks there before the configured
# path).
liblaunch_la_CFLAGS = $(AM_CFLAGS) -DZESTUB_PKGLIBDIR='"$(pkglibdir)"' \
	-DZESTUB_PKGLIBDIR_REL="\"$$(realpath -m --relative-to='$(bindir)' '$(pkglibdir)')\""

# libzestub_launch.so: preloaded by launch mode into the program zestub
# starts; holds its first zeModuleCreate until zestub has attached
# (launch_proto.h). Exports only zeModuleCreate. Its name has no folder:
# libtool puts it in the top build tree's .libs/, next to the zestub binary,
# where launch.c looks for it before the install path.
pkglib_LTLIBRARIES += libzestub_launch.la
libzestub_launch_la_SOURCES = launch/launch_hold.c launch/launch_proto.h
libzestub_launch_la_CFLAGS = $(AM_CFLAGS) -fvisibility=hidden
libzestub_launch_la_LDFLAGS = -module -avoid-version -no-undefined
libzestub_launch_la_LIBADD = $(DL_LIBS) $(PTHREAD_LIBS)
EXTRA_DIST += launch/README.md
