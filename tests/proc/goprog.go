// goprog.go -- tests/proc-stack.sh's Go program: it runs until killed,
// its main goroutine in main.fib, for pclndump stack --pid to walk with
// the table converted from its .gopclntab.
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

var sink int

func main() {
	for {
		sink += work(10)
	}
}
