// Package proc owns the mechanics of one child process, apart from the
// policy that decides when to start, stop or restart it (package
// supervisor), as Nomad's raw-exec driver keeps its executor apart from
// the driver (STYLE §15):
//
//   - Start (process.go): the child in a process group of its own, with
//     Pdeathsig, so that stop signals reach what it forks and it dies with
//     the daemon (SPEC §7.1, §7.6); its stdin and stdout pipes for the
//     caller, widened to 256 KiB so that a large message crosses them in
//     few wake-ups (pipeSize); its stderr copied to the log line by line, masked, with the
//     last lines kept for error messages (StderrTail; SPEC §7.4, §7.5).
//   - One owner goroutine per child (STYLE §3), waitExit: the only caller
//     of cmd.Wait. When the child exits it kills the rest of the group,
//     waits (bounded) for the stdout reader and the stderr copier to reach
//     the end of their pipes, records the exit under a mutex and closes
//     Exited. Everyone else learns of the exit from Exited.
//   - The stop sequence of SPEC §7.6 (stop.go): close stdin, wait; SIGTERM
//     the group, wait; SIGKILL the group. Stop, WaitFor, Kill.
//   - The keeper (keeper.go): the gateway binary run as `__keeper`, the
//     daemon's parent and a child subreaper, which takes every server's
//     whole tree down when the daemon exits, even by SIGKILL; and the
//     process tree read from /proc (tree.go), which it and Stop kill.
//
// What the child runs, with which environment, and what its stdout
// carries are the caller's: this package neither decides nor parses.
//
// # Goroutines
//
// Per child: the owner (waitExit) and the stderr copier, which the owner
// waits for; and the caller's stdout reader, ReadStdout, which runs on
// the caller's goroutine and which the owner waits for too. The keeper
// is a process of its own, whose main goroutine reaps every child.
//
// # Waits
//
// Every wait is named, with what it bounds: the stop sequence's
// StopTimeouts (defaultCloseWait, defaultTermWait), the drain of a
// dead child's pipes (stdoutDrain, stderrDrain), and the keeper's look
// for leftovers (leftoverPoll).
package proc
