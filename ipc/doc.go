// Package ipc owns the local channels between the launcher and the daemon
// (SPEC §2.6, §8): the hand-over of config and token over a pipe (never
// argv, environment or disk), the readiness report back over a second pipe,
// the run dir's pid file that makes a second daemon fail fast (SPEC §2.7),
// and the token file (SPEC §2.5).
package ipc
