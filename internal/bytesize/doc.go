// Package bytesize reads and writes a count of bytes as people give it
// (SPEC §10's --memory-budget and --log-share): a count with an optional
// binary unit, as GOMEMLIMIT takes them ("256MiB", "64KiB", "1GiB"), or
// "k", "m", "g" for the same units ("256m"); and Flag, a flag.Value of
// it that an environment variable may set.
package bytesize
