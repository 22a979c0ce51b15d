# Two Python threads with distinct stacks for Stackfold's Python walker tests: the main thread runs
# main_loop -> main_inner, the second worker -> worker_inner -> (sorted with a Python key: a C call
# that calls back into Python) key_of. Prints "ready" once both run.
import threading


def key_of(v):
    return -v


def worker_inner():
    data = list(range(2000))
    while True:
        sorted(data, key=key_of)


def worker():
    worker_inner()


def main_inner():
    x = 0
    while True:
        x = (x * 31 + 7) % 1000003


def main_loop():
    t = threading.Thread(target=worker, name="worker", daemon=True)
    t.start()
    print("ready", flush=True)
    main_inner()


if __name__ == "__main__":
    main_loop()
