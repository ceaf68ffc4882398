package toolsearch

import "testing"

// blind3 are tasks written on 2026-12-04, a third blind set: phrased as
// users of an assistant ask, from the real set's tool list alone, without
// reading the scorer or the other sets' phrasings or misses, and
// committed before they were run.
var blind3 = []struct {
	ask   string
	tools []string
}{
	// github
	{"has anyone else reported the 'EADDRINUSE after hot reload' thing on github?", []string{"search_issues"}},
	{"log a bug in octocat/hello-world: signup button does nothing on Safari", []string{"create_issue"}},
	{"which files did PR 482 in kubernetes/ingress-nginx touch?", []string{"get_pull_request_files"}},
	{"are the CI builds passing on my PR #57 in acme/api yet", []string{"get_pull_request_status"}},
	{"squash and ship PR 12 in my dotfiles repo", []string{"merge_pull_request"}},
	{"find me some well-liked rust projects on github for parsing toml", []string{"search_repositories"}},
	{"where in golang/go do they call MaxBytesReader", []string{"search_code"}},
	{"I want my own copy of facebook/react under my account to hack on", []string{"fork_repository"}},
	{"close out issue 301 in mylab/api and slap the wontfix label on it", []string{"update_issue"}},
	{"reply on issue #88 in acme/cli letting them know the fix lands in v2.3", []string{"add_issue_comment"}},
	{"give PR 19 in team/payments a thumbs-up approval, say looks good to me", []string{"create_pull_request_review"}},
	{"what nitpicks did people leave on PR 204 in acme/web?", []string{"get_pull_request_comments", "get_pull_request_reviews"}},
	{"PR 31 in acme/api is way behind main now, can you sync it up", []string{"update_pull_request_branch"}},
	{"open a PR to get my feature/login-fix branch into main", []string{"create_pull_request", "create_merge_request"}},
	{"commit these three config files to my github repo together as one change", []string{"push_files"}},
	{"spin up a new private github repo called budget-tracker", []string{"create_repository"}},

	// everything
	{"what's 4821 plus 9377", []string{"get-sum"}},
	{"just say back 'ping from staging' so I know the server's alive", []string{"echo"}},
	{"dump the env vars the MCP server sees, I think PATH is messed up", []string{"get-env"}},
	{"squish this log text into a .gz I can download", []string{"gzip-file-as-resource"}},
	{"run a fake slow job with 5 steps so I can watch it count up", []string{"trigger-long-running-operation"}},
	{"gimme a small sample picture to test rendering", []string{"get-tiny-image"}},
	{"fake a thorough investigation into solar panel efficiency for a demo", []string{"simulate-research-query"}},
	{"have the server pop up a form asking me for some input", []string{"trigger-elicitation-request", "trigger-elicitation-request-async"}},

	// filesystem
	{"show me the last 50 lines of /var/log/app/server.log", []string{"read_text_file", "read_file"}},
	{"look at the screenshot at ~/Desktop/bug.png", []string{"read_media_file"}},
	{"compare package.json and tsconfig.json for me", []string{"read_multiple_files"}},
	{"change the name of notes/draft.md to notes/final-report.md", []string{"move_file"}},
	{"hunt down every .env file anywhere under ~/code", []string{"search_files"}},
	{"what's hogging space in my Downloads folder", []string{"list_directory_with_sizes"}},
	{"in server.js swap port 3000 for 8080", []string{"edit_file"}},
	{"which folders on my machine can you actually get into?", []string{"list_allowed_directories"}},

	// gitlab
	{"open an MR on gitlab from feature/search into develop", []string{"create_merge_request"}},
	{"new private gitlab project called infra-scripts with a readme to start", []string{"gitlab_create_repository"}},
	{"what does the .gitlab-ci.yml look like in our backend project on gitlab", []string{"gitlab_get_file_contents"}},
	{"raise a ticket on our gitlab about the nightly build breaking", []string{"gitlab_create_issue"}},
	{"cut a release-1.4 branch from main in the gitlab project", []string{"gitlab_create_branch"}},

	// memory
	{"remember that Priya is my manager and she works at Stripe", []string{"create_entities", "create_relations"}},
	{"jot down that Sam is allergic to peanuts, you already know Sam", []string{"add_observations"}},
	{"what do you remember about my Lisbon trip plans?", []string{"search_nodes"}},
	{"I quit coffee, so forget that bit about my morning latte", []string{"delete_observations"}},
	{"show me everything you've got stored about me and my stuff", []string{"read_graph"}},

	// pdf
	{"which PDFs can you get to right now?", []string{"list_pdfs"}},
	{"pull up the lease agreement pdf so I can flip through it", []string{"display_pdf"}},
	{"mark every spot that says 'termination fee' in the contract I've got open", []string{"interact"}},
	{"fill in my name and address on the W-9 pdf", []string{"interact", "display_pdf"}},

	// slack
	{"let #deploys know v4.2 is out", []string{"slack_post_message"}},
	{"what's been going on in #general today", []string{"slack_get_channel_history"}},
	{"thumbs-up Maria's last message in #random", []string{"slack_add_reaction"}},
	{"answer in that outage thread that I'll take it tomorrow", []string{"slack_reply_to_thread"}},
	{"who is Ben on slack, what's his title and timezone", []string{"slack_get_user_profile", "slack_get_users"}},

	// google-maps
	{"how long's the drive from Boston to Portland, Maine", []string{"maps_directions", "maps_distance_matrix"}},
	{"I'm at 40.7128, -74.0060, what street is that", []string{"maps_reverse_geocode"}},
	{"how high above sea level is Denver", []string{"maps_elevation"}},
	{"find sushi spots near Shibuya station", []string{"maps_search_places", "brave_local_search"}},

	// brave-search
	{"what's the latest news on the EU AI act", []string{"brave_web_search"}},
	{"any good vegan bakeries in Austin?", []string{"brave_local_search", "maps_search_places"}},

	// postgres
	{"how many orders came in last week? check the database", []string{"query"}},

	// sequential-thinking
	{"walk through this slowly with me, revising as we go: should we split our monolith into services?", []string{"sequentialthinking"}},
}

// TestSearchQualityBlind3 reports recall@5 over blind3 and holds it to
// its floor.
func TestSearchQualityBlind3(t *testing.T) {
	holdToFloor(t, "blind3", blind3, 40, blind3Floor)
}

// blind3Floor is blind3's recall@5 as measured once, on the scorer of
// 2026-12-04 that blind's and blind2's misses tuned (blind_test.go),
// rounded down to 5 %: 72.9 % (43 of 59; first 44.1 %, 26). Its misses
// tuned the next changes (paths and identifiers are names, and the
// vocabulary of CI, reviews and places): it is tuning data since, at
// 96.6 % (first 59.3 %), and blind4 is the blind set.
const blind3Floor = 0.70
