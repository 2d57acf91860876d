/* a2l.c -- a small program for comparing pclndump addr2line with
 * binutils addr2line (tests/cli-pclndump.sh).  No loops, so that no
 * line has a DWARF discriminator; no #include, so that it also compiles
 * as a 32-bit object (-m32 -c) without a 32-bit libc. */

volatile int sink;

static int __attribute__((noinline))
twice(int x)
{
	return x * 2;
}

int
helper(int a, int b)
{
	int s = twice(a);

	s += b;
	return s;
}

int
main(int argc, char **argv)
{
	(void)argv;
	sink = helper(argc, 3);
	return 0;
}
