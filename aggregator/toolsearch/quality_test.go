package toolsearch

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// tasks are what a user asks an agent, in a user's words (not the tools'
// descriptions'), each with the exported tools that would answer it.
var tasks = []struct {
	ask   string
	tools []string
}{
	{"open a PR from my feature branch into main", []string{"create_pull_request"}},
	{"leave a comment on issue 42 saying it is fixed", []string{"add_issue_comment"}},
	{"merge the pull request now that checks are green", []string{"merge_pull_request"}},
	{"which files did PR 17 touch", []string{"get_pull_request_files"}},
	{"fork that project into my own account", []string{"fork_repository", "gitlab_fork_repository"}},
	{"look for repositories about rust web frameworks", []string{"search_repositories", "gitlab_search_repositories"}},
	{"find code that calls strcpy anywhere on GitHub", []string{"search_code"}},
	{"who approved or requested changes on this pull request", []string{"get_pull_request_reviews"}},
	{"show me the latest commits on the main branch", []string{"list_commits"}},
	{"close issue 12, it's a duplicate", []string{"update_issue"}},
	{"open a merge request on gitlab", []string{"create_merge_request"}},
	{"tell the team in #general that the deploy is done", []string{"slack_post_message"}},
	{"answer in the thread under that message", []string{"slack_reply_to_thread"}},
	{"put a thumbs up emoji on his message", []string{"slack_add_reaction"}},
	{"what channels does our workspace have", []string{"slack_list_channels"}},
	{"catch me up on what was said in the engineering channel", []string{"slack_get_channel_history"}},
	{"what are the coordinates of the Eiffel Tower", []string{"maps_geocode"}},
	{"what street address is at 48.8584, 2.2945", []string{"maps_reverse_geocode"}},
	{"how long is the drive from Paris to Lyon", []string{"maps_directions", "maps_distance_matrix"}},
	{"coffee shops near the office", []string{"maps_search_places", "brave_local_search"}},
	{"how high above sea level is Denver", []string{"maps_elevation"}},
	{"search the internet for news about the election", []string{"brave_web_search"}},
	{"opening hours and phone number of that restaurant", []string{"maps_place_details", "brave_local_search"}},
	{"how many orders did we get last month according to the database", []string{"query"}},
	{"save this text into notes.txt", []string{"write_file"}},
	{"show me what is in config.yaml", []string{"read_text_file", "read_file"}},
	{"make a new folder called reports", []string{"create_directory"}},
	{"rename report.docx to final.docx", []string{"move_file"}},
	{"how big is this file and when was it last changed", []string{"get_file_info", "list_directory_with_sizes"}},
	{"show the folder structure as a tree", []string{"directory_tree"}},
	{"replace a line in that source file", []string{"edit_file"}},
	{"remember that Alice works at Acme", []string{"create_entities", "add_observations", "create_relations"}},
	{"what do you remember about Alice", []string{"search_nodes", "open_nodes", "read_graph"}},
	{"forget everything you stored about Bob", []string{"delete_entities", "delete_observations"}},
	{"think this problem through step by step before answering", []string{"sequentialthinking"}},
	{"open this PDF so I can look at it", []string{"display_pdf"}},
	{"which PDF documents can I read", []string{"list_pdfs"}},
	{"add 3 and 5", []string{"get-sum"}},
	{"say back exactly what I type", []string{"echo"}},
	{"compress a file with gzip", []string{"gzip-file-as-resource"}},
	{"run a slow job that reports its progress", []string{"trigger-long-running-operation"}},
	{"what is in my downloads directory", []string{"list_directory", "list_directory_with_sizes"}},
	{"find every .py file under src", []string{"search_files"}},
	{"commit a change to README.md in the repo", []string{"create_or_update_file", "push_files"}},
	{"what is Dana's title and email on Slack", []string{"slack_get_user_profile", "slack_get_users"}},
	{"which folders am I allowed to touch", []string{"list_allowed_directories"}},
}

// moreTasks were written after related.go as a held-out set, and were
// one (80 % recall@5 then) until the stemmer, BM25F and the related
// words of hotel, high, picture and photo were tuned against them too:
// they are tuning data now, like tasks. The held-out set is fresh
// (fresh_test.go).
var moreTasks = []struct {
	ask   string
	tools []string
}{
	{"create a new branch called hotfix", []string{"create_branch", "gitlab_create_branch"}},
	{"file a bug about the login page crashing", []string{"create_issue", "gitlab_create_issue"}},
	{"list the open issues in our repo", []string{"list_issues", "search_issues"}},
	{"is the CI passing on pull request 9", []string{"get_pull_request_status"}},
	{"bring my PR branch up to date with main", []string{"update_pull_request_branch"}},
	{"what did reviewers comment on the PR", []string{"get_pull_request_comments", "get_pull_request_reviews"}},
	{"find GitHub users named octocat", []string{"search_users"}},
	{"start a new repository for the website", []string{"create_repository", "gitlab_create_repository"}},
	{"who is in our slack workspace", []string{"slack_get_users"}},
	{"show the replies to that thread", []string{"slack_get_thread_replies"}},
	{"walking directions to the train station", []string{"maps_directions"}},
	{"how far apart are Berlin and Munich by car", []string{"maps_distance_matrix", "maps_directions"}},
	{"get reviews and rating of the hotel on maps", []string{"maps_place_details", "maps_search_places"}},
	{"look up the weather on the web", []string{"brave_web_search"}},
	{"read several files at once", []string{"read_multiple_files"}},
	{"show the picture in photo.png", []string{"read_media_file"}},
	{"link Alice to Acme as her employer", []string{"create_relations"}},
	{"show me the whole knowledge graph", []string{"read_graph"}},
	{"print the environment variables of the server", []string{"get-env"}},
	{"fill in the form fields in this PDF and save it", []string{"interact", "save_pdf"}},
}

// TestSearchQuality reports recall@5 over the tuning sets, tasks and
// moreTasks, on the real tool set: a task counts if one of its tools is
// among the first five. It fails below the target of SPEC §4.10's
// issue, 90 %, over the two, and below each set's floor.
func TestSearchQuality(t *testing.T) {
	tools := realSet(t)
	ix := New(tools)
	recall := measure(t, ix, tools, "tuning set", tasks)
	more := measure(t, ix, tools, "second tuning set (the old held-out)", moreTasks)
	n := len(tasks) + len(moreTasks)
	if n < 30 || len(tools) < 100 {
		t.Errorf("%d tasks over %d tools: want at least 30 over 100", n, len(tools))
	}
	both := (recall*float64(len(tasks)) + more*float64(len(moreTasks))) / float64(n)
	t.Logf("both tuning sets: recall@5 %.1f %%", 100*both)
	if both < 0.9 {
		t.Errorf("recall@5 %.1f %% over the tuning sets, want at least 90 %%", 100*both)
	}
	if recall < 0.9 {
		t.Errorf("recall@5 %.1f %% on the tuning set, want at least 90 %%", 100*recall)
	}
	if more < 0.85 {
		t.Errorf("recall@5 %.1f %% on the second tuning set, want at least 85 %%", 100*more)
	}
}

// holdToFloor measures a set's recall@5 over the real set and holds it
// to floor, the set to at least min tasks.
func holdToFloor(t *testing.T, name string, set []struct {
	ask   string
	tools []string
}, min int, floor float64) {
	t.Helper()
	tools := realSet(t)
	recall := measure(t, New(tools), tools, name+" set", set)
	if len(set) < min {
		t.Errorf("%d %s tasks, want at least %d", len(set), name, min)
	}
	if recall < floor {
		t.Errorf("recall@5 %.1f %% on the %s set, want at least %.0f %%", 100*recall, name, 100*floor)
	}
}

// measure returns recall@5 of ix over tasks, and logs it and the misses.
func measure(t *testing.T, ix *Index, tools []Tool, set string, tasks []struct {
	ask   string
	tools []string
}) float64 {
	names := map[string]bool{}
	for _, tool := range tools {
		names[tool.Name] = true
	}
	var found, first int
	var misses []string
	for _, task := range tasks {
		for _, want := range task.tools {
			if !names[want] {
				t.Fatalf("task %q: no tool %q in the real set", task.ask, want)
			}
		}
		hits := ix.Search(Query{Text: task.ask, Limit: 5})
		var got []string
		for _, h := range hits {
			got = append(got, h.Tool.Name)
		}
		switch i := slices.IndexFunc(got, func(n string) bool { return slices.Contains(task.tools, n) }); {
		case i == 0:
			first++
			found++
		case i > 0:
			found++
		default:
			misses = append(misses, fmt.Sprintf("%q: want one of %v, got %v", task.ask, task.tools, got))
		}
	}
	recall := float64(found) / float64(len(tasks))
	t.Logf("%s: %d tools, %d tasks: recall@5 %.1f %% (%d), first %.1f %% (%d)", set, len(tools), len(tasks),
		100*recall, found, 100*float64(first)/float64(len(tasks)), first)
	if len(misses) > 0 {
		t.Logf("%s missed:\n%s", set, strings.Join(misses, "\n"))
	}
	return recall
}

// TestSearchDeterministic checks that the same query over the same tools
// gives the same tools in the same order with the same scores, index
// after index: Search sums in sorted term order and breaks ties by
// server order.
func TestSearchDeterministic(t *testing.T) {
	tools := thousand(t, 1000)
	first := New(tools)
	for range 2 {
		again := New(tools)
		for _, task := range tasks {
			q := Query{Text: task.ask, Limit: MaxLimit}
			want, got := first.Search(q), again.Search(q)
			if len(got) != len(want) {
				t.Fatalf("%q: %d hits, then %d", task.ask, len(want), len(got))
			}
			for i := range got {
				if got[i].Tool.Name != want[i].Tool.Name || got[i].Score != want[i].Score {
					t.Fatalf("%q: hit %d was %s (%v), then %s (%v)", task.ask, i,
						want[i].Tool.Name, want[i].Score, got[i].Tool.Name, got[i].Score)
				}
			}
		}
	}
}
