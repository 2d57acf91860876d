// gosyma2l: `go tool addr2line` for a raw pclntab.  Go's debug/gosym reads
// TABLE (a .gopclntab dumped with objcopy -O binary, or any table gosym
// reads) with text start ADDR (runtime.text; used by the Go 1.18+
// layouts) and, for each hexadecimal pc read from standard input, prints
// the function's name and file:line as `go tool addr2line` prints them
// ("?" and "?:0" where gosym finds no function).
//
// Usage: gosyma2l [-text ADDR] TABLE < pcs
package main

import (
	"bufio"
	"debug/gosym"
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"
)

func main() {
	text := flag.Uint64("text", 0, "text start for NewLineTable")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: gosyma2l [-text ADDR] TABLE < pcs")
		os.Exit(2)
	}
	data, err := os.ReadFile(flag.Arg(0))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosyma2l:", err)
		os.Exit(1)
	}
	t, err := gosym.NewTable(nil, gosym.NewLineTable(data, *text))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosyma2l: NewTable:", err)
		os.Exit(1)
	}
	in := bufio.NewScanner(os.Stdin)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		s := strings.TrimPrefix(strings.TrimSpace(in.Text()), "0x")
		pc, err := strconv.ParseUint(s, 16, 64)
		if err != nil {
			fmt.Fprintf(out, "?\n?:0\n")
			continue
		}
		file, line, fn := t.PCToLine(pc)
		if fn == nil {
			fmt.Fprintf(out, "?\n?:0\n")
		} else {
			fmt.Fprintf(out, "%s\n%s:%d\n", fn.Name, file, line)
		}
	}
}
