/*
 * Test workload for stackfold record: three functions burn CPU in the ratio 6:3:1 by construction
 * (the same loop body, 6, 3 and 1 million iterations a round), and with "kernel" a fourth spends
 * its time in read(2) of /dev/zero, inside the kernel. Built with -O0 and frame pointers by the tests.
 * It runs whole rounds until it has used the milliseconds of CPU time its first argument gives, so a
 * recording holds about as many samples on a fast machine as on a slow one (a fixed number of rounds
 * gave 175 samples at 499 Hz on one machine kind, where the tests need 200).
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

volatile unsigned long sink;

__attribute__((noinline)) void heavy(unsigned long n) {
    for (unsigned long i = 0; i < 6 * n; i++) sink += i;
}

__attribute__((noinline)) void medium(unsigned long n) {
    for (unsigned long i = 0; i < 3 * n; i++) sink += i;
}

__attribute__((noinline)) void light(unsigned long n) {
    for (unsigned long i = 0; i < n; i++) sink += i;
}

/* read(2) without libc, whose code has no frame pointers and would hide in_kernel from the stack walk. */
__attribute__((noinline)) long raw_read(int fd, void *buf, size_t size) {
    long r;
    __asm__ volatile("syscall" : "=a"(r) : "a"(0L), "D"((long) fd), "S"(buf), "d"(size) : "rcx", "r11", "memory");
    return r;
}

__attribute__((noinline)) void in_kernel(int fd, char *buf, size_t size) {
    for (int i = 0; i < 40; i++) {
        if (raw_read(fd, buf, size) < 0) exit(2);
    }
}

int main(int argc, char **argv) {
    long ms = argc > 1 ? atol(argv[1]) : 1000;
    clock_t until = (clock_t) ((double) ms * CLOCKS_PER_SEC / 1000);
    int kernel = argc > 2 && strcmp(argv[2], "kernel") == 0;
    size_t size = 1 << 20;
    char *buf = malloc(size);
    int fd = open("/dev/zero", O_RDONLY);
    if (fd < 0 || buf == NULL) return 1;
    do {
        heavy(1000000);
        medium(1000000);
        light(1000000);
        if (kernel) in_kernel(fd, buf, size);
    } while (clock() < until);
    return 0;
}
