package main

import (
	"os"
	"runtime"
	"runtime/pprof"
	"time"
)

var sink []byte
var acc uint64

func small(x uint64) uint64 { return x*6364136223846793005 + 1442695040888963407 } // inlined

//go:noinline
func hot(n int) {
	for i := 0; i < n; i++ {
		acc = small(acc) ^ (acc >> 29)
	}
}

//go:noinline
func alloc(n int) {
	for i := 0; i < n; i++ {
		sink = make([]byte, 4096)
	}
}

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	end := time.Now().Add(800 * time.Millisecond)
	for time.Now().Before(end) {
		hot(1000000)
		alloc(100)
	}
	pprof.StopCPUProfile()
	f.Close()
	runtime.MemProfileRate = 4096
	for i := 0; i < 200; i++ {
		alloc(100)
	}
	runtime.GC()
	h, _ := os.Create(os.Args[2])
	pprof.WriteHeapProfile(h)
	h.Close()
}
