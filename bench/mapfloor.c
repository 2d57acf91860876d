/* mapfloor.c -- the floor under pclndump perf's time: map a perf.data
 * file as pclndump perf does (MAP_POPULATE) and touch each of its pages
 * once, doing nothing else.
 *
 *   pcln-bench-mapfloor FILE
 *
 * bench/perf.sh times it beside pclndump perf and perf script: a
 * --call-graph dwarf sample carries 8 KiB of stack copy, and what the
 * kernel and the memory take to bring those pages in is paid before the
 * first instruction of unwinding.  Prints the sum of the bytes touched
 * (so that the reads are not optimised away).
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	const volatile unsigned char *p;
	struct stat st;
	unsigned long sum = 0;
	off_t i;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: pcln-bench-mapfloor FILE\n");
		return 2;
	}
	if ((fd = open(argv[1], O_RDONLY)) < 0 || fstat(fd, &st) < 0 ||
	    st.st_size == 0) {
		perror(argv[1]);
		return 1;
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
