package pipeline

import (
	"context"

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
