// A CPU-bound program for the viewer's source view test: two loops of different cost in one function.
package main

import (
	"os"
	"runtime/pprof"
)

var sink uint64

func work(n int) uint64 {
	var a, b uint64 // <script>document.title = "pwned"</script> & <b>bold</b>
	for i := 0; i < n; i++ {
		a += uint64(i) * 2654435761 // the cheap loop
	}
	for i := 0; i < 3*n; i++ {
		b ^= (b << 7) + uint64(i)*11400714819323198485 // the loop that costs three times as much
		b = b>>3 | b<<61
	}
	return a + b
}

func main() {
	f, _ := os.Create("hot.pprof")
	pprof.StartCPUProfile(f)
	for r := 0; r < 40; r++ {
		sink += work(20_000_000)
	}
	pprof.StopCPUProfile()
	f.Close()
}
