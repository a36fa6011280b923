package pipeline

import "reflect"

func reflectType[T any]() reflect.Type { return reflect.TypeOf((*T)(nil)).Elem() }
