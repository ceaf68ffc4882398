package toolsearch

import "testing"

// blind are tasks written on 2026-12-03 after the changes that heldOut
// and fresh measured (and so tuned), and measured once, on the scorer
// as it was then, with nothing changed after to suit them: the honest
// figure for that scorer. Once a change is tuned against them they are
// tuning data too, and a new blind set is due.
var blind = []struct {
	ask   string
	tools []string
}{
	// github
	{"who opened the most recent issues on our repo", []string{"list_issues", "search_issues"}},
	{"write up a new issue titled 'docs typo'", []string{"create_issue", "gitlab_create_issue"}},
	{"look at the diff of pull request 5", []string{"get_pull_request_files", "get_pull_request"}},
	{"what's the status of PR 12, is it mergeable", []string{"get_pull_request", "get_pull_request_status"}},
	{"spin up a repo called demo-app", []string{"create_repository", "gitlab_create_repository"}},
	{"grep all of GitHub for uses of os.Exit", []string{"search_code"}},
	{"rebase my pull request onto the latest main", []string{"update_pull_request_branch"}},
	{"leave review comments on the PR", []string{"create_pull_request_review"}},
	{"what feedback did the PR get from reviewers", []string{"get_pull_request_reviews", "get_pull_request_comments"}},
	{"edit config.yml in the github repo and commit it", []string{"create_or_update_file"}},
	// gitlab
	{"make a new issue in gitlab about the broken build", []string{"gitlab_create_issue"}},
	{"push these two files to our gitlab repo", []string{"gitlab_push_files"}},
	// slack
	{"post 'lunch?' in the #food channel", []string{"slack_post_message"}},
	{"which slack channels exist", []string{"slack_list_channels"}},
	{"give a thumbs up to Sam's message", []string{"slack_add_reaction"}},
	{"who is the user U123 on slack, their full name", []string{"slack_get_user_profile", "slack_get_users"}},
	// google-maps
	{"where exactly is the Colosseum on a map, coordinates please", []string{"maps_geocode"}},
	{"nearest hospital to Central Park", []string{"maps_search_places", "brave_local_search"}},
	{"driving time from Boston to New York", []string{"maps_directions", "maps_distance_matrix"}},
	{"reverse-lookup the address for 40.7128,-74.0060", []string{"maps_reverse_geocode"}},
	// brave-search
	{"what's the news today about SpaceX", []string{"brave_web_search"}},
	{"find a vegan restaurant in Austin", []string{"brave_local_search", "maps_search_places"}},
	// postgres
	{"show the ten biggest invoices from the sales table", []string{"query"}},
	// filesystem
	{"append a line to notes.md", []string{"edit_file", "write_file"}},
	{"what files are in the current directory with their sizes", []string{"list_directory_with_sizes"}},
	{"show me a.txt and b.txt together", []string{"read_multiple_files"}},
	{"set up a logs directory", []string{"create_directory"}},
	{"search my files for anything called invoice", []string{"search_files"}},
	// memory
	{"add to Alice's profile in memory that she likes hiking", []string{"add_observations"}},
	{"dump your entire memory", []string{"read_graph"}},
	{"forget the relationship between Tom and Jerry", []string{"delete_relations"}},
	// pdf
	{"open report.pdf so I can read it", []string{"display_pdf"}},
	// everything
	{"give me the environment variables", []string{"get-env"}},
	{"print a tiny test picture", []string{"get-tiny-image"}},
	{"start a long task and show progress", []string{"trigger-long-running-operation"}},
	// sequential-thinking
	{"let's think it through in steps", []string{"sequentialthinking"}},
}

// TestSearchQualityBlind reports recall@5 over blind and holds it to its
// floor.
func TestSearchQualityBlind(t *testing.T) {
	holdToFloor(t, "blind", blind, 30, blindFloor)
}

// blindFloor is blind's recall@5 as measured once, rounded down to 5 %:
// 88.9 % (32 of 36; first 66.7 %). The scorer before the changes that
// heldOut measured gives the same 88.9 % (first 61.1 %). On 2026-12-04
// the hints of a query's form (hints.go), the read-only annotation and
// words that mean the same were tuned against blind's and blind2's
// misses: blind is tuning data since, at 100 % (first 77.8 %), and
// blind3 (blind3_test.go) is the blind set.
const blindFloor = 0.85
