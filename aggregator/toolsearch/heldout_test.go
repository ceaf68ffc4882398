package toolsearch

import "testing"

// heldOut are tasks written on 2026-12-03 after fresh had become tuning
// data, before any change to the scorer or the related words that came
// after them, and committed before those changes: a user's words to an
// agent over every server of the real set, not the tools' descriptions',
// each with the exported tools that would answer it. Their first figure
// is the one to trust; once a change is tuned against them they are
// tuning data too, and a new held-out set is due: they are, and blind
// (blind_test.go) is the one.
var heldOut = []struct {
	ask   string
	tools []string
}{
	// github
	{"show me the open PRs on the backend repo", []string{"list_pull_requests"}},
	{"what's in the package.json of facebook/react", []string{"get_file_contents"}},
	{"did the checks pass for PR 88", []string{"get_pull_request_status"}},
	{"approve pull request 14 with a short note", []string{"create_pull_request_review"}},
	{"make me a copy of torvalds/linux under my account", []string{"fork_repository", "gitlab_fork_repository"}},
	{"search GitHub for issues about flaky tests", []string{"search_issues"}},
	{"add a note to issue 7 that I'm working on it", []string{"add_issue_comment"}},
	{"what did the last five commits change on develop", []string{"list_commits"}},
	{"list the files modified by pull request 23", []string{"get_pull_request_files"}},
	{"report a problem: the signup button does nothing", []string{"create_issue", "gitlab_create_issue"}},
	{"look up the GitHub account of user torvalds", []string{"search_users"}},
	{"squash and merge PR 40", []string{"merge_pull_request"}},
	{"change the title of issue 19", []string{"update_issue"}},
	// gitlab
	{"create a feature branch on our gitlab project", []string{"gitlab_create_branch"}},
	{"find gitlab projects about kubernetes operators", []string{"gitlab_search_repositories"}},
	{"open an MR to merge hotfix into main", []string{"create_merge_request"}},
	// slack
	{"send a message to #design saying the mockups are ready", []string{"slack_post_message"}},
	{"get me a list of all the people on our Slack", []string{"slack_get_users"}},
	{"react with a checkmark to that slack post", []string{"slack_add_reaction"}},
	{"read the latest messages in the #support channel", []string{"slack_get_channel_history"}},
	{"see the responses to Anna's question in slack", []string{"slack_get_thread_replies"}},
	// google-maps
	{"convert this address to lat/long: 1600 Amphitheatre Parkway", []string{"maps_geocode"}},
	{"how far is it from Rome to Naples", []string{"maps_distance_matrix", "maps_directions"}},
	{"find a gas station near me", []string{"maps_search_places", "brave_local_search"}},
	{"what's the elevation of Mount Rainier's summit", []string{"maps_elevation"}},
	{"is that bakery open on Sunday, and what's its website", []string{"maps_place_details", "brave_local_search"}},
	{"give me turn-by-turn driving instructions to the stadium", []string{"maps_directions"}},
	// brave-search
	{"google the latest rust release notes", []string{"brave_web_search"}},
	// postgres
	{"which products are low on stock in the inventory database", []string{"query"}},
	// filesystem
	{"create a file called hello.py with a print statement", []string{"write_file"}},
	{"list what's inside the src folder", []string{"list_directory", "list_directory_with_sizes", "directory_tree"}},
	{"when was package.json created", []string{"get_file_info"}},
	{"relocate the images folder under assets", []string{"move_file"}},
	{"open the logo image file so you can see it", []string{"read_media_file"}},
	{"create nested folders a/b/c", []string{"create_directory"}},
	{"find all files named Dockerfile in the project", []string{"search_files"}},
	// memory
	{"store the fact that Carol manages the sales team", []string{"create_entities", "add_observations", "create_relations"}},
	{"delete Dave from your memory completely", []string{"delete_entities"}},
	{"what's stored in your knowledge graph about Paris", []string{"search_nodes", "open_nodes"}},
	// pdf
	{"show me the list of PDFs I have", []string{"list_pdfs"}},
	{"go to page 5 of the pdf and add a comment there", []string{"interact"}},
	// sequential-thinking
	{"reason carefully, one step at a time, about this proof", []string{"sequentialthinking"}},
	// everything
	{"repeat 'hello world' back to me", []string{"echo"}},
	{"what's the sum of 17 and 25", []string{"get-sum"}},
	{"gzip the log file", []string{"gzip-file-as-resource"}},
	{"list the client's root directories", []string{"get-roots-list"}},
	{"ask me for my name with a form", []string{"trigger-elicitation-request", "trigger-elicitation-request-async"}},
}

// TestSearchQualityHeldOut reports recall@5 over heldOut, and over every
// set together, and holds heldOut to its floor.
func TestSearchQualityHeldOut(t *testing.T) {
	tools := realSet(t)
	ix := New(tools)
	recall := measure(t, ix, tools, "held-out set", heldOut)
	if len(heldOut) < 30 {
		t.Errorf("%d held-out tasks, want at least 30", len(heldOut))
	}
	var all []struct {
		ask   string
		tools []string
	}
	for _, set := range [][]struct {
		ask   string
		tools []string
	}{tasks, moreTasks, fresh, heldOut, blind} {
		all = append(all, set...)
	}
	measure(t, ix, tools, "all sets", all)
	if recall < heldOutFloor {
		t.Errorf("recall@5 %.1f %% on the held-out set, want at least %.0f %%", 100*recall, 100*heldOutFloor)
	}
}

// heldOutFloor is heldOut's recall@5 after the changes it measured,
// rounded down to 5 %: 93.6 % (44 of 47; first 61.7 %). When it was
// written, on the scorer of fresh's first floor, it was 80.9 % (38;
// first 55.3 %).
const heldOutFloor = 0.90
