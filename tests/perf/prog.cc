// prog.cc -- the profiled C++ program of tests/perf-record.sh: templates,
// std::sort and std::map (libstdc++'s code, inlined into ours), a
// virtual call and a lambda.  Built -O2 without frame pointers.
// Argument: rounds (default 30).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace perfprog {

struct Shape {
	virtual ~Shape() {}
	virtual double area(double k) const = 0;
};

struct Square : Shape {
	double s;
	explicit Square(double x) : s(x) {}
	double area(double k) const override { return s * s * k; }
};

template <typename T>
__attribute__((noinline)) T
accumulate_sorted(std::vector<T> &v)
{
	std::sort(v.begin(), v.end(), [](const T &a, const T &b) {
		return a > b;
	});
	T sum = 0;
	for (const T &x : v)
		sum += x / 3;
	return sum;
}

__attribute__((noinline)) size_t
count_words(unsigned seed)
{
	std::map<std::string, int> m;
	for (int i = 0; i < 20000; i++) {
		seed = seed * 1103515245u + 12345u;
		m[std::to_string(seed % 5000)]++;
	}
	return m.size();
}

__attribute__((noinline)) double
shapes(const std::vector<Shape *> &v)
{
	double a = 0;
	for (int k = 0; k < 200; k++)
		for (const Shape *s : v)
			a += s->area(k);
	return a;
}

} // namespace perfprog

static volatile double sink;

int
main(int argc, char **argv)
{
	int rounds = argc > 1 ? std::atoi(argv[1]) : 30;
	std::vector<perfprog::Shape *> shapes;
	for (int i = 0; i < 1000; i++)
		shapes.push_back(new perfprog::Square(i));
	for (int r = 0; r < rounds; r++) {
		std::vector<long> v(100000);
		unsigned seed = r;
		for (long &x : v) {
			seed = seed * 1103515245u + 12345u;
			x = seed;
		}
		sink += perfprog::accumulate_sorted(v);
		sink += perfprog::count_words(r);
		sink += perfprog::shapes(shapes);
	}
	for (perfprog::Shape *s : shapes)
		delete s;
	std::printf("%f\n", (double)sink);
	return 0;
}
