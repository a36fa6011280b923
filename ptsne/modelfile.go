package ptsne

import (
	"github.com/lowdim/lowdim/internal/deepnet"
	"github.com/lowdim/lowdim/modelio"
)

// Model files: kind "ptsne", payload layout 1 — the layer sizes, θ, the normalisation (Mean,
// Scale), the per-epoch costs and the training embedding.
const (
	kind    = "ptsne"
	version = 1
	// maxLayers bounds the number of layers (package deepnet's ReadPayload checks the rest).
	maxLayers = 64
)

func init() { modelio.Register(kind, version, decode) }

var _ modelio.Model = (*Model)(nil)

// ModelKind returns "ptsne".
func (m *Model) ModelKind() string { return kind }

// MarshalBinary encodes the model as a modelio payload.
func (m *Model) MarshalBinary() ([]byte, error) {
	var e modelio.Encoder
	(&deepnet.Payload{Sizes: m.Sizes, Theta: m.Theta, Offset: m.Mean, Scale: m.Scale, Cost: m.Cost, Y: m.y}).Write(&e)
	return e.Bytes(), nil
}

func decode(_ uint16, b []byte) (any, error) {
	p, err := deepnet.ReadPayload(kind, modelio.NewDecoder(b), 2, maxLayers, func(s []int) int { return s[len(s)-1] })
	if err != nil {
		return nil, err
	}
	return &Model{Sizes: p.Sizes, Theta: p.Theta, Mean: p.Offset, Scale: p.Scale, Cost: p.Cost, y: p.Y}, nil
}
