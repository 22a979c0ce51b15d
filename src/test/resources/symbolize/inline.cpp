// C++ test program for the symbolizer's oracle tests: built with g++ -g -O2; namespaces, templates,
// inlined member functions and lambdas, an anonymous namespace, overloads and a virtual call.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace stackfold {
namespace {
inline unsigned mix(unsigned x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    return x ^ (x >> 15);
}
}  // namespace

template <typename T>
struct Accumulator {
    T total{};
    void add(T v) { total += static_cast<T>(mix(static_cast<unsigned>(v))); }
};

struct Shape {
    virtual ~Shape() = default;
    virtual double area(double scale) const = 0;
};

struct Square : Shape {
    double side;
    explicit Square(double s) : side(s) {}
    double area(double scale) const override { return side * side * scale; }
};

__attribute__((noinline)) double total_area(const std::vector<Shape *> &shapes, double scale) {
    double sum = 0;
    for (const Shape *s : shapes) {
        sum += s->area(scale);
    }
    return sum;
}

__attribute__((noinline)) long work(int n) {
    Accumulator<long> acc;
    std::vector<int> v(static_cast<size_t>(n));
    for (int i = 0; i < n; i++) {
        v[static_cast<size_t>(i)] = static_cast<int>(mix(static_cast<unsigned>(i)) & 0xffff);
    }
    std::sort(v.begin(), v.end(), [](int a, int b) { return a > b; });
    std::for_each(v.begin(), v.end(), [&acc](int x) { acc.add(x); });
    return acc.total;
}

__attribute__((noinline)) int overloaded(int x) { return x * 3; }
__attribute__((noinline)) double overloaded(double x) { return x * 2.5; }
}  // namespace stackfold

int main(int argc, char **argv) {
    int n = argc > 1 ? std::atoi(argv[1]) : 1000;
    stackfold::Square a(2), b(3);
    std::vector<stackfold::Shape *> shapes{&a, &b};
    std::printf("%ld %f %d %f\n", stackfold::work(n), stackfold::total_area(shapes, 1.5), stackfold::overloaded(n),
                stackfold::overloaded(n * 0.5));
    return 0;
}
