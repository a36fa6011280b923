package pipeline

import (
	"context"
	"reflect"

	"github.com/apache/beam/sdks/v2/go/pkg/beam"
	"github.com/apache/beam/sdks/v2/go/pkg/beam/register"
)

// Every function and type the workers run is registered here, so that a worker binary (a
// remote runner's, or prism's loopback one) finds them by name.
func init() {
	beam.RegisterType(reflectType[Shard]())
	beam.RegisterType(reflectType[Moments]())
	beam.RegisterType(reflectType[Basis]())
	beam.RegisterType(reflectType[SignCand]())

	register.DoFn3x1[context.Context, Shard, func(Moments), error](&momentsFn{})
	register.Emitter1[Moments]()
	register.DoFn1x2[Moments, int, Moments](&groupKeyFn{})
	register.Function3x1(mergeGroup)
	register.Iter1[Moments]()
	register.DoFn2x2[context.Context, Moments, Basis, error](&basisFn{})
	register.DoFn4x1[context.Context, Shard, Basis, func(int, SignCand), error](&signFn{})
	register.Emitter2[int, SignCand]()
	register.Function3x2(finishPCA)
	register.Iter1[SignCand]()
	register.DoFn2x1[context.Context, []byte, error](&writeBytesFn{})
}

func init() {
	register.DoFn2x2[context.Context, Shard, int, error](&mapFn{})
	register.Function2x1(sumInts)
}

func init() {
	for _, t := range []reflect.Type{reflectType[SampleKey](), reflectType[ShardSummary](), reflectType[Selection](),
		reflectType[SampleRow](), reflectType[Sample](), reflectType[MethodSpec](), reflectType[Cand](),
		reflectType[Partial](), reflectType[Neighbours](), reflectType[Counts](), reflectType[Estimate](), reflectType[Interval]()} {
		beam.RegisterType(t)
	}
	register.DoFn3x1[context.Context, Shard, func(int, ShardSummary), error](&summaryFn{})
	register.Emitter2[int, ShardSummary]()
	register.Iter1[ShardSummary]()
	register.DoFn2x1[int, func(*ShardSummary) bool, Selection](&selectFn{})
	register.DoFn4x1[context.Context, Shard, Selection, func(int, SampleRow), error](&pickFn{})
	register.Emitter2[int, SampleRow]()
	register.Iter1[SampleRow]()
	register.Function3x1(collectSample)
	register.DoFn2x2[context.Context, Sample, []byte, error](&fitSampleFn{})

	register.DoFn4x1[context.Context, Shard, Sample, func(int, Partial), error](&neighboursFn{})
	register.Emitter2[int, Partial]()
	register.Iter1[Partial]()
	register.DoFn2x2[int, func(*Partial) bool, int, Partial](&mergeNeighboursFn{})
	register.Function2x1(collectNeighbours)
	register.DoFn5x1[context.Context, Shard, Sample, Neighbours, func(int, Counts), error](&ranksFn{})
	register.Emitter2[int, Counts]()
	register.Iter1[Counts]()
	register.Function2x2(sumCounts)
	register.DoFn4x2[int, func(*Counts) bool, Sample, Neighbours, Estimate, error](&estimateFn{})
	register.DoFn1x2[Sample, Sample, error](&checkSampleFn{})
}

func init() {
	register.DoFn2x1[context.Context, Estimate, error](&writeJSONFn{})
}
