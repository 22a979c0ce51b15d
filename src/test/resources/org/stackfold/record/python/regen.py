# A CPU-bound workload for Stackfold's agent tests whose busy function is redefined again and
# again, until killed: generation N compiles new source defining gen_N (the same lines and
# arguments, only the name differs), calls it from the line of branch N % 4 of generation() for a
# fixed amount of work, then drops it, so that its code object is freed and generation N+1's is
# allocated at the same address (CPython's allocator hands the freed block straight back). The
# branch's line tells which generation a sample of gen_* belongs to. Prints "ready", then
# "gen N 0xADDRESS" as each generation starts. Argument: rounds per generation (default 1000).
import sys

SOURCE = '''
def gen_{n}(k):
    x = 0
    for i in range(k):
        x = (x + i) & 0xffff
    return x
'''


def generation(n, rounds):
    ns = {}
    exec(compile(SOURCE.format(n=n), "gen.py", "exec"), ns)
    f = ns["gen_%d" % n]
    print("gen %d 0x%x" % (n, id(f.__code__)), flush=True)
    for _ in range(rounds):
        if n % 4 == 0:
            f(20000)  # branch 0
        elif n % 4 == 1:
            f(20000)  # branch 1
        elif n % 4 == 2:
            f(20000)  # branch 2
        else:
            f(20000)  # branch 3
    ns.clear()  # the function refers to ns (its globals): without this the cycle waits for the collector


def main():
    rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    print("ready", flush=True)
    n = 0
    while True:
        generation(n, rounds)
        n += 1


if __name__ == "__main__":
    main()
