// crash_cxx.cc -- examples/crash.c in C++: a program that prints a
// symbolized traceback of its own crash from its signal handler
// (examples/crash_handler.c, built with -DCRASH_DEMANGLE), its C++ names
// demangled there without allocating (libiberty's
// cplus_demangle_v3_callback).
//
// The call chain has what C++ names are made of: a namespace, an
// anonymous namespace, a class template's method, a lambda inside it, a
// function template and a lambda in main:
//   main -> pcln_demo::apply<main::{lambda(int)#1}>
//        -> main::{lambda(int)#1}::operator()
//        -> pcln_demo::Stage<long>::run
//        -> pcln_demo::Stage<long>::run(...)::{lambda(int)#1}::operator()
//        -> pcln_demo::(anonymous namespace)::fault
// Usage: crash-cxx [segv|fpe|abrt]   (default segv).  tests/crash-gdb.sh
// compares the frames with gdb's bt.
#include <cstdlib>
#include <cstring>

#include "crash_handler.h"

#define NOINLINE __attribute__((noinline))

namespace pcln_demo {

namespace {

int *volatile null_pointer;
volatile int zero;

// Where the program faults.
NOINLINE int
fault(int kind, int x)
{
	if (kind == 1)
		return x / zero + 1;
	if (kind == 2 && x > 0)
		std::abort();
	return *null_pointer + x;
}

} // namespace

// A class template whose method calls a lambda.
template <typename T>
class Stage {
public:
	explicit Stage(T base) : base_(base) {}

	NOINLINE int
	run(int kind, T x) const
	{
		auto step = [&](int y) NOINLINE {
			return fault(kind, y + static_cast<int>(base_)) * 3 + y;
		};
		return step(static_cast<int>(x) + 1) + 1;
	}

private:
	T base_;
};

// A function template, called with main's lambda.
template <typename F>
NOINLINE int
apply(F f, int x)
{
	return f(x) * 2 + x;
}

} // namespace pcln_demo

int
main(int argc, char **argv)
{
	int kind = 0;

	crash_handler_install("crash-cxx");
	if (argc > 1 && std::strcmp(argv[1], "fpe") == 0)
		kind = 1;
	else if (argc > 1 && std::strcmp(argv[1], "abrt") == 0)
		kind = 2;
	pcln_demo::Stage<long> stage(2);
	return pcln_demo::apply([&](int x) NOINLINE {
		return stage.run(kind, x) + 1;
	}, argc) == 42;
}
