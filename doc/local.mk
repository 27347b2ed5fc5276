# SPDX-License-Identifier: MIT
# User documentation: man pages (roff, installed by make install), the user
# guide, and the bash completion file (contrib/).
dist_man_MANS = doc/zestub.1 doc/zestub-devices.1 doc/zestub-dump.1 doc/zestub-doctor.1 \
	doc/zestub-merge.1
bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = contrib/bash-completion/zestub
EXTRA_DIST += contrib/README.md
# The guide and the format notes the man pages and --help texts point at,
# in $(docdir) (share/doc/zestub).
dist_doc_DATA = doc/user-guide.md doc/dump-format.md doc/merge-format.md \
	doc/core-format.md doc/stock-gdb.md
