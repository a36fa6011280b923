package main

import (
	"math/rand/v2"
	"testing"
)

var sink float64
var isink int32

func BenchmarkSum(b *testing.B) {
	a := make([]float64, 70000)
	for i := range a {
		a[i] = float64(i)
	}
	for b.Loop() {
		var z float64
		for _, v := range a {
			z += v
		}
		sink += z
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(a)), "ns/elem")
}

func BenchmarkScatter(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 70000
	idx := make([]uint32, n)
	for i := range idx {
		idx[i] = uint32(r.IntN(n))
	}
	out := make([]int32, n)
	for b.Loop() {
		for j, p := range idx {
			out[p] = int32(j)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
}

func BenchmarkHist(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	n := 70000
	d := make([]float64, n)
	for i := range d {
		d[i] = r.Float64()
	}
	cnt := make([]int32, 16385)
	for b.Loop() {
		clear(cnt)
		for _, v := range d {
			cnt[min(uint32(v*16384), 16383)]++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/elem")
}
