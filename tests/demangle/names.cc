// names.cc -- C++ whose symbols tests/demangle.sh demangles: namespaces,
// class and function templates, an anonymous namespace, operators,
// lambdas, constructors and destructors, std::string and std::vector
// parameters (the abbreviations addr2line prints and c++filt does not).
// It is compiled (g++ and clang++) and run, never linked into pcln.
#include <cstdarg>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#define NOINLINE __attribute__((noinline))

namespace outer {
namespace inner {

template <typename T, int N> struct Box {
	T v[N];
	NOINLINE T sum() const { T s{}; for (int i = 0; i < N; i++) s += v[i]; return s; }
	NOINLINE Box &operator+=(const Box &o) { for (int i = 0; i < N; i++) v[i] += o.v[i]; return *this; }
	NOINLINE bool operator()(int k) const { return v[k % N] > T{}; }
	NOINLINE explicit operator bool() const { return sum() != T{}; }
};

class Counter {
public:
	NOINLINE explicit Counter(const std::string &name) : name_(name), n_(0) {}
	NOINLINE virtual ~Counter() { std::printf("%s %d\n", name_.c_str(), n_); }
	NOINLINE Counter &operator<<(int k) { n_ += k; return *this; }
	NOINLINE static int twice(int (*f)(int), int x) { return f(f(x)); }
private:
	std::string name_;
	int n_;
};

} // namespace inner
} // namespace outer

namespace {
NOINLINE int hidden(const char *s, std::vector<int> &v) { v.push_back(s[0]); return (int)v.size(); }
struct Local { NOINLINE int get(std::map<std::string, int> &m) const { return (int)m.size(); } };
}

NOINLINE int sumv(int n, ...)
{
	va_list ap;
	int s = 0;
	va_start(ap, n);
	while (n-- > 0)
		s += va_arg(ap, int);
	va_end(ap);
	return s;
}

template <typename F> NOINLINE int apply(F f, int x) { return f(x); }

int
main(int argc, char **argv)
{
	outer::inner::Box<double, 3> b{{1, 2, 3}}, c{{4, 5, 6}};
	outer::inner::Counter k("k");
	std::vector<int> v;
	std::map<std::string, int> m;
	b += c;
	m["a"] = argc;
	k << 1 << 2;
	int r = apply([&](int x) { return x + hidden(argv[0], v) + (int)b.sum() + b(x); }, argc);
	r += apply([](auto y) { return y * 2; }, r);
	r += outer::inner::Counter::twice([](int x) { return x + 1; }, r);
	return (r + Local().get(m) + sumv(2, 1, 2) + (bool)b) & 1;
}
