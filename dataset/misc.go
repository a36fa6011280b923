package dataset

import "math"

var nan = math.NaN()
