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
		reflectType[Partial](), reflectType[Neighbours](), reflectType[Counts](), reflectType[Estimate](), reflectType[Interval](),
		reflectType[SigmaPoint](), reflectType[SigmaQuery](), reflectType[SigmaState](), reflectType[SigmaSums](),
		reflectType[RankBatch](), reflectType[RankCounts](), reflectType[RankSums](), reflectType[RankLosses]()} {
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
	register.DoFn6x1[context.Context, Shard, Sample, Neighbours, SigmaState, func(int, Counts), error](&ranksFn{})
	register.Emitter2[int, Counts]()
	register.Iter1[Counts]()
	register.Function2x2(sumCounts)
	register.DoFn6x2[int, func(*Counts) bool, Sample, Neighbours, SigmaState, RankLosses, Estimate, error](&estimateFn{})
	register.DoFn1x2[Sample, Sample, error](&checkSampleFn{})

	register.DoFn2x1[Sample, Neighbours, SigmaState](&sigmaStartFn{})
	register.DoFn6x1[context.Context, Shard, Sample, Neighbours, SigmaState, func(SigmaSums), error](&sigmaFn{})
	register.Emitter1[SigmaSums]()
	register.Iter1[SigmaSums]()
	register.DoFn4x1[SigmaState, func(*SigmaSums) bool, Sample, Neighbours, SigmaState](&sigmaAdvanceFn{})

	register.DoFn5x1[context.Context, Shard, Sample, func(int64, RankBatch), func(RankCounts), error](&rankScatterFn{})
	register.Emitter2[int64, RankBatch]()
	register.Emitter1[RankCounts]()
	register.Iter1[RankCounts]()
	register.Function2x1(sumRankCounts)
	register.Function1x2(keyRankCounts)
	register.Function1x2(keyRankSums)
	register.Iter1[RankBatch]()
	register.DoFn5x0[int64, func(*RankBatch) bool, RankCounts, Sample, func(int64, RankBatch)](&rankSortFn{})
	register.DoFn4x0[int64, func(*RankBatch) bool, Sample, func(int, RankSums)](&rankTermsFn{})
	register.Emitter2[int, RankSums]()
	register.Iter1[RankSums]()
	register.DoFn3x1[int, func(*RankSums) bool, Sample, RankSums](&sumRankSumsFn{})
	register.Function3x1(collectRankLosses)
}

func init() {
	register.DoFn2x1[context.Context, Estimate, error](&writeJSONFn{})
}
