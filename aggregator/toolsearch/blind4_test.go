package toolsearch

import "testing"

// blind4 are tasks written on 2026-12-04, a fourth blind set: phrased as
// users of an assistant ask, from the real set's tool list alone, without
// reading the scorer or the other sets' phrasings or misses, and
// committed before they were run.
var blind4 = []struct {
	ask   string
	tools []string
}{
	// github
	{"open an issue on acme/webapp saying the login page crashes on Safari 17", []string{"create_issue"}},
	{"what's still open in kubernetes/kubernetes with the sig/network label?", []string{"list_issues", "search_issues"}},
	{"close #482 in dana/notes-cli, it got fixed in the last release", []string{"update_issue"}},
	{"leave a note on issue 77 in octo/widgets that I can reproduce it on Ubuntu 24.04", []string{"add_issue_comment"}},
	{"find me popular Rust projects on GitHub for parsing TOML", []string{"search_repositories"}},
	{"where is parseTimeZone called anywhere in golang/go?", []string{"search_code"}},
	{"can you find Mitchell Hashimoto's GitHub account?", []string{"search_users"}},
	{"show me the README of facebook/react on main", []string{"get_file_contents"}},
	{"make me a new private repo called infra-scratch, initialized with a README", []string{"create_repository"}},
	{"fork vercel/next.js into our acme-labs org", []string{"fork_repository"}},
	{"cut a feature/dark-mode branch off develop in acme/webapp", []string{"create_branch"}},
	{"what went into the release-2.3 branch of acme/api recently? show me the commit log", []string{"list_commits"}},
	{"open a PR from feature/dark-mode into main on acme/webapp titled \"Add dark mode\"", []string{"create_pull_request"}},
	{"which files did PR #1290 in acme/api change?", []string{"get_pull_request_files"}},
	{"is CI green on pull request 58 in acme/webapp?", []string{"get_pull_request_status"}},
	{"squash and merge PR 214 in acme/api", []string{"merge_pull_request"}},
	{"approve #33 on dana/notes-cli with a quick LGTM", []string{"create_pull_request_review"}},
	{"PR 901 in acme/webapp is way behind main, rebase it onto the latest base please", []string{"update_pull_request_branch"}},
	{"what did the reviewers say inline on PR 45 in octo/widgets?", []string{"get_pull_request_comments", "get_pull_request_reviews"}},
	{"commit src/a.go, src/b.go and go.mod to the fix-deps branch of acme/api as one commit", []string{"push_files"}},
	{"bump the version in package.json to 2.1.0 directly on GitHub in acme/webapp", []string{"create_or_update_file", "push_files"}},
	{"which pull requests are open against main in acme/webapp right now?", []string{"list_pull_requests", "search_issues"}},
	{"give me the details of issue #12 in dana/notes-cli", []string{"get_issue"}},
	{"who opened rust-lang/rust PR 3001 and what's it about?", []string{"get_pull_request"}},

	// gitlab
	{"on GitLab, open an MR from feature/cache into main in project 4821", []string{"create_merge_request"}},
	{"file a bug in our gitlab project group/backend: \"Redis timeout in staging\"", []string{"gitlab_create_issue"}},
	{"search gitlab for terraform module projects", []string{"gitlab_search_repositories"}},
	{"grab .gitlab-ci.yml from mygroup/pipeline on the develop ref", []string{"gitlab_get_file_contents"}},
	{"set up a new internal gitlab project named data-pipelines", []string{"gitlab_create_repository"}},
	{"fork gitlab project 1337 into my namespace", []string{"gitlab_fork_repository"}},
	{"create hotfix/1.4.2 from main in gitlab project 99", []string{"gitlab_create_branch"}},
	{"edit CHANGELOG.md in gitlab project 4821 on main, commit message \"release notes for 3.0\"", []string{"gitlab_create_or_update_file", "gitlab_push_files"}},
	{"push these four migration files to the db-migrations branch on gitlab in a single commit", []string{"gitlab_push_files"}},

	// slack
	{"post \"deploy finished ✅\" in #releases", []string{"slack_post_message"}},
	{"answer Sam's outage thread in #incidents and tell them we're on it", []string{"slack_reply_to_thread"}},
	{"put a :thumbsup: on the last message in #general", []string{"slack_add_reaction"}},
	{"what have people been saying in #support today?", []string{"slack_get_channel_history"}},
	{"show me everyone's responses in the thread about the Q4 offsite", []string{"slack_get_thread_replies"}},
	{"what channels do we have in our slack?", []string{"slack_list_channels"}},
	{"who's in the slack workspace?", []string{"slack_get_users"}},
	{"what's U024BE7LH's job title and timezone on slack?", []string{"slack_get_user_profile"}},

	// google-maps
	{"what are the lat/long of 1600 Amphitheatre Parkway, Mountain View?", []string{"maps_geocode"}},
	{"what's the street address at 48.8584, 2.2945?", []string{"maps_reverse_geocode"}},
	{"find ramen spots within 2km of Shibuya station", []string{"maps_search_places", "brave_local_search"}},
	{"opening hours and phone number for place ChIJN1t_tDeuEmsRUsoyG83frY4?", []string{"maps_place_details"}},
	{"how long is the drive from Boston to NYC vs Boston to Philly?", []string{"maps_distance_matrix", "maps_directions"}},
	{"how high above sea level is Denver?", []string{"maps_elevation"}},
	{"walking route from the Louvre to Notre-Dame please", []string{"maps_directions"}},

	// brave-search
	{"search the web for the latest news on the EU AI Act", []string{"brave_web_search"}},
	{"any good coffee shops open now near Union Square SF?", []string{"brave_local_search", "maps_search_places"}},
	{"what are people saying online about Go 1.23 range-over-func iterators?", []string{"brave_web_search"}},
	{"google this for me: ECONNRESET socket hang up node 20", []string{"brave_web_search"}},

	// postgres
	{"how many users signed up last week? it's the users table, created_at column", []string{"query"}},
	{"what tables are in our postgres db?", []string{"query"}},
	{"top 10 customers by total order value from the database", []string{"query"}},

	// filesystem
	{"what's in ~/projects/blog/config.yaml?", []string{"read_text_file", "read_file"}},
	{"show me the last 50 lines of /var/log/app/server.log", []string{"read_text_file", "read_file"}},
	{"open src/main.go and src/util.go side by side so we can compare them", []string{"read_multiple_files", "read_text_file"}},
	{"take a look at this screenshot: /home/me/Pictures/bug.png", []string{"read_media_file"}},
	{"save this as notes/todo.md: buy milk, call the bank, renew passport", []string{"write_file"}},
	{"in config/app.toml change port = 8080 to port = 9090", []string{"edit_file"}},
	{"make the folders build/output/logs", []string{"create_directory"}},
	{"what's in my Downloads folder?", []string{"list_directory", "list_directory_with_sizes"}},
	{"which files in ~/Videos are eating up the most space?", []string{"list_directory_with_sizes"}},
	{"show me the whole layout of this project, skip node_modules", []string{"directory_tree"}},
	{"rename draft.txt to final.txt", []string{"move_file"}},
	{"find every .proto file anywhere under /srv/api", []string{"search_files"}},
	{"when was report.xlsx last modified, and how big is it?", []string{"get_file_info"}},
	{"which folders on my machine are you allowed to touch?", []string{"list_allowed_directories"}},

	// memory
	{"remember that my sister Priya lives in Toronto and works as a nurse", []string{"create_entities", "add_observations"}},
	{"keep in mind that Alice manages Bob", []string{"create_relations"}},
	{"update what you know about Project Falcon: the deadline moved to March", []string{"add_observations"}},
	{"forget everything you stored about my old employer Initech", []string{"delete_entities"}},
	{"I'm not vegetarian anymore, take that out of what you remember about me", []string{"delete_observations"}},
	{"Bob doesn't report to Alice anymore, drop that link between them", []string{"delete_relations"}},
	{"dump everything you've remembered so far", []string{"read_graph"}},
	{"what do you remember about kubernetes?", []string{"search_nodes"}},
	{"pull up your saved notes on Priya and Project Falcon", []string{"open_nodes", "search_nodes"}},

	// pdf
	{"what PDFs do you have that I can open?", []string{"list_pdfs"}},
	{"open the Q3 financial report PDF so I can look at it", []string{"display_pdf"}},
	{"show me https://arxiv.org/pdf/1706.03762 starting on page 3", []string{"display_pdf"}},
	{"highlight every mention of \"indemnification\" in the contract I have open", []string{"interact"}},
	{"fill in my name and today's date on the open W-9 and save it to ~/Documents/w9-filled.pdf", []string{"interact"}},
	{"stamp CONFIDENTIAL on page 1 of the document in the viewer", []string{"interact"}},
	{"what page am I on in the viewer, and what text do I have selected?", []string{"interact"}},
	{"pull the text out of pages 2 to 5 of the PDF I'm looking at", []string{"interact"}},

	// everything
	{"just echo back \"ping 123\" so I know the connection works", []string{"echo"}},
	{"what environment variables does the MCP server see? I think PATH is wrong", []string{"get-env"}},
	{"what's 4821 + 3377?", []string{"get-sum"}},
	{"show me that little test logo picture", []string{"get-tiny-image"}},
	{"gzip this log text and give me a link to download the compressed file", []string{"gzip-file-as-resource"}},
	{"turn on the fake logging so I can watch log messages come in", []string{"toggle-simulated-logging"}},
	{"start sending me the simulated resource update notifications", []string{"toggle-subscriber-updates"}},
	{"run a fake 10 second job with 5 steps so I can test my progress bar", []string{"trigger-long-running-operation"}},
	{"which MCP roots has my client shared with the server?", []string{"get-roots-list"}},
	{"pop up a form asking me for my name and favorite color", []string{"trigger-elicitation-request", "trigger-elicitation-request-async"}},
	{"send me to https://example.com/oauth in my browser to finish signing in", []string{"trigger-url-elicitation"}},
	{"have the server ask the model for a haiku about autumn, 100 tokens max", []string{"trigger-sampling-request", "trigger-sampling-request-async"}},
	{"kick off a sampling job that runs in the background on the client and poll until it finishes", []string{"trigger-sampling-request-async"}},
	{"do a pretend deep research run on solid state batteries", []string{"simulate-research-query"}},
	{"give me 5 sample resource links", []string{"get-resource-links"}},
	{"get me a reference to text resource number 7", []string{"get-resource-reference"}},
	{"return the weather for New York as structured output, I'm testing schema validation", []string{"get-structured-content"}},
	{"show me an example error message with annotations, and include an image", []string{"get-annotated-message"}},

	// sequential-thinking
	{"think this through step by step before answering: how should I shard a 2TB table across 4 nodes?", []string{"sequentialthinking"}},
	{"let's break this scheduling puzzle into steps and revise as we go if something doesn't fit", []string{"sequentialthinking"}},
}

// TestSearchQualityBlind4 reports recall@5 over blind4 and holds it to
// its floor.
func TestSearchQualityBlind4(t *testing.T) {
	holdToFloor(t, "blind4", blind4, 50, blind4Floor)
}

// blind4Floor is blind4's recall@5 as measured once, on the scorer of
// 2026-12-04 that blind3's misses tuned, rounded down to 5 %: 88.7 %
// (94 of 106; first 54.7 %, 58). The set was written by a helper from the
// real set's tool list alone, and committed before it was run.
const blind4Floor = 0.85
