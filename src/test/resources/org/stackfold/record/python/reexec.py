# A workload for Stackfold's agent tests that execs its own interpreter once, as self-restarting
# services do: it runs before_exec() until the file named by its argument exists, then os.execv's
# the same python with "after", and the new program runs after_exec() until killed (same pid,
# same binary, a new address space). Prints "ready" first.
import os
import sys


def spin(n):
    x = 0
    for i in range(n):
        x = (x + i) & 0xffff
    return x


def before_exec(trigger):
    while not os.path.exists(trigger):
        spin(20000)


def after_exec():
    while True:
        spin(20000)


if __name__ == "__main__":
    if sys.argv[1] == "after":
        after_exec()
    else:
        print("ready", flush=True)
        before_exec(sys.argv[1])
        os.execv(sys.executable, [sys.executable, sys.argv[0], "after"])
