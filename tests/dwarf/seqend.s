# seqend.s -- a line program whose sequence for main (in .text.startup,
# placed first) ends with an empty row at the very address where f (in
# .text, placed right after) starts, and whose sequence for f comes
# first in the program: libdw sorts main's empty row after f's first
# row, where it must not win (tests/elf-import.sh).  Hand-written
# DWARF 4: a unit without ranges, a line table, nothing else.
	.section .text.startup,"ax",@progbits
	.globl main
	.type main, @function
main:
	xor %eax, %eax		# 2 bytes, line 10
	ret			# 1 byte, line 11
	.size main, .-main

	.text
	.globl f
	.type f, @function
f:
	mov $1, %eax		# 5 bytes, line 20
	nop			# line 21
	ret
	.size f, .-f

	.section .debug_abbrev,"",@progbits
.Labbrev:
	.uleb128 1, 0x11	# DW_TAG_compile_unit
	.byte 0			# no children
	.uleb128 0x03, 0x08	# DW_AT_name, DW_FORM_string
	.uleb128 0x10, 0x17	# DW_AT_stmt_list, DW_FORM_sec_offset
	.uleb128 0x13, 0x05	# DW_AT_language, DW_FORM_data2
	.byte 0, 0
	.byte 0

	.section .debug_info,"",@progbits
	.long .Linfo_end - .Linfo_v
.Linfo_v:
	.short 4
	.long .Labbrev
	.byte 8
	.uleb128 1
	.asciz "seqend.c"
	.long .Lline
	.short 0x0c		# DW_LANG_C99
.Linfo_end:

	.section .debug_line,"",@progbits
.Lline:
	.long .Lline_end - .Lline_v
.Lline_v:
	.short 4
	.long .Lhdr_end - .Lhdr
.Lhdr:
	.byte 1, 1, 1		# min_inst_length, max_ops, default_is_stmt
	.byte -5, 14, 13	# line_base, line_range, opcode_base
	.byte 0, 1, 1, 1, 1, 0, 0, 0, 1, 0, 0, 1
	.byte 0			# no include directories
	.asciz "seqend.c"
	.uleb128 0, 0, 0
	.byte 0			# end of files
.Lhdr_end:
	# f's sequence first
	.byte 0, 9, 2
	.quad f
	.byte 3
	.sleb128 19
	.byte 1			# line 20 at f
	.byte 2
	.uleb128 5
	.byte 3
	.sleb128 1
	.byte 1			# line 21 at f+5
	.byte 2
	.uleb128 2
	.byte 0, 1, 1		# end of sequence at f+7
	# then main's, ending with an empty row at main+3 == f
	.byte 0, 9, 2
	.quad main
	.byte 3
	.sleb128 9
	.byte 1			# line 10 at main
	.byte 2
	.uleb128 2
	.byte 3
	.sleb128 1
	.byte 1			# line 11 at main+2
	.byte 2
	.uleb128 1
	.byte 3
	.sleb128 1
	.byte 1			# line 12 at main+3: describes no byte
	.byte 0, 1, 1		# end of sequence at main+3
.Lline_end:
