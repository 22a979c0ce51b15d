import time
def leaf(n):
    s = 0
    for i in range(n):
        s += i * i
    return s
def middle():
    return leaf(20000) + leaf(5000)
def main():
    end = time.time() + 1.5
    while time.time() < end:
        middle()
main()
