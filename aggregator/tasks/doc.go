// Package tasks owns the gateway's tasks as values (SPEC §4.7): the
// table of every task a caller created through the gateway, its kinds
// (a server's own task relayed, a task the gateway made of a legacy
// session's call, one it made of a modern caller's), ids, owners,
// limits and TTL; and a made task's state and its Task objects in both
// eras (MCP 2025-11-25 tasks; the 2026-07-28 tasks extension). It never
// calls a server nor answers a client: the task methods that do
// (tasks/get, tasks/result, tasks/update, tasks/cancel, their relay and
// notifications) are the endpoint's, in package aggregator, over a Task.
//
//	table.go   Limits, Kind, Task and its parts (Relayed, Made, Modern),
//	           Table: Add, Get, Lookup, Remove, Keep, Owned, expiry
//	task.go    statuses, a made task's Ask and Reply, NewLegacy, NewMade,
//	           the Task object (Render), CancelTask, Outcome
//	modern.go  a modern task's inline phase (Announce), its DetailedTask
//	           (RenderModern, EndedModern), and its asks for tasks/update
package tasks
