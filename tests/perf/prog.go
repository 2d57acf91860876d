// prog.go -- the Go program of tests/perf-record.sh (its samples) and
// tests/proc-stack.sh (its live threads), walked with the table
// converted from its .gopclntab: a second or so in main.fib.
package main

//go:noinline
func fib(n int) int {
	if n < 2 {
		return n
	}
	return fib(n-1) + fib(n-2)
}

//go:noinline
func work(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += fib(25)
	}
	return s
}

func main() {
	println(work(3000))
}
