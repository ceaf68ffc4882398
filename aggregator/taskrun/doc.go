// Package taskrun runs the calls of the tasks the gateway keeps for
// callers of both eras (SPEC §4.7), over the task table (package tasks)
// and the call spine (package relay): a gateway-made task's call on a
// context of its own, a server's own task followed for a caller of the
// other era, and a server's own task relayed to its caller by id. It
// answers no client: the fronts render what it returns, and hear of a
// task's new state through the Runner's changed func.
//
//	runner.go   Runner, StartTask (a gateway-made task's call), its taskPeer,
//	            the end of a session a task is bound to, finishTask
//	follow.go   Follow: a server's task of the other era followed to its
//	            end; TasksExtPeer, WithoutTasksExt; TaskParams, PollEvery
//	relayed.go  a server's own task: RegisterRelayed, RelayCreate,
//	            RelayTask/RelayTaskGet (to the process that made it), the
//	            related-task _meta swapped for the gateway's id
package taskrun
