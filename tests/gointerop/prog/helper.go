package main

// helper is in a second file so the tables hold two files of package main.
//
//go:noinline
func helper(x int) int {
	y := 0
	for i := 0; i < x; i++ {
		y += i * i
	}
	return y
}
