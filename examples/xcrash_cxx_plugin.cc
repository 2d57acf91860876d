// xcrash_cxx_plugin.cc -- the C++ plugin examples/xcrash-cxx loads with
// dlopen: a function template and a namespace's function, the fault in
// the latter.  Built -O2 -g -fomit-frame-pointer -fPIC -shared.
#define NOINLINE __attribute__((noinline))

namespace pcln_xdemo {
namespace plugin {

int *volatile null_pointer;

NOINLINE int
fault(long x)
{
	return *null_pointer + static_cast<int>(x);
}

template <typename T>
NOINLINE int
step(T x)
{
	return fault(static_cast<long>(x) * 2) * 3;
}

} // namespace plugin
} // namespace pcln_xdemo

extern "C" int xcrash_plugin_run(int x);

int
xcrash_plugin_run(int x)
{
	return pcln_xdemo::plugin::step<short>(static_cast<short>(x + 1)) + 1;
}
