# SPDX-License-Identifier: MIT
# User documentation: man pages (roff, installed by make install), the user
# guide, and the bash completion file (contrib/).
dist_man_MANS = doc/zestub.1 doc/zestub-devices.1 doc/zestub-dump.1 doc/zestub-doctor.1
bashcompletiondir = $(datadir)/bash-completion/completions
dist_bashcompletion_DATA = contrib/bash-completion/zestub
EXTRA_DIST += doc/user-guide.md contrib/README.md
