/* mapfloor.c -- the floor under pclndump perf's time: bring a perf.data
 * file's bytes in and do nothing else with them.
 *
 *   pcln-bench-mapfloor FILE          read it as pclndump perf does
 *                                     (pcln_perf_open_fd: pread, 1 MiB
 *                                     at a time, into one buffer)
 *   pcln-bench-mapfloor --map FILE    map it (MAP_POPULATE) and touch
 *                                     each page once, as pclndump perf
 *                                     did before 2026-12-04
 *
 * bench/perf.sh times both beside pclndump perf and perf script: a
 * --call-graph dwarf sample carries 8 KiB of stack copy, and what the
 * kernel and the memory take to bring those bytes in is paid before the
 * first instruction of unwinding.  Prints the sum of the bytes touched
 * (so that the reads are not optimised away).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK	((size_t)1 << 20)

int
main(int argc, char **argv)
{
	const volatile unsigned char *p;
	unsigned char *buf;
	struct stat st;
	unsigned long sum = 0;
	const char *path;
	off_t i, off;
	ssize_t r;
	int fd, map;

	map = argc == 3 && strcmp(argv[1], "--map") == 0;
	if (argc != 2 + map) {
		fprintf(stderr, "usage: pcln-bench-mapfloor [--map] FILE\n");
		return 2;
	}
	path = argv[1 + map];
	if ((fd = open(path, O_RDONLY)) < 0 || fstat(fd, &st) < 0 ||
	    st.st_size == 0) {
		perror(path);
		return 1;
	}
	if (!map) {
		if ((buf = malloc(CHUNK)) == NULL) {
			perror("malloc");
			return 1;
		}
		for (off = 0; (r = pread(fd, buf, CHUNK, off)) > 0; off += r)
			for (i = 0; i < r; i += 4096)
				sum += buf[i];
		if (r < 0) {
			perror(path);
			return 1;
		}
		printf("%lu\n", sum);
		free(buf);
		return 0;
	}
	p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE |
	    MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (i = 0; i < st.st_size; i += 4096)
		sum += p[i];
	printf("%lu\n", sum);
	return 0;
}
