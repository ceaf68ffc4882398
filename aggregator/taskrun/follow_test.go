package taskrun

import (
	"testing"
	"time"

	"github.com/mcp-gateway/mcp-gateway/aggregator/tasks"
)

func TestTaskParams(t *testing.T) {
	for params, want := range map[string]bool{
		`{"name":"x","task":{"ttl":1000}}`: true,
		`{"name":"x","task":{}}`:           true,
		`{"name":"x","task":null}`:         false,
		`{"name":"x","task":true}`:         false,
		`{"name":"x"}`:                     false,
		``:                                 false,
	} {
		if got := TaskParams([]byte(params)); got != want {
			t.Errorf("TaskParams(%s) = %v, want %v", params, got, want)
		}
	}
}

func TestPollEvery(t *testing.T) {
	for res, want := range map[string]time.Duration{
		`{"pollInterval":500}`:     500 * time.Millisecond,
		`{"pollInterval":1}`:       MinPoll,
		`{"pollInterval":3600000}`: MaxPoll,
		`{"pollInterval":null}`:    tasks.PollInterval * time.Millisecond,
		`{"pollInterval":"fast"}`:  tasks.PollInterval * time.Millisecond,
		`{}`:                       tasks.PollInterval * time.Millisecond,
	} {
		if got := PollEvery([]byte(res), "pollInterval"); got != want {
			t.Errorf("PollEvery(%s) = %v, want %v", res, got, want)
		}
	}
}

func TestWithoutTasksExt(t *testing.T) {
	for caps, want := range map[string]string{
		`{"roots":{},"extensions":{"` + tasks.Extension + `":{},"other":{"a":1}}}`: `{"roots":{},"extensions":{"other":{"a":1}}}`,
		`{"roots":{},"extensions":{"other":{}}}`:                                   `{"roots":{},"extensions":{"other":{}}}`,
		`{"roots":{}}`:                                                             `{"roots":{}}`,
		`{"extensions":7}`:                                                         `{"extensions":7}`,
	} {
		if got := string(WithoutTasksExt([]byte(caps))); got != want {
			t.Errorf("WithoutTasksExt(%s) = %s, want %s", caps, got, want)
		}
	}
}
