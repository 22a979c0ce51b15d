# A CPU-bound workload for Stackfold's Python walker tests: main -> work -> heavy/medium/light in
# the shares 6:3:1 of loop iterations, forever, until killed. Prints "ready" once running. Every
# iteration costs the same (small ints only: `x += i * i` made heavy's iterations slower
# on 3.15, whose one-digit ints have a fast path), so CPU time is 6:3:1 too.
import sys


def spin(n):
    x = 0
    for i in range(n):
        x = (x + i) & 0xffff
    return x


def heavy():
    return spin(60000)


def medium():
    return spin(30000)


def light():
    return spin(10000)


def work():
    while True:
        heavy()
        medium()
        light()


def main():
    print("ready", flush=True)
    work()


if __name__ == "__main__":
    main()
