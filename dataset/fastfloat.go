package dataset

// Numbers in the tables people feed an embedding are mostly short decimals — pixel values 0…255,
// "0.125", "-3.5e-05" — and strconv.ParseFloat costs 20–40 ns for each, plus the string it needs:
// on MNIST-sized rows (784 fields) that is the whole budget of a streaming transform. parseFast
// takes the common shapes in a few nanoseconds and leaves everything else to strconv.
//
// It is exact by the argument strconv itself uses first (Clinger's fast path, "atof64exact"): a
// decimal m·10^e with an integer m ≤ 2^53 and |e| ≤ 22 has m and 10^|e| both exact float64s, so
// the one IEEE multiplication or division that combines them is the correctly rounded value of
// the decimal, which is what ParseFloat returns. Anything outside that — more than 19 digits,
// a larger m or |e|, hex, "inf", underscores, text — reports !ok and the caller asks strconv.
// FuzzParseFast checks the equality bit for bit.

// pow10 holds the exactly representable powers of ten, 1e0 … 1e22.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseFast parses the decimal number at the start of b: [+-]digits[.digits][(e|E)[+-]digits],
// with at least one mantissa digit. n is the number of bytes it used; the caller decides whether
// what follows ends the field. ok is false when the prefix is not such a number or cannot be
// converted exactly here (the caller then uses strconv on the whole field).
func parseFast(b []byte) (v float64, n int, ok bool) {
	i := 0
	neg := false
	if i < len(b) && (b[i] == '-' || b[i] == '+') {
		neg = b[i] == '-'
		i++
	}
	var mant uint64
	digits := 0 // significant digits accumulated in mant (leading zeros not counted)
	seen := false
	exp := 0
	for ; i < len(b); i++ {
		c := b[i] - '0'
		if c > 9 {
			break
		}
		seen = true
		if mant == 0 && c == 0 {
			continue
		}
		if digits == 19 {
			return 0, 0, false
		}
		mant = mant*10 + uint64(c)
		digits++
	}
	if i < len(b) && b[i] == '.' {
		i++
		for ; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			seen = true
			exp--
			if mant == 0 && c == 0 {
				continue
			}
			if digits == 19 {
				return 0, 0, false
			}
			mant = mant*10 + uint64(c)
			digits++
		}
	}
	if !seen {
		return 0, 0, false
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		eneg := false
		if i < len(b) && (b[i] == '-' || b[i] == '+') {
			eneg = b[i] == '-'
			i++
		}
		start := i
		e := 0
		for ; i < len(b); i++ {
			c := b[i] - '0'
			if c > 9 {
				break
			}
			if e < 10000 {
				e = e*10 + int(c)
			}
		}
		if i == start {
			return 0, 0, false // "1e" or "1e+": strconv rejects it, let it say so
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if mant > 1<<53 {
		return 0, 0, false
	}
	f := float64(mant)
	switch {
	case mant == 0:
	case exp == 0:
	case exp > 0 && exp <= 22:
		f *= pow10[exp]
	case exp < 0 && exp >= -22:
		f /= pow10[-exp]
	default:
		return 0, 0, false
	}
	if neg {
		f = -f
	}
	return f, i, true
}
