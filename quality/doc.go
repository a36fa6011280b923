// Package quality measures how faithfully an embedding keeps the neighbourhoods of its data.
package quality
