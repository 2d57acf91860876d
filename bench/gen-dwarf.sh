#!/bin/sh
# gen-dwarf.sh -- assembly for the importer's scaling benchmarks (make
# bench, bench/run.sh), written straight as DWARF 4 so that the sizes do
# not depend on a compiler:
#
#   gen-dwarf.sh ranges N    N one-instruction functions, each in a section
#                            of its own (as -ffunction-sections makes them),
#                            one unit whose DW_AT_ranges lists each, a line
#                            row per function (gas's .loc)
#   gen-dwarf.sh inline S E  one function of S bytes with E inlined calls
#                            each covering all of it
#
# Assemble and link with: gcc -nostdlib -static -Wl,-e,f0 OUT.s -o OUT
set -eu
mode=$1
awk -v mode="$mode" -v a="$2" -v b="${3:-0}" 'BEGIN {
	print "\t.file 1 \"gen.c\""
	print "\t.section .debug_abbrev,\"\",@progbits"
	print ".Labbrev:"
	if (mode == "ranges") {
		print "\t.uleb128 1, 0x11\n\t.byte 0"	# compile_unit
		print "\t.uleb128 0x03, 0x08"		# name string
		print "\t.uleb128 0x10, 0x17"		# stmt_list
		print "\t.uleb128 0x11, 0x01"		# low_pc addr
		print "\t.uleb128 0x55, 0x17"		# ranges sec_offset
		print "\t.byte 0, 0\n\t.byte 0"
		for (i = 0; i < a; i++) {
			printf "\t.section .text.f%d,\"ax\",@progbits\n", i
			printf "\t.globl f%d\n\t.type f%d, @function\nf%d:\n", i, i, i
			printf "\t.loc 1 %d\n\tret\n\t.size f%d, .-f%d\n", i + 1, i, i
		}
		print "\t.section .debug_ranges,\"\",@progbits\n.Lranges:"
		for (i = 0; i < a; i++)
			printf "\t.quad f%d, f%d + 1\n", i, i
		print "\t.quad 0, 0"
		print "\t.section .debug_info,\"\",@progbits"
		print "\t.long .Linfo_end - .Linfo_v\n.Linfo_v:\n\t.short 4"
		print "\t.long .Labbrev\n\t.byte 8\n\t.uleb128 1"
		print "\t.asciz \"gen.c\"\n\t.long .Ldebug_line0\n\t.quad 0"
		print "\t.long .Lranges\n.Linfo_end:"
		print "\t.section .debug_line,\"\",@progbits\n.Ldebug_line0:"
		exit
	}
	# inline: a = bytes, b = inlined calls
	print "\t.uleb128 1, 0x11\n\t.byte 1"		# compile_unit, children
	print "\t.uleb128 0x03, 0x08\n\t.uleb128 0x13, 0x05"
	print "\t.uleb128 0x10, 0x17"
	print "\t.uleb128 0x11, 0x01\n\t.uleb128 0x12, 0x07\n\t.byte 0, 0"
	print "\t.uleb128 2, 0x2e\n\t.byte 1"		# subprogram, children
	print "\t.uleb128 0x03, 0x08"
	print "\t.uleb128 0x11, 0x01\n\t.uleb128 0x12, 0x07\n\t.byte 0, 0"
	print "\t.uleb128 3, 0x1d\n\t.byte 0"		# inlined_subroutine
	print "\t.uleb128 0x03, 0x08"
	print "\t.uleb128 0x11, 0x01\n\t.uleb128 0x12, 0x07"
	print "\t.uleb128 0x58, 0x0b\n\t.uleb128 0x59, 0x0b\n\t.byte 0, 0"
	print "\t.byte 0"
	print "\t.text\n\t.globl f0\n\t.type f0, @function\nf0:"
	print "\t.loc 1 1"
	printf "\t.skip %d, 0x90\n\tret\n\t.size f0, .-f0\n", a - 1
	print "\t.section .debug_info,\"\",@progbits"
	print "\t.long .Linfo_end - .Linfo_v\n.Linfo_v:\n\t.short 4"
	print "\t.long .Labbrev\n\t.byte 8\n\t.uleb128 1"
	print "\t.asciz \"gen.c\"\n\t.short 0x0c\n\t.long .Ldebug_line0"
	printf "\t.quad f0\n\t.quad %d\n", a
	printf "\t.uleb128 2\n\t.asciz \"f0\"\n\t.quad f0\n\t.quad %d\n", a
	for (i = 0; i < b; i++)
		printf "\t.uleb128 3\n\t.asciz \"g%d\"\n\t.quad f0\n\t.quad %d\n\t.byte 1, %d\n", i, a, (i % 250) + 1
	print "\t.byte 0\n\t.byte 0\n.Linfo_end:"
	print "\t.section .debug_line,\"\",@progbits\n.Ldebug_line0:"
}'
