package aggregator

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/mcp-gateway/mcp-gateway/supervisor"
)

// This file is what /metrics reads at each scrape besides the call
// series (SPEC §11.2): each server's state, restarts, last start and
// calls in flight, and the endpoint's sessions, parked calls and tasks.
// Nothing on the call path updates them: they are read from where they
// live.

var (
	descState = prometheus.NewDesc("mcp_gateway_server_state",
		"1 for the state each server is in (starting, running, exited, failed, stopped), 0 for the others.", []string{"server", "state"}, nil)
	descRestarts = prometheus.NewDesc("mcp_gateway_server_restarts_total",
		"Times each server was started again after its first start.", []string{"server"}, nil)
	descStarted = prometheus.NewDesc("mcp_gateway_server_start_time_seconds",
		"When each server's running process started (Unix seconds); absent while none runs.", []string{"server"}, nil)
	descInFlight = prometheus.NewDesc("mcp_gateway_calls_in_flight",
		"Requests for clients waiting for each server's answer.", []string{"server"}, nil)
	descSessions = prometheus.NewDesc("mcp_gateway_sessions", "Open legacy sessions.", nil, nil)
	descParked   = prometheus.NewDesc("mcp_gateway_parked_calls", "Calls parked for a modern client's MRTR retry.", nil, nil)
	descTasks    = prometheus.NewDesc("mcp_gateway_tasks", "Tasks the gateway holds for callers, running or kept.", nil, nil)
)

var serverStates = []supervisor.State{supervisor.StateStarting, supervisor.StateRunning, supervisor.StateExited, supervisor.StateFailed, supervisor.StateStopped}

// stateCollector is the gateway's prometheus.Collector of those: the
// servers, and the endpoint's counts of sessions, parked calls and tasks.
type stateCollector struct {
	ups                     []*supervisor.Upstream
	sessions, parked, tasks func() int
}

func (c stateCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{descState, descRestarts, descStarted, descInFlight, descSessions, descParked, descTasks} {
		ch <- d
	}
}

func (c stateCollector) Collect(ch chan<- prometheus.Metric) {
	for _, u := range c.ups {
		st := u.Status()
		for _, s := range serverStates {
			v := 0.0
			if st.State == s {
				v = 1
			}
			ch <- prometheus.MustNewConstMetric(descState, prometheus.GaugeValue, v, st.Name, string(s))
		}
		ch <- prometheus.MustNewConstMetric(descRestarts, prometheus.CounterValue, float64(st.Restarts), st.Name)
		if !st.StartedAt.IsZero() {
			ch <- prometheus.MustNewConstMetric(descStarted, prometheus.GaugeValue, float64(st.StartedAt.UnixMilli())/1000, st.Name)
		}
		ch <- prometheus.MustNewConstMetric(descInFlight, prometheus.GaugeValue, float64(u.InFlight()), st.Name)
	}
	ch <- prometheus.MustNewConstMetric(descSessions, prometheus.GaugeValue, float64(c.sessions()))
	ch <- prometheus.MustNewConstMetric(descParked, prometheus.GaugeValue, float64(c.parked()))
	ch <- prometheus.MustNewConstMetric(descTasks, prometheus.GaugeValue, float64(c.tasks()))
}
