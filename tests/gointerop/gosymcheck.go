// gosymcheck: compare what Go's debug/gosym says about a pclntab with what
// libpcln's reader says (the JSON of tests/gointerop/pclnjson).
//
// Usage: gosymcheck [-elf] [-text ADDR] [-linetopc N] TABLE JSON
//
// TABLE is a pcln blob or a Go pclntab (or, with -elf, an ELF binary whose
// .gopclntab and .text are used).  -text is the text start given to
// gosym.NewLineTable (default: the JSON's text_start, the first entry).
// -linetopc N checks LineToPC for every N-th (file, line) pair (1 = all).
//
// What Go must say, given libpcln's view:
//   - functions: same count, names, entries; FrameSize = the Func's frame
//     word; End = the next entry (Go knows no gaps).
//   - at the first and last pc of every pcfile and pcln row: PCToLine's
//     file and line are the rows' (a function without a pcfile or pcln
//     table is not checked for that value: Go then decodes the bytes at
//     offset 0 of the table as if they were a table, and its answer
//     means nothing).
//   - in a gap [end, next): Go finds the function before the gap and no
//     row: line -1 and file "".
//   - at the end pc and below the first entry: no function.
//   - files: the same set.
//   - LineToPC(file, line): the lowest pc where both hold.
package main

import (
	"debug/elf"
	"debug/gosym"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
)

type row struct {
	start, end uint64
	value      int64
	file       string
}

func (r *row) UnmarshalJSON(b []byte) error {
	// [start, end, value or file name]; pcs as exact 64-bit integers
	var a []json.RawMessage
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if len(a) != 3 {
		return fmt.Errorf("row %s: expected 3 elements", b)
	}
	if err := json.Unmarshal(a[0], &r.start); err != nil {
		return err
	}
	if err := json.Unmarshal(a[1], &r.end); err != nil {
		return err
	}
	if len(a[2]) > 0 && a[2][0] == '"' {
		return json.Unmarshal(a[2], &r.file)
	}
	return json.Unmarshal(a[2], &r.value)
}

type fn struct {
	Name      string `json:"name"`
	Entry     uint64 `json:"entry"`
	End       uint64 `json:"end"`
	Next      uint64 `json:"next"`
	Args      int64  `json:"args"`
	Frame     int64  `json:"frame"`
	HasPcfile bool   `json:"has_pcfile"`
	HasPcln   bool   `json:"has_pcln"`
	Pcfile    []row  `json:"pcfile"`
	Pcln      []row  `json:"pcln"`
}

type table struct {
	Ptrsize   int      `json:"ptrsize"`
	Quantum   int      `json:"quantum"`
	TextStart uint64   `json:"text_start"`
	TextEnd   uint64   `json:"text_end"`
	Files     []string `json:"files"`
	Funcs     []fn     `json:"funcs"`
}

var nfail, nchecks int

func fail(format string, a ...interface{}) {
	nfail++
	if nfail <= 20 {
		fmt.Fprintf(os.Stderr, "gosymcheck: "+format+"\n", a...)
	}
}

// Row holding pc, or nil.
func find(rows []row, pc uint64) *row {
	i := sort.Search(len(rows), func(i int) bool { return rows[i].end > pc })
	if i < len(rows) && rows[i].start <= pc {
		return &rows[i]
	}
	return nil
}

func checkPC(t *gosym.Table, f *fn, pc uint64) {
	nchecks++
	file, line, gf := t.PCToLine(pc)
	if gf == nil {
		fail("pc %#x (%s): Go finds no function", pc, f.Name)
		return
	}
	if gf.Entry != f.Entry {
		fail("pc %#x: Go finds %s at %#x, expected %s at %#x", pc,
			gf.Name, gf.Entry, f.Name, f.Entry)
		return
	}
	if pc >= f.End {
		// a gap: Go runs the tables past their end
		if f.HasPcln && line != -1 || f.HasPcfile && file != "" {
			fail("pc %#x in the gap after %s: Go says %q:%d, expected \"\":-1",
				pc, f.Name, file, line)
		}
		return
	}
	if f.HasPcln {
		want := int64(-1)
		if r := find(f.Pcln, pc); r != nil {
			want = r.value
		}
		if int64(line) != want {
			fail("pc %#x in %s: Go says line %d, expected %d", pc,
				f.Name, line, want)
		}
	}
	if f.HasPcfile {
		want := ""
		if r := find(f.Pcfile, pc); r != nil {
			want = r.file
		}
		if file != want {
			fail("pc %#x in %s: Go says file %q, expected %q", pc,
				f.Name, file, want)
		}
	}
}

func main() {
	isElf := flag.Bool("elf", false, "TABLE is an ELF binary")
	text := flag.Uint64("text", 0, "text start for NewLineTable")
	every := flag.Int("linetopc", 1, "check LineToPC for every N-th pair")
	pcs := flag.String("pcs", "", "write sample pcs for addr2line to PREFIX.in, PREFIX.gap and Go's expected answers for the gaps to PREFIX.gap.go")
	subset := flag.Bool("subsetfiles", false,
		"Go may list files no pc maps to (a Go binary's file table)")
	flag.Parse()
	if flag.NArg() != 2 {
		fmt.Fprintln(os.Stderr, "usage: gosymcheck [-elf] [-text ADDR] [-linetopc N] TABLE JSON")
		os.Exit(2)
	}
	var data []byte
	var err error
	if *isElf {
		ef, err := elf.Open(flag.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "gosymcheck:", err)
			os.Exit(1)
		}
		sec := ef.Section(".gopclntab")
		if sec == nil {
			sec = ef.Section(".data.rel.ro.gopclntab") // PIE
		}
		if sec == nil {
			fmt.Fprintln(os.Stderr, "gosymcheck: no .gopclntab")
			os.Exit(1)
		}
		if data, err = sec.Data(); err != nil {
			fmt.Fprintln(os.Stderr, "gosymcheck:", err)
			os.Exit(1)
		}
		*text = ef.Section(".text").Addr
	} else if data, err = os.ReadFile(flag.Arg(0)); err != nil {
		fmt.Fprintln(os.Stderr, "gosymcheck:", err)
		os.Exit(1)
	}
	js, err := os.ReadFile(flag.Arg(1))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosymcheck:", err)
		os.Exit(1)
	}
	var want table
	if err := json.Unmarshal(js, &want); err != nil {
		fmt.Fprintln(os.Stderr, "gosymcheck: json:", err)
		os.Exit(1)
	}
	if *text == 0 {
		*text = want.TextStart
	}
	lt := gosym.NewLineTable(data, *text)
	t, err := gosym.NewTable(nil, lt)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gosymcheck: NewTable:", err)
		os.Exit(1)
	}

	// functions
	if len(t.Funcs) != len(want.Funcs) {
		fail("Go sees %d functions, expected %d", len(t.Funcs), len(want.Funcs))
		os.Exit(1)
	}
	for i := range want.Funcs {
		f, g := &want.Funcs[i], &t.Funcs[i]
		nchecks++
		if g.Name != f.Name || g.Entry != f.Entry || g.End != f.Next ||
			int64(g.FrameSize) != f.Frame {
			fail("function %d: Go says %s [%#x,%#x) frame %d, expected %s [%#x,%#x) frame %d",
				i, g.Name, g.Entry, g.End, g.FrameSize, f.Name, f.Entry, f.Next, f.Frame)
		}
	}

	// pcs: every row boundary, the gaps, the ends
	for i := range want.Funcs {
		f := &want.Funcs[i]
		checkPC(t, f, f.Entry)
		for _, rs := range [][]row{f.Pcfile, f.Pcln} {
			for _, r := range rs {
				checkPC(t, f, r.start)
				checkPC(t, f, r.end-1)
			}
		}
		if f.End < f.Next {
			checkPC(t, f, f.End)
			checkPC(t, f, f.Next-1)
		}
	}
	for _, pc := range []uint64{want.TextEnd, want.TextStart - 1} {
		nchecks++
		if pc == want.TextStart-1 && want.TextStart == 0 {
			continue
		}
		if file, line, gf := t.PCToLine(pc); gf != nil || file != "" || line != 0 {
			fail("pc %#x outside the text: Go says %q:%d in %v, expected nothing",
				pc, file, line, gf)
		}
	}

	// files.  Where a Go table knows no file for a pc, the import names
	// the file "" (Go's answer there); Go itself does not list it.
	_, goEmpty := t.Files[""]
	if !goEmpty {
		var files []string
		for _, name := range want.Files {
			if name != "" {
				files = append(files, name)
			}
		}
		want.Files = files
	}
	nchecks++
	if *subset {
		known := map[string]bool{}
		for _, name := range want.Files {
			known[name] = true
		}
		for name := range t.Files {
			if !known[name] {
				fmt.Printf("gosymcheck: note: Go lists file %q, which no pc maps to\n", name)
			}
		}
	} else if len(t.Files) != len(want.Files) {
		fail("Go lists %d files, expected %d", len(t.Files), len(want.Files))
	}
	for _, name := range want.Files {
		if _, ok := t.Files[name]; !ok {
			fail("Go does not list file %q", name)
		}
	}

	// LineToPC: the lowest pc where file and line both hold
	type fl struct {
		file string
		line int64
	}
	first := map[fl]uint64{}
	var order []fl
	for i := range want.Funcs {
		f := &want.Funcs[i]
		if !f.HasPcfile || !f.HasPcln {
			continue // Go's LineToPC skips such functions
		}
		for _, rf := range f.Pcfile {
			for _, rl := range f.Pcln {
				lo, hi := rf.start, rf.end
				if rl.start > lo {
					lo = rl.start
				}
				if rl.end < hi {
					hi = rl.end
				}
				if lo >= hi || rl.value < 0 || rf.file == "" && !goEmpty {
					continue
				}
				k := fl{rf.file, rl.value}
				if pc, ok := first[k]; !ok || lo < pc {
					if !ok {
						order = append(order, k)
					}
					first[k] = lo
				}
			}
		}
	}
	for n, k := range order {
		if n%*every != 0 {
			continue
		}
		nchecks++
		pc, _, err := t.LineToPC(k.file, int(k.line))
		if err != nil || pc != first[k] {
			fail("LineToPC(%q, %d): Go says %#x (%v), expected %#x",
				k.file, k.line, pc, err, first[k])
		}
	}

	if *pcs != "" {
		writePCs(*pcs, want.Funcs)
	}

	if nfail > 0 {
		fmt.Fprintf(os.Stderr, "gosymcheck: %s: %d of %d checks failed\n",
			flag.Arg(0), nfail, nchecks)
		os.Exit(1)
	}
	fmt.Printf("gosymcheck: %s: %d functions, %d files, %d checks passed\n",
		flag.Arg(0), len(want.Funcs), len(want.Files), nchecks)
}

// writePCs writes, for `go tool addr2line`, the entry and the first pcs
// of up to three pcln rows of every function to PREFIX.in; and the first
// pc of up to 200 gaps to PREFIX.gap, with what Go's addr2line must say
// there (the function before the gap, and ":-1") to PREFIX.gap.go.
func writePCs(prefix string, funcs []fn) {
	var in, gap, gapgo []byte
	for i := range funcs {
		f := &funcs[i]
		in = append(in, fmt.Sprintf("%#x\n", f.Entry)...)
		for k, r := range f.Pcln {
			if k == 3 {
				break
			}
			in = append(in, fmt.Sprintf("%#x\n", r.start)...)
		}
		if f.End < f.Next && len(gap) < 200*12 && f.HasPcln && f.HasPcfile {
			gap = append(gap, fmt.Sprintf("%#x\n", f.End)...)
			gapgo = append(gapgo, fmt.Sprintf("%s\n:-1\n", f.Name)...)
		}
	}
	for _, w := range []struct {
		name string
		data []byte
	}{{".in", in}, {".gap", gap}, {".gap.go", gapgo}} {
		if err := os.WriteFile(prefix+w.name, w.data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "gosymcheck:", err)
			os.Exit(1)
		}
	}
}
