// xcrash_cxx_lib.cc -- the C++ shared library of examples/xcrash-cxx: a
// class template whose method sorts with libc's qsort, the comparator a
// static member function that calls a lambda, which faults on one
// element -- so the crash is in C++ code of this library, called back
// through libc.  Built -O2 -g -fomit-frame-pointer -fPIC -shared.
#include <cstdlib>

#define NOINLINE __attribute__((noinline))

namespace pcln_xdemo {

namespace {
int *volatile null_pointer;
}

template <typename T>
class Sorter {
public:
	NOINLINE static int
	compare(const void *a, const void *b)
	{
		auto key = [](const T *p) NOINLINE {
			if (*p == 3)
				return *null_pointer + static_cast<int>(*p);
			return static_cast<int>(*p);
		};
		int x = key(static_cast<const T *>(a));
		int y = key(static_cast<const T *>(b));
		return (x > y) - (x < y);
	}

	NOINLINE int
	sort(T *v, int n) const
	{
		std::qsort(v, static_cast<size_t>(n), sizeof *v, compare);
		return static_cast<int>(v[0]) + 1;
	}
};

} // namespace pcln_xdemo

extern "C" int xcrash_lib_sort(int *v, int n);

int
xcrash_lib_sort(int *v, int n)
{
	pcln_xdemo::Sorter<int> s;

	return s.sort(v, n) * 2;
}
