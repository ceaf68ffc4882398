package toolsearch

import "testing"

// blind8 are tasks written on 2026-12-06, an eighth blind set: phrased as
// users of an assistant ask, from the real set's tool list alone (names,
// descriptions, parameters), without reading the scorer or the other
// sets' phrasings or misses, and committed before they were run.
var blind8 = []struct {
	ask   string
	tools []string
}{
	// github
	{"my build is red on PR 482 — are the CI checks still failing?", []string{"get_pull_request_status"}},
	{"which files did that pull request touch", []string{"get_pull_request_files"}},
	{"ship it: squash and land #17 into main", []string{"merge_pull_request"}},
	{"open a PR from feature/login-fix onto develop", []string{"create_pull_request"}},
	{"approve the PR with a short 'lgtm, nice cleanup'", []string{"create_pull_request_review"}},
	{"what did the reviewers write inline on the diff of #233?", []string{"get_pull_request_comments", "get_pull_request_reviews"}},
	{"has anyone signed off or asked for changes on my pull request yet", []string{"get_pull_request_reviews"}},
	{"my PR is behind main now, can you bring it up to date", []string{"update_pull_request_branch"}},
	{"show the open PRs targeting the release-2.0 branch", []string{"list_pull_requests"}},
	{"file a bug in acme/widgets: app crashes when you upload an empty csv", []string{"create_issue"}},
	{"close #88, it got fixed in yesterday's release", []string{"update_issue"}},
	{"relabel ticket 14 as needs-triage and hand it to dana", []string{"update_issue"}},
	{"leave a note on issue 301 that I can't reproduce it on macOS", []string{"add_issue_comment"}},
	{"what is issue #5 in torvalds/linux about?", []string{"get_issue"}},
	{"any open bugs in our repo tagged regression?", []string{"list_issues", "search_issues"}},
	{"has anybody anywhere on github reported 'segfault in libuv' before", []string{"search_issues"}},
	{"where is parseConfigYaml defined? grep across all of github", []string{"search_code"}},
	{"find the github profile of a dev named Jane Smith in Berlin", []string{"search_users"}},
	{"popular rust projects for building terminal UIs?", []string{"search_repositories"}},
	{"start a new private repo called infra-notes on my account", []string{"create_repository"}},
	{"make my own copy of facebook/react under our org", []string{"fork_repository"}},
	{"cut a hotfix-2.1 branch off main in the github repo", []string{"create_branch"}},
	{"what has been committed to main in the last few days?", []string{"list_commits"}},
	{"show me the README of vercel/next.js", []string{"get_file_contents"}},
	{"commit src/a.go, src/b.go and go.mod together to our GitHub repo as one commit", []string{"push_files"}},
	{"change CHANGELOG.md straight on github, branch main, add a line for v1.4", []string{"create_or_update_file"}},
	{"who opened pull 12 and what are its base and head?", []string{"get_pull_request"}},

	// gitlab
	{"open an MR in gitlab from feature-x into main", []string{"create_merge_request"}},
	{"raise a gitlab ticket about the flaky pipeline in project 4412", []string{"gitlab_create_issue"}},
	{"new gitlab project data-pipeline, internal visibility, with a readme", []string{"gitlab_create_repository"}},
	{"fork group/tooling on gitlab into my namespace", []string{"gitlab_fork_repository"}},
	{"branch off develop in our gitlab project, name it spike/cache", []string{"gitlab_create_branch"}},
	{"whats in config/settings.yml of the gitlab project at tag v3", []string{"gitlab_get_file_contents"}},
	{"look for gitlab repos about kubernetes operators", []string{"gitlab_search_repositories"}},
	{"push these 4 files to gitlab on main as a single commit", []string{"gitlab_push_files"}},
	{"edit .gitlab-ci.yml in project 77 and commit it with 'fix stage order'", []string{"gitlab_create_or_update_file"}},

	// filesystem
	{"what's in notes.txt?", []string{"read_text_file", "read_file"}},
	{"show me the last 20 lines of server.log", []string{"read_text_file", "read_file"}},
	{"take a look at screenshot.png for me", []string{"read_media_file"}},
	{"diff config.dev.json against config.prod.json, open both", []string{"read_multiple_files"}},
	{"save this as todo.md in the project folder", []string{"write_file"}},
	{"in main.py flip DEBUG = True to False", []string{"edit_file"}},
	{"mkdir -p src/components/forms", []string{"create_directory"}},
	{"ls the docs folder", []string{"list_directory", "list_directory_with_sizes"}},
	{"what's eating disk space in my downloads? biggest first", []string{"list_directory_with_sizes"}},
	{"give me the project's whole folder hierarchy as nested json, skip node_modules", []string{"directory_tree"}},
	{"rename draft.md to final.md", []string{"move_file"}},
	{"where are all the *.test.ts files in this codebase", []string{"search_files"}},
	{"when was report.xlsx last changed and how large is it?", []string{"get_file_info"}},
	{"which folders are you even permitted to touch on my machine?", []string{"list_allowed_directories"}},

	// memory
	{"remember that Alice is a backend engineer at Contoso", []string{"create_entities", "add_observations"}},
	{"note down that Bob reports to Alice", []string{"create_relations"}},
	{"add to what you know about project Phoenix: deadline slipped to March", []string{"add_observations"}},
	{"forget everything you stored about Carol", []string{"delete_entities"}},
	{"that fact about Dave liking tea is wrong, take it out of your memory", []string{"delete_observations"}},
	{"Alice doesn't manage Bob anymore, drop that link between them", []string{"delete_relations"}},
	{"dump everything you remember, the full graph", []string{"read_graph"}},
	{"do you recall anything related to kubernetes?", []string{"search_nodes"}},
	{"pull up your stored notes on Acme Corp and Globex", []string{"open_nodes", "search_nodes"}},

	// slack
	{"tell #general the deploy is done", []string{"slack_post_message"}},
	{"answer under Maria's question in that thread saying it's fixed", []string{"slack_reply_to_thread"}},
	{"thumbs-up that message in slack", []string{"slack_add_reaction"}},
	{"what's been going on in #incidents lately?", []string{"slack_get_channel_history"}},
	{"read me the whole discussion under that slack post", []string{"slack_get_thread_replies"}},
	{"which channels does our slack have", []string{"slack_list_channels"}},
	{"who's in our slack workspace?", []string{"slack_get_users"}},
	{"what's the job title and timezone of slack user U024BE7LH", []string{"slack_get_user_profile"}},

	// google-maps
	{"lat/long for 1600 Amphitheatre Parkway, Mountain View", []string{"maps_geocode"}},
	{"what street address is at 48.8584, 2.2945?", []string{"maps_reverse_geocode"}},
	{"coffee shops within 500 m of Union Square", []string{"maps_search_places", "brave_local_search"}},
	{"opening hours and phone number for place ChIJN1t_tDeuEmsRUsoyG83frY4", []string{"maps_place_details"}},
	{"how long is the drive from each of our 3 warehouses to each of these 5 stores", []string{"maps_distance_matrix"}},
	{"how high above sea level is Denver", []string{"maps_elevation"}},
	{"walking route from my hotel to the Louvre, turn by turn pls", []string{"maps_directions"}},
	{"how far is Berlin from Munich, and how long by car?", []string{"maps_distance_matrix", "maps_directions"}},

	// brave-search
	{"google the latest news on the EU AI Act", []string{"brave_web_search"}},
	{"what are people online saying about htmx these days", []string{"brave_web_search"}},
	{"any good ramen places near me?", []string{"brave_local_search", "maps_search_places"}},
	{"search the web for rust async runtime benchmarks", []string{"brave_web_search"}},

	// postgres
	{"how many rows are in the orders table?", []string{"query"}},
	{"pull the top 10 customers by revenue out of the db", []string{"query"}},
	{"check the database for users who signed up last week", []string{"query"}},

	// sequential-thinking
	{"let's reason through this step by step before you answer", []string{"sequentialthinking"}},
	{"break this tricky architecture decision down and think it through, revising as you go", []string{"sequentialthinking"}},

	// pdf
	{"open the quarterly report pdf so I can look at it", []string{"display_pdf"}},
	{"which PDFs can you show me?", []string{"list_pdfs"}},
	{"highlight the paragraph about revenue on page 3 of the pdf I have open", []string{"interact"}},
	{"fill in the form fields on that open pdf with my name and adress", []string{"interact"}},
	{"put my signature on the contract in the pdf viewer", []string{"interact"}},
	{"jump to page 12 in the document I'm viewing", []string{"interact"}},

	// everything
	{"repeat back exactly what I type: hello world", []string{"echo"}},
	{"add 17 and 25", []string{"get-sum"}},
	{"what env vars is the mcp server running with? debugging its config", []string{"get-env"}},
	{"send me a small picture of the logo", []string{"get-tiny-image"}},
	{"compress this text into a .gz I can download", []string{"gzip-file-as-resource"}},
	{"turn on the fake log messages", []string{"toggle-simulated-logging"}},
	{"start or stop the simulated notifications when resources change", []string{"toggle-subscriber-updates"}},
	{"kick off a slow job that reports progress over 10 seconds in 5 steps", []string{"trigger-long-running-operation"}},
	{"what roots has the client exposed to the server?", []string{"get-roots-list"}},
	{"ask the user to fill in a form with some input", []string{"trigger-elicitation-request", "trigger-elicitation-request-async"}},
	{"have the client's model write a completion for this prompt", []string{"trigger-sampling-request", "trigger-sampling-request-async"}},
	{"send the user off to a login page in their browser", []string{"trigger-url-elicitation"}},
	{"do a deep research run on solid-state battery chemistry", []string{"simulate-research-query"}},
	{"give me a message carrying priority and audience metadata", []string{"get-annotated-message"}},
	{"weather for Chicago, as typed json matching a schema", []string{"get-structured-content"}},
	{"give me a few links to different kinds of resources", []string{"get-resource-links"}},
	{"hand me a reference to resource number 3", []string{"get-resource-reference"}},
}

// TestSearchQualityBlind8 reports recall@5 over blind8 and holds it to
// its floor.
func TestSearchQualityBlind8(t *testing.T) {
	holdToFloor(t, "blind8", blind8, 50, blind8Floor)
}

// blind8Floor is blind8's recall@5 as measured once, on the scorer of
// 2026-12-04 (last changed in b23e684), rounded down to 5 %: 94.4 %
// (101 of 107; first 58.9 %, 63). The set was written by a helper from
// the real set's tool list alone, and committed before it was run.
// Helpers write alike: 100 of its tasks share at least 40 % of their
// words (over two letters) with an earlier task for the same tool, and
// 95 of them found their tool (95.0 %); of the 7 others, 6 (85.7 %), and
// of the 1 that shares under 25 %, none.
const blind8Floor = 0.90
