# SPDX-License-Identifier: MIT
# OpenCL C test kernels and the zebin fixtures built from them. The fixtures
# are committed, so a normal build never needs ocloc; "make regen-kernels"
# rebuilds them when configure found ocloc (and iga64).

EXTRA_DIST += \
	tests/kernels/README.md \
	tests/kernels/regen.sh \
	tests/kernels/test_regen.sh \
	tests/kernels/relative_comp_dir.py \
	tests/kernels/vadd.cl \
	tests/kernels/loop_call.cl \
	tests/kernels/oob.cl \
	tests/kernels/slm.cl \
	tests/kernels/inline_calls.cl \
	tests/kernels/printf_sum.cl \
	tests/kernels/spin.cl \
	tests/kernels/barrier_skip.cl \
	tests/kernels/fixtures/vadd-gen12lp.elf tests/kernels/fixtures/vadd-gen12lp.insns \
	tests/kernels/fixtures/vadd-xehpg.elf tests/kernels/fixtures/vadd-xehpg.insns \
	tests/kernels/fixtures/vadd-xehpc.elf tests/kernels/fixtures/vadd-xehpc.insns \
	tests/kernels/fixtures/loop_call-gen12lp.elf tests/kernels/fixtures/loop_call-gen12lp.insns \
	tests/kernels/fixtures/loop_call-xehpg.elf tests/kernels/fixtures/loop_call-xehpg.insns \
	tests/kernels/fixtures/loop_call-xehpc.elf tests/kernels/fixtures/loop_call-xehpc.insns \
	tests/kernels/fixtures/oob-gen12lp.elf tests/kernels/fixtures/oob-gen12lp.insns \
	tests/kernels/fixtures/oob-xehpg.elf tests/kernels/fixtures/oob-xehpg.insns \
	tests/kernels/fixtures/oob-xehpc.elf tests/kernels/fixtures/oob-xehpc.insns \
	tests/kernels/fixtures/slm-gen12lp.elf tests/kernels/fixtures/slm-gen12lp.insns \
	tests/kernels/fixtures/slm-xehpg.elf tests/kernels/fixtures/slm-xehpg.insns \
	tests/kernels/fixtures/slm-xehpc.elf tests/kernels/fixtures/slm-xehpc.insns \
	tests/kernels/fixtures/inline_calls-gen12lp.elf tests/kernels/fixtures/inline_calls-gen12lp.insns \
	tests/kernels/fixtures/inline_calls-xehpg.elf tests/kernels/fixtures/inline_calls-xehpg.insns \
	tests/kernels/fixtures/inline_calls-xehpc.elf tests/kernels/fixtures/inline_calls-xehpc.insns \
	tests/kernels/fixtures/spin-gen12lp.elf tests/kernels/fixtures/spin-gen12lp.insns \
	tests/kernels/fixtures/spin-xehpg.elf tests/kernels/fixtures/spin-xehpg.insns \
	tests/kernels/fixtures/spin-xehpc.elf tests/kernels/fixtures/spin-xehpc.insns \
	tests/kernels/fixtures/barrier_skip-gen12lp.elf tests/kernels/fixtures/barrier_skip-gen12lp.insns \
	tests/kernels/fixtures/barrier_skip-xehpg.elf tests/kernels/fixtures/barrier_skip-xehpg.insns \
	tests/kernels/fixtures/barrier_skip-xehpc.elf tests/kernels/fixtures/barrier_skip-xehpc.insns

# The fixtures are what their sources make (skips without ocloc or iga64).
TESTS += tests/kernels/test_regen.sh

.PHONY: regen-kernels
if HAVE_OCLOC
regen-kernels:
	OCLOC='$(OCLOC)' IGA64='$(IGA64)' $(SHELL) $(srcdir)/tests/kernels/regen.sh \
		$(srcdir)/tests/kernels/fixtures
else
regen-kernels:
	@echo "regen-kernels: configure found no ocloc; install intel-opencl-icd and" \
		"libigc-tools, then re-run configure" >&2; exit 1
endif
