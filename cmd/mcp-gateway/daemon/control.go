package daemon

// The control socket's answers (SPEC §8.1): a configured daemon's here;
// a warm one's in warm.go. The CLI's side is cmd/mcp-gateway/control.go.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"

	"github.com/mcp-gateway/mcp-gateway/ipc"
	"github.com/mcp-gateway/mcp-gateway/supervisor/reloader"
)

// controlHandler answers the control socket's requests (SPEC §8.1):
// status (the document status makes), stop (the control actor then
// returns), reload (rl's) and code (code's answer).
func controlHandler(status func() StatusDoc, rl *reloader.Reloader, code func() ipc.Response, logger *slog.Logger) ipc.Handler {
	return func(ctx context.Context, req ipc.Request) ipc.Response {
		switch req.Cmd {
		case ipc.CmdStatus:
			return statusResponse(status())
		case ipc.CmdStop:
			logger.Info("stopping: requested with mcp-gateway stop")
			return ipc.Response{OK: true, PID: os.Getpid()}
		case ipc.CmdReload:
			res, err := rl.Reload(ctx, reloader.TriggerCommand)
			if err != nil {
				return ipc.Response{Error: err.Error()}
			}
			return ipc.Response{OK: true, Reload: res}
		case ipc.CmdCode:
			return code()
		}
		return ipc.Response{Error: fmt.Sprintf("unknown command %q; want status, stop, reload or code", req.Cmd)}
	}
}

// statusResponse is the control socket's answer to status: doc.
func statusResponse(doc StatusDoc) ipc.Response {
	b, err := json.Marshal(doc)
	if err != nil {
		return ipc.Response{Error: "encode status: " + err.Error()}
	}
	return ipc.Response{OK: true, Status: b}
}
