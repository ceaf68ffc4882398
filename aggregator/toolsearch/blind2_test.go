package toolsearch

import (
	"slices"
	"testing"
)

// blind2 are tasks written on 2026-12-03, a second blind set: phrased as
// users of an assistant ask, from the real set's tool list alone, without
// reading the scorer or the other sets' phrasings or misses, and
// committed before they were run. They were measured once, on the scorer
// as it was then, with nothing changed after to suit them. Once a change
// is tuned against them they are tuning data too.
var blind2 = []struct {
	ask   string
	tools []string
}{
	// github
	{"has anyone on github already built a terraform linter", []string{"search_repositories"}},
	{"make me my own copy of facebook/react so I can hack on it", []string{"fork_repository"}},
	{"start a feature branch off main called login-fix", []string{"create_branch", "gitlab_create_branch"}},
	{"what changed in the last few commits on main", []string{"list_commits"}},
	{"close issue 42, it's fixed", []string{"update_issue"}},
	{"tell the reporter on issue 17 that we shipped a fix", []string{"add_issue_comment"}},
	{"ship it, merge PR 88", []string{"merge_pull_request"}},
	{"open a PR from my branch into main", []string{"create_pull_request", "create_merge_request"}},
	{"find the github account of someone called torvalds", []string{"search_users"}},
	{"show me the README in that repo", []string{"get_file_contents", "gitlab_get_file_contents"}},
	{"are the CI checks green on PR 3", []string{"get_pull_request_status"}},
	{"what PRs are open right now", []string{"list_pull_requests", "search_issues"}},
	// gitlab
	{"fork our gitlab project into my namespace", []string{"gitlab_fork_repository"}},
	{"raise an MR on gitlab for my changes", []string{"create_merge_request"}},
	{"look for a gitlab project named infra-tools", []string{"gitlab_search_repositories"}},
	{"update the .gitlab-ci.yml in the gitlab project", []string{"gitlab_create_or_update_file"}},
	// everything
	{"add 17 and 25 for me", []string{"get-sum"}},
	{"repeat back exactly what I say", []string{"echo"}},
	{"what env vars does the server see", []string{"get-env"}},
	{"show me a small test picture", []string{"get-tiny-image"}},
	{"compress this file into a .gz", []string{"gzip-file-as-resource"}},
	{"run something slow that reports progress", []string{"trigger-long-running-operation"}},
	{"have the server ask the model to write a haiku", []string{"trigger-sampling-request", "trigger-sampling-request-async"}},
	{"which root folders has the client shared", []string{"get-roots-list"}},
	{"turn on the fake log messages", []string{"toggle-simulated-logging"}},
	// filesystem
	{"what's in the src folder", []string{"list_directory", "list_directory_with_sizes", "directory_tree"}},
	{"which files here are taking up the most space", []string{"list_directory_with_sizes", "get_file_info"}},
	{"rename notes.txt to notes-old.txt", []string{"move_file"}},
	{"when was main.go last modified", []string{"get_file_info"}},
	{"find every .yaml file under this project", []string{"search_files"}},
	{"change the port from 8080 to 9090 in config.toml", []string{"edit_file"}},
	{"open both go.mod and go.sum so I can compare them", []string{"read_multiple_files"}},
	{"make a folder for the build output", []string{"create_directory"}},
	{"which folders am I allowed to touch", []string{"list_allowed_directories"}},
	// memory
	{"remember that Alice works at Acme", []string{"create_entities", "add_observations", "create_relations"}},
	{"forget everything you know about Bob", []string{"delete_entities"}},
	{"what do you remember about my project deadlines", []string{"search_nodes", "read_graph", "open_nodes"}},
	{"note that Alice manages Bob", []string{"create_relations", "add_observations"}},
	// pdf
	{"which PDFs can you show me", []string{"list_pdfs"}},
	{"open the quarterly report pdf", []string{"display_pdf"}},
	{"highlight the second paragraph on page 3 of the pdf", []string{"interact"}},
	// google-maps
	{"how long is the drive from Boston to NYC", []string{"maps_distance_matrix", "maps_directions"}},
	{"what are the lat/long of the Eiffel Tower", []string{"maps_geocode"}},
	{"find a coffee shop near me", []string{"maps_search_places", "brave_local_search"}},
	{"how high above sea level is Denver", []string{"maps_elevation"}},
	// slack
	{"give a thumbs up to that message in slack", []string{"slack_add_reaction"}},
	{"what's been said in #general today", []string{"slack_get_channel_history"}},
	{"who's on our slack team", []string{"slack_get_users"}},
	{"answer in the thread under Bob's message", []string{"slack_reply_to_thread"}},
	// brave-search
	{"what's the latest news on the Mars mission", []string{"brave_web_search"}},
	{"pizza places open near downtown Austin", []string{"brave_local_search", "maps_search_places"}},
	// postgres
	{"how many users signed up last week in the db", []string{"query"}},
	// sequential-thinking
	{"help me plan this migration step by step, revising as we go", []string{"sequentialthinking"}},
}

// TestSearchQualityBlind2 reports recall@5 over blind2 and holds it to its
// floor, and logs recall@5 over blind and blind2 together.
func TestSearchQualityBlind2(t *testing.T) {
	tools := realSet(t)
	ix := New(tools)
	recall := measure(t, ix, tools, "blind2 set", blind2)
	measure(t, ix, tools, "blind and blind2 sets", append(slices.Clone(blind), blind2...))
	if len(blind2) < 40 {
		t.Errorf("%d blind2 tasks, want at least 40", len(blind2))
	}
	if recall < blind2Floor {
		t.Errorf("recall@5 %.1f %% on the blind2 set, want at least %.0f %%", 100*recall, 100*blind2Floor)
	}
}

// blind2Floor is blind2's recall@5 as measured once, rounded down to 5 %:
// 86.8 % (46 of 53; first 49.1 %, 26). blind and blind2 together measured
// 87.6 % (78 of 89; first 56.2 %, 50). Tuned against since 2026-12-04
// (blind_test.go): 100 % (first 60.4 %).
const blind2Floor = 0.85
