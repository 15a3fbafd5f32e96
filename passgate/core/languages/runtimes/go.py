"""The Go serialiser: `__pgReport(site, value)` writes one JSON line to the report descriptor, by
reflection (a nil slice, map or pointer is null, so it stays apart from an empty one, as
reflect.DeepEqual and testify's assert.Equal keep them); `__pgReportV` reports `%v` text, for
tests that compare `fmt.Sprintf("%v", ...)`. It lives in its own file of package main."""

SOURCE = r'''package main

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"reflect"
	"sort"
	"strconv"
)

var __pgOut = os.NewFile(FD, "report")
var __pgBudget int

func __pgPut(b []byte) {
	for len(b) > 0 {
		n, err := __pgOut.Write(b)
		if err != nil {
			os.Exit(125)
		}
		b = b[n:]
	}
}

func __pgFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		return append(b, `{"f":"nan"}`...)
	case math.IsInf(f, 1):
		return append(b, `{"f":"inf"}`...)
	case math.IsInf(f, -1):
		return append(b, `{"f":"-inf"}`...)
	case f == 0 && math.Signbit(f):
		return append(b, `{"f":"-0"}`...)
	}
	b = append(b, `{"f":`...)
	b = strconv.AppendFloat(b, f, 'g', -1, 64)
	return append(b, '}')
}

func __pgEnc(b []byte, v reflect.Value, depth int) []byte {
	__pgBudget++
	if __pgBudget > 5000000 || depth > 1000 {
		return append(b, `{"x":"too large"}`...)
	}
	if !v.IsValid() {
		return append(b, "null"...)
	}
	switch v.Kind() {
	case reflect.Bool:
		return strconv.AppendBool(b, v.Bool())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.AppendInt(b, v.Int(), 10)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.AppendUint(b, v.Uint(), 10)
	case reflect.Float32, reflect.Float64:
		return __pgFloat(b, v.Float())
	case reflect.String:
		s, _ := json.Marshal(v.String())
		return append(b, s...)
	case reflect.Interface, reflect.Ptr:
		if v.IsNil() {
			return append(b, "null"...)
		}
		return __pgEnc(b, v.Elem(), depth+1)
	case reflect.Slice, reflect.Array:
		if v.Kind() == reflect.Slice && v.IsNil() {
			return append(b, "null"...)
		}
		b = append(b, '[')
		for i := 0; i < v.Len(); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			b = __pgEnc(b, v.Index(i), depth+1)
		}
		return append(b, ']')
	case reflect.Map:
		if v.IsNil() {
			return append(b, "null"...)
		}
		keys := v.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return fmt.Sprint(keys[i]) < fmt.Sprint(keys[j]) })
		b = append(b, `{"m":[`...)
		for i, k := range keys {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, '[')
			b = __pgEnc(b, k, depth+1)
			b = append(b, ',')
			b = __pgEnc(b, v.MapIndex(k), depth+1)
			b = append(b, ']')
		}
		return append(b, "]}"...)
	case reflect.Struct:
		b = append(b, `{"o":[`...)
		for i := 0; i < v.NumField(); i++ {
			if i > 0 {
				b = append(b, ',')
			}
			name, _ := json.Marshal(v.Type().Field(i).Name)
			b = append(b, '[')
			b = append(b, name...)
			b = append(b, ',')
			b = __pgEnc(b, v.Field(i), depth+1)
			b = append(b, ']')
		}
		return append(b, "]}"...)
	}
	name, _ := json.Marshal(v.Type().String())
	return append(append(append(b, `{"x":`...), name...), '}')
}

func __pgReport(site int, value interface{}) {
	__pgBudget = 0
	b := []byte(`{"s":` + strconv.Itoa(site) + `,"v":`)
	b = __pgEnc(b, reflect.ValueOf(value), 0)
	__pgPut(append(b, "}\n"...))
}

func __pgReportV(site int, value interface{}) {
	__pgReport(site, fmt.Sprintf("%v", value))
}

func __pgEnd(n int) {
	__pgPut([]byte(`{"end":` + strconv.Itoa(n) + "}\n"))
}
'''
