/* pcln_blob.c -- put a pcln blob into a program, in a section ".pcln"
 * between the symbols pcln_blob_start and pcln_blob_end.
 *
 * Compiled twice: without PCLN_BLOB for the first link (an empty
 * table, so the program links and its code is laid out), then with
 * -DPCLN_BLOB='"path/to/prog.blob"' (the table pclnld --elf made from
 * the first link) for the second link.  The section holds read-only
 * data only and the linker places it after the code, so the code does
 * not move between the two links (examples/crash.mk checks it: the
 * crash test compares the traceback with gdb's).
 */
typedef int pcln_blob_nonempty;	/* ISO C: not an empty file */

__asm__(".section .pcln,\"a\"\n"
	".balign 8\n"
	".globl pcln_blob_start\n"
	".globl pcln_blob_end\n"
	"pcln_blob_start:\n"
#ifdef PCLN_BLOB
	".incbin \"" PCLN_BLOB "\"\n"
#endif
	"pcln_blob_end:\n"
	".previous\n");
