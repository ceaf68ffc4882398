package adapters

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"syscall"
	"time"
)

// RunShell runs script with /bin/sh -c in dir, with env, in its own process
// group; its stdout and stderr go to out. When ctx is done the whole group
// is killed. The error carries the exit status.
func RunShell(ctx context.Context, dir string, env []string, script string, out io.Writer) error {
	if err := Run(ctx, dir, env, []string{"/bin/sh", "-c", script}, out); err != nil {
		return fmt.Errorf("run %q: %w", script, err)
	}
	return nil
}

// Run runs argv in dir (the current one if ""), with env (the process's if
// nil), in its own process group; its stdout and stderr go to out. When
// ctx is done the whole group is killed, and what the group left behind is
// killed when argv exits. The error carries the exit status, and ctx's
// error if it ended the run.
func Run(ctx context.Context, dir string, env []string, argv []string, out io.Writer) error {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 2 * time.Second
	err := cmd.Run()
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // stragglers of the group
	}
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return errors.Join(ctxErr, err)
		}
		return err
	}
	return nil
}
