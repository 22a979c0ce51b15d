package main

import (
	"os"
	"runtime/pprof"
	"strings"
	"time"
)

var sink []string

func build(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteString("abcdefgh")
	}
	return b.String()
}

func churn() {
	for i := 0; i < 200; i++ {
		sink = append(sink, build(1000+i))
		if len(sink) > 1000 {
			sink = sink[:0]
		}
	}
}

func copyLoop(buf []byte) int {
	dst := make([]byte, len(buf))
	n := 0
	for i := 0; i < 50; i++ {
		n += copy(dst, buf)
	}
	return n
}

func main() {
	f, _ := os.Create(os.Args[1])
	pprof.StartCPUProfile(f)
	buf := make([]byte, 1<<20)
	end := time.Now().Add(3 * time.Second)
	for time.Now().Before(end) {
		churn()
		copyLoop(buf)
	}
	pprof.StopCPUProfile()
	f.Close()
}
