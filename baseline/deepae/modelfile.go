package deepae

import (
	"github.com/lowdim/lowdim/dataset"
	"github.com/lowdim/lowdim/internal/deepnet"
	"github.com/lowdim/lowdim/modelio"
)

// Model files: kind "deepae", payload layout 1 — the layer sizes of the whole autoencoder, θ,
// the scaling (Offset, Scale), the per-epoch costs and the training embedding.
const (
	kind    = "deepae"
	version = 1
	// maxLayers bounds the number of layers of encoder and decoder (package deepnet's
	// ReadPayload checks the rest).
	maxLayers = 129
)

func init() { modelio.Register(kind, version, decode) }

var _ modelio.Model = (*Model)(nil)

// ModelKind returns "deepae".
func (m *Model) ModelKind() string { return kind }

// MarshalBinary encodes the model as a modelio payload.
func (m *Model) MarshalBinary() ([]byte, error) {
	var e modelio.Encoder
	(&deepnet.Payload{Sizes: m.Sizes, Theta: m.Theta, Offset: m.Offset, Scale: m.Scale, Cost: m.Cost, Y: m.y}).Write(&e)
	return e.Bytes(), nil
}

func decode(_ uint16, b []byte) (any, error) {
	p, err := deepnet.ReadPayload(kind, modelio.NewDecoder(b), 3, maxLayers, func(s []int) int { return s[len(s)/2] })
	if err != nil {
		return nil, err
	}
	mirrored := len(p.Sizes)%2 == 1
	for i, s := range p.Sizes {
		mirrored = mirrored && s == p.Sizes[len(p.Sizes)-1-i]
	}
	if !mirrored {
		return nil, dataset.Invalidf("deepae payload: layer sizes %v are not a mirrored encoder and decoder", p.Sizes)
	}
	return &Model{Sizes: p.Sizes, Theta: p.Theta, Offset: p.Offset, Scale: p.Scale, Cost: p.Cost, y: p.Y}, nil
}
