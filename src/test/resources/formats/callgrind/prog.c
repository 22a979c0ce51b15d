#include <stdio.h>
#include <stdlib.h>
static unsigned long work(int n) { unsigned long s = 0; for (int i = 0; i < n; i++) s += (unsigned long) i * i; return s; }
static unsigned long fib(int n) { return n < 2 ? work(n + 10) : fib(n - 1) + fib(n - 2); }
static unsigned long leaf(int n) { return work(n * 100); }
static unsigned long middle(int n) { return leaf(n) + work(n); }
int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 12;
    unsigned long t = 0;
    for (int i = 0; i < 20; i++) t += middle(i);
    t += fib(n);
    printf("%lu\n", t);
    return 0;
}
