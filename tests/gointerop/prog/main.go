// A small Go program for the interop tests: noinline call chains, a
// method, a closure, a generic function, defer/recover (a nonzero
// deferreturn), and code in a second file.  It is built, not run.
package main

import "os"

type counter struct{ n int }

//go:noinline
func (c *counter) add(k int) int {
	c.n += k
	return c.n
}

//go:noinline
func level3(x int) int {
	if x > 10 {
		panic("too big")
	}
	return x * 3
}

//go:noinline
func level2(x int) int { return level3(x+1) + 1 }

//go:noinline
func level1(x int) (r int) {
	defer func() {
		if recover() != nil {
			r = -1
		}
	}()
	return level2(x)
}

//go:noinline
func sum[T int | float64](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func main() {
	c := &counter{}
	f := func(k int) int { return c.add(k) + level1(k) }
	total := f(len(os.Args)) + sum([]int{1, 2, 3}) + int(sum([]float64{1.5}))
	total += helper(total)
	if total == 12345 {
		println("unlikely")
	}
	os.Exit(0)
}
