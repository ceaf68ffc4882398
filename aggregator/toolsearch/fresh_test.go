package toolsearch

import "testing"

// fresh are tasks written after the scorer and the related words that
// the other sets (tasks, moreTasks) guided, before the next round of
// changes to them, and not looked at while tuning: their recall is the
// figure to trust. They are a user's words to an agent, across every
// server of the real set. Once a change is tuned against them they are
// tuning data too, and a new fresh set is due: they are (heldOut's
// changes were tuned against them too).
var fresh = []struct {
	ask   string
	tools []string
}{
	// github
	{"who pushed to the release branch recently", []string{"list_commits"}},
	{"grab the README from the octocat/hello-world repo", []string{"get_file_contents"}},
	{"give me the details of ticket #301 in our GitHub project", []string{"get_issue"}},
	{"show all the pull requests still waiting to be merged", []string{"list_pull_requests"}},
	{"review the PR and request changes on line 20", []string{"create_pull_request_review"}},
	{"upload these three config files to the repo in one go", []string{"push_files", "gitlab_push_files"}},
	{"assign bug 55 to maria and label it urgent", []string{"update_issue"}},
	{"are there any open bugs mentioning memory leaks across GitHub", []string{"search_issues"}},
	// gitlab
	{"copy the gitlab project into my namespace", []string{"gitlab_fork_repository"}},
	{"set up a new private project on gitlab", []string{"gitlab_create_repository"}},
	{"fetch the Dockerfile from our gitlab project", []string{"gitlab_get_file_contents"}},
	{"propose merging my feature branch into develop on gitlab", []string{"create_merge_request"}},
	// slack
	{"let the #ops folks know the server is back up", []string{"slack_post_message"}},
	{"what has everyone been saying lately in #random", []string{"slack_get_channel_history"}},
	{"what's the timezone and status of this coworker on slack", []string{"slack_get_user_profile"}},
	{"reply under Tom's slack message instead of in the main channel", []string{"slack_reply_to_thread"}},
	// google-maps
	{"what's the latitude and longitude of 10 Downing Street", []string{"maps_geocode"}},
	{"I'm at these GPS coordinates, what city is this", []string{"maps_reverse_geocode"}},
	{"how do I get from the airport to downtown by bus", []string{"maps_directions"}},
	{"find pharmacies around Times Square", []string{"maps_search_places", "brave_local_search"}},
	{"travel times from our three warehouses to each store", []string{"maps_distance_matrix"}},
	// brave-search
	{"search online for reviews of the new iPhone", []string{"brave_web_search"}},
	{"any good pizza places open late in Brooklyn", []string{"brave_local_search", "maps_search_places"}},
	// postgres
	{"count the users who signed up this week in postgres", []string{"query"}},
	{"run a select on the customers table", []string{"query"}},
	// filesystem
	{"overwrite todo.md with this new list", []string{"write_file"}},
	{"look at the first 10 lines of server.log", []string{"read_text_file", "read_file"}},
	{"move all the screenshots into the archive folder", []string{"move_file"}},
	{"which directories can you access on my machine", []string{"list_allowed_directories"}},
	{"locate any json files in the project folder", []string{"search_files"}},
	{"compare main.go and util.go side by side", []string{"read_multiple_files"}},
	{"change the port number in settings.ini from 8080 to 9090", []string{"edit_file"}},
	// memory
	{"note that Bob prefers tea over coffee", []string{"add_observations", "create_entities"}},
	{"remove the link between Bob and his old company", []string{"delete_relations"}},
	{"look up everything about project Phoenix in your memory", []string{"search_nodes", "open_nodes"}},
	// pdf
	{"highlight the second paragraph in the open PDF", []string{"interact"}},
	{"show me contract.pdf in the viewer", []string{"display_pdf"}},
	// sequential-thinking
	{"break this tricky design question into smaller reasoning steps", []string{"sequentialthinking"}},
	// everything
	{"show me a small sample image", []string{"get-tiny-image"}},
	{"what is 12 plus 30", []string{"get-sum"}},
	{"turn on the fake log messages", []string{"toggle-simulated-logging"}},
	{"ask the client's LLM to write a haiku", []string{"trigger-sampling-request", "trigger-sampling-request-async"}},
}

// TestSearchQualityFresh reports recall@5 over fresh and holds it to its
// floor.
func TestSearchQualityFresh(t *testing.T) {
	tools := realSet(t)
	recall := measure(t, New(tools), tools, "fresh set", fresh)
	if len(fresh) < 25 {
		t.Errorf("%d fresh tasks, want at least 25", len(fresh))
	}
	if recall < freshFloor {
		t.Errorf("recall@5 %.1f %% on the fresh set, want at least %.0f %%", 100*recall, 100*freshFloor)
	}
}

// freshFloor is the fresh set's recall@5 after the changes that heldOut
// measured, which its misses guided too, rounded down to 5 %: 95.2 % (40
// of 42). Before them, after the stemmer, BM25F and the related words of
// 1a48052, it was 81.0 % (34; first 50.0 %); when the set was written, on
// the scorer before those, 78.6 % (33; first 47.6 %).
const freshFloor = 0.95
