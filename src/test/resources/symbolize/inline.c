/* Test program for the symbolizer's oracle tests: built with gcc -g -O2 so that functions are
   inlined (several levels deep), split into hot and cold parts, cloned and aliased. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline __attribute__((always_inline)) unsigned mix(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    return x;
}

static inline __attribute__((always_inline)) unsigned mix_twice(unsigned x) {
    return mix(mix(x) + 1);
}

static unsigned leaf_compute(unsigned seed, int n) {
    unsigned acc = seed;
    for (int i = 0; i < n; i++) {
        acc += mix_twice(acc + (unsigned) i);
    }
    return acc;
}

__attribute__((noinline)) unsigned top_compute(unsigned seed, int n) {
    unsigned a = leaf_compute(seed, n);
    unsigned b = leaf_compute(a, n / 2);
    return a ^ b;
}

unsigned top_alias(unsigned seed, int n) __attribute__((alias("top_compute")));

static int cmp_unsigned(const void *a, const void *b) {
    unsigned x = *(const unsigned *) a;
    unsigned y = *(const unsigned *) b;
    return x < y ? -1 : x > y;
}

__attribute__((noinline)) void sort_values(unsigned *v, size_t n) {
    for (size_t i = 0; i < n; i++) {
        v[i] = mix(v[i] + (unsigned) i);
    }
    qsort(v, n, sizeof *v, cmp_unsigned);
}

__attribute__((noinline, cold)) void fail(const char *what) {
    fprintf(stderr, "failed: %s\n", what);
    exit(2);
}

__attribute__((noinline)) size_t checked_length(const char *s) {
    if (s == NULL) {
        fail("null string");
    }
    return strlen(s);
}

__asm__(".text\n.globl zero_size_label\n.type zero_size_label, @function\nzero_size_label:\n  nop\n  nop\n  ret\n");

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "wait") == 0) {
        /* for tests of live processes: say where the functions are, then wait for stdin to close */
        printf("top_compute=%p sort_values=%p main=%p\n", (void *) top_compute, (void *) sort_values, (void *) main);
        fflush(stdout);
        while (getchar() != EOF) {
        }
        return 0;
    }
    int n = argc > 1 ? atoi(argv[1]) : 1000;
    unsigned v[64];
    for (int i = 0; i < 64; i++) {
        v[i] = top_compute((unsigned) i, n);
    }
    sort_values(v, 64);
    printf("%u %zu\n", v[0] ^ v[63], checked_length(argc > 2 ? argv[2] : "x"));
    return 0;
}
