package jsonrpc

// Index is the top-level members of a JSON object as the one scan that
// validated it found them (ValidEnvelopeIndexed: a message's params), so
// that they are read again without a scan (Each). Reading a tools/call's
// params for its name, _meta and task skipped its arguments once more:
// 12 ms for 8 MiB of small objects (issue 33). The zero Index holds
// nothing, and Each then scans as Members does; so does an Index of an
// object of more than maxIndexed members, or of another object than the
// one Each is given.
type Index struct {
	obj   *byte // the object indexed, its first byte and length; nil: none
	size  int
	n     int // members held; past maxIndexed, too many to hold
	spans [maxIndexed]indexSpan
}

// indexSpan is a member's key (without its quotes) and value, as offsets
// in the object.
type indexSpan struct{ keyStart, keyEnd, start, end int32 }

// maxIndexed is the most members an Index holds: a tools/call's params
// have name, arguments, and perhaps _meta and task.
const maxIndexed = 8

// Each calls fn with each top-level member of obj, in order, as Members
// does (the raw key, without its quotes, escapes kept; the raw value),
// from x when x is obj's, else by scanning obj. It stops early when fn
// returns false.
func (x *Index) Each(obj []byte, fn func(key, value []byte) bool) error {
	return x.EachAt(obj, func(key []byte, start, end int) bool { return fn(key, obj[start:end]) })
}

// EachAt is Each with each value's offsets in obj: obj[start:end].
func (x *Index) EachAt(obj []byte, fn func(key []byte, start, end int) bool) error {
	if x == nil || !x.holds(obj) {
		return members(obj, func(key []byte, _, start, end int) bool { return fn(key, start, end) })
	}
	for _, s := range x.spans[:x.n] {
		if !fn(obj[s.keyStart:s.keyEnd], int(s.start), int(s.end)) {
			return nil
		}
	}
	return nil
}

// holds reports whether x holds every member of obj.
func (x *Index) holds(obj []byte) bool {
	return x.obj != nil && len(obj) == x.size && &obj[0] == x.obj && x.n <= maxIndexed
}

func (x *Index) reset() { *x = Index{} }

// add holds the next member, at offsets in the object; past maxIndexed
// members, or offsets that do not fit, it counts them only (holds is
// then false).
func (x *Index) add(keyStart, keyEnd, start, end int) {
	if x.n < maxIndexed && end <= 1<<31-1 {
		x.spans[x.n] = indexSpan{int32(keyStart), int32(keyEnd), int32(start), int32(end)}
		x.n++
		return
	}
	x.n = maxIndexed + 1
}

// of marks x as the index of obj (not empty), once its members are
// added.
func (x *Index) of(obj []byte) { x.obj, x.size = &obj[0], len(obj) }
