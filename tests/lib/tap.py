# SPDX-License-Identifier: MIT
"""TAP output for the Python tests (Python 3 stdlib): the plan first, one
line per check, and done() for the exit status."""

import sys


class Tap:
    """TAP output. With a plan (the number of checks the test makes) the
    plan line comes first, and done() turns every planned check that never
    ran (a guarded block cut short by an exception, a branch not taken)
    into a failure, so a check cannot vanish. Without one the plan is
    printed at the end (only for tests whose count depends on the data)."""

    def __init__(self, plan=None):
        self.n = 0
        self.failed = 0
        self.plan = plan
        if plan is not None:
            print("1..%d" % plan)
            sys.stdout.flush()

    def ok(self, cond, desc, detail=None):
        self.n += 1
        if not cond:
            self.failed += 1
        print("%s %d - %s" % ("ok" if cond else "not ok", self.n, desc))
        if not cond and detail is not None:
            for line in str(detail)[:2000].splitlines():
                print("#   " + line)
        sys.stdout.flush()
        return cond

    def eq(self, got, want, desc):
        return self.ok(got == want, desc, "got %r\nwant %r" % (got, want))

    def skip(self, desc, why):
        """A check that cannot run here, and why (counted as a skip)."""
        self.n += 1
        print("ok %d - %s # SKIP %s" % (self.n, desc, why))
        sys.stdout.flush()

    def diag(self, text):
        for line in str(text).splitlines():
            print("# " + line)

    def done(self):
        if self.plan is None:
            print("1..%d" % self.n)
        elif self.n != self.plan:
            ran = self.n
            while self.n < self.plan:
                self.ok(False, "planned check %d of %d never ran (only %d ran)"
                        % (self.n + 1, self.plan, ran))
            if ran > self.plan:
                self.failed += 1
                print("# %d checks ran, %d were planned" % (ran, self.plan))
        sys.stdout.flush()
        return 1 if self.failed else 0
