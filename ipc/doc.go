// Package ipc owns the local channels between the launcher, the daemon and
// the operator's commands (SPEC §2.6, §8):
//
//   - the hand-over of config and token over a pipe (never argv,
//     environment or disk) and the readiness report back over a second
//     pipe (handover.go, report.go);
//   - the run dir's pid file, flocked for the daemon's life, so a second
//     daemon fails fast and a stale file never blocks (SPEC §2.7, pidfile.go);
//   - the 0600 control socket beside it, with its versioned one-request
//     JSON protocol for status, stop and reload (control.go);
//   - a warm daemon's 0600 hand-over socket beside them, on which a
//     launcher hands it config, token and environment, and gets its
//     reports back (SPEC §2.9, warm.go);
//   - the token file, written atomically with mode 0600 (SPEC §2.5, token.go).
package ipc
