# A Python loop calling into C that enters the kernel: churn -> os.write/os.read (posix module, C)
# -> write(2)/read(2) on a pipe, whose copies run in the kernel. Stackfold's recorder should show
# Python -> native -> kernel frames in that order. Prints "ready" once running; runs until killed.
# (os.urandom is no good for this: glibc 2.41+ makes random bytes in the vDSO, in user space.)
import os


def churn():
    r, w = os.pipe()
    block = b"x" * 65536
    while True:
        os.write(w, block)
        os.read(r, 65536)


def main():
    print("ready", flush=True)
    churn()


if __name__ == "__main__":
    main()
