/* peer-gsym.cc -- the in-process peer of pcln-bench: LLVM's GSYM reader
 * (llvm::gsym::GsymReader, Debian's llvm-dev) answering the same pcs from
 * the .gsym file llvm-gsymutil --convert made of the ELF the blob was
 * made from.  bench/run.sh builds it when the LLVM headers are there.
 *
 * Usage:
 *   pcln-bench-gsym GSYM PCSFILE [N [KIND...]]
 *       time each KIND (default: all) per pc over the first N pcs of
 *       PCSFILE (hex, one a line), random and sorted, median of 5
 *       passes after one warm-up ("cold") pass:
 *         inline: GsymReader::lookup, whose LookupResult holds every
 *                 frame (function name, directory, file, line),
 *                 innermost first: GSYM's only lookup;
 *       and KIND first: GsymReader::openFile alone and with the first
 *       answer, median of 5.
 *   pcln-bench-gsym -loop GSYM PCSFILE KIND N
 *       N lookups of KIND cycling over the first 65536 pcs (callgrind).
 */
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "llvm/DebugInfo/GSYM/GsymReader.h"
#include "llvm/DebugInfo/GSYM/LookupResult.h"
#include "llvm/Support/Error.h"

extern "C" {
#include "bench.h"
}

using llvm::gsym::GsymReader;

static volatile uint64_t sink;

[[noreturn]] static void
die(const char *what, const char *detail = nullptr)
{
	std::fprintf(stderr, "pcln-bench-gsym: %s%s%s\n", what,
	    detail ? ": " : "", detail ? detail : "");
	std::exit(1);
}

static std::vector<uint64_t>
read_pcs(const char *path, size_t max)
{
	size_t n;
	uint64_t *p = bench_read_pcs("pcln-bench-gsym", path, max, &n);
	std::vector<uint64_t> pcs(p, p + n);

	std::free(p);
	return pcs;
}

static GsymReader
open_gsym(const char *path)
{
	auto r = GsymReader::openFile(path);
	if (!r)
		die("cannot open the GSYM file",
		    llvm::toString(r.takeError()).c_str());
	return std::move(*r);
}

/* Every frame at PC: 1 if the innermost has a line > 0. */
static int
lookup(const GsymReader &g, uint64_t pc, uint64_t *acc)
{
	auto r = g.lookup(pc);
	if (!r) {
		llvm::consumeError(r.takeError());
		return 0;
	}
	for (const auto &l : r->Locations)
		*acc += l.Name.size() + l.Base.size() + l.Dir.size() + l.Line;
	return !r->Locations.empty() && r->Locations[0].Line > 0;
}

static size_t
run(const GsymReader &g, const std::vector<uint64_t> &pcs, size_t n)
{
	uint64_t acc = 0;
	size_t ok = 0;

	for (size_t i = 0; i < n; i++)
		ok += lookup(g, pcs[i], &acc);
	sink += acc;
	return ok;
}

int
main(int argc, char **argv)
{
	if (argc > 1 && std::strcmp(argv[1], "-loop") == 0) {
		if (argc != 6 || std::strcmp(argv[4], "inline") != 0)
			die("usage: pcln-bench-gsym -loop GSYM PCSFILE inline N");
		size_t max = std::strtoull(argv[5], nullptr, 10), ok = 0;
		auto pcs = read_pcs(argv[3], 65536);
		GsymReader g = open_gsym(argv[2]);
		while (max > 0) {
			size_t m = std::min(max, pcs.size());
			ok += run(g, pcs, m);
			max -= m;
		}
		if (ok == 0)
			die("no pc answered");
		return 0;
	}
	if (argc < 3)
		die("usage: pcln-bench-gsym GSYM PCSFILE [N [KIND...]]");
	size_t max = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : SIZE_MAX;
	bool all = argc <= 4, first = all, inl = all;
	for (int k = 4; k < argc; k++) {
		if (std::strcmp(argv[k], "first") == 0)
			first = true;
		else if (std::strcmp(argv[k], "inline") == 0)
			inl = true;
		else
			die("unknown KIND (inline, first)", argv[k]);
	}
	auto pcs = read_pcs(argv[2], max);
	auto seq = pcs;
	std::sort(seq.begin(), seq.end());
	size_t n = pcs.size();
	if (first) {
		double d0[NPASS], d1[NPASS];
		for (int p = 0; p < NPASS; p++) {
			uint64_t acc = 0;
			double t0 = now();
			GsymReader g = open_gsym(argv[1]);
			double t1 = now();
			if (!lookup(g, pcs[0], &acc))
				die("first lookup failed");
			d1[p] = now() - t0;
			d0[p] = t1 - t0;
			sink += acc;
		}
		std::printf("gsym_setup_ns %.0f\n", bench_median(d0));
		std::printf("gsym_first_lookup_ns %.0f\n", bench_median(d1));
	}
	if (inl) {
		GsymReader g = open_gsym(argv[1]);
		std::printf("gsym_inline_npcs %zu\n", n);
		double t0 = now();
		size_t ok = run(g, pcs, n);
		std::printf("gsym_inline_cold_pass_ns %.1f\n",
		    (now() - t0) / (double)n);
		if (ok == 0)
			die("no pc answered: timing nothing");
		for (int order = 0; order < 2; order++) {
			const auto &v = order == 0 ? pcs : seq;
			double d[NPASS];
			for (int p = 0; p < NPASS; p++) {
				double t = now();
				if (run(g, v, n) != ok)
					die("answers differ between passes");
				d[p] = (now() - t) / (double)n;
			}
			std::printf("gsym_inline_%s_ns %.1f\n",
			    order == 0 ? "random" : "seq", bench_median(d));
		}
		std::printf("gsym_inline_answered %zu\n", ok);
	}
	return std::fflush(stdout) != 0;
}
