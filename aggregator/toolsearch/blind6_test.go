package toolsearch

import "testing"

// blind6 are tasks written on 2026-12-04, a sixth blind set: phrased as
// users of an assistant ask, from the real set's tool list alone, without
// reading the scorer or the other sets' phrasings or misses, and
// committed before they were run.
var blind6 = []struct {
	ask   string
	tools []string
}{
	// github
	{"bump the version in package.json to 2.4.1 straight on main in github.com/lena-dev/tinyqueue, no PR needed", []string{"create_or_update_file", "push_files"}},
	{"are there any decent rust libraries on github for parsing GPX tracks? I'd like a few repos to compare stars", []string{"search_repositories"}},
	{"make me a new private github repo called dotfiles-2027 and put a README in it so it isn't empty", []string{"create_repository"}},
	{"what's in the Dockerfile at the root of vercel/next.js on github?", []string{"get_file_contents"}},
	{"show me what's inside the docs/ folder of kubernetes/website on the release-1.30 branch", []string{"get_file_contents"}},
	{"commit src/app.ts, src/routes.ts and tests/routes.test.ts together as one commit on feature/auth in our github repo shopwise/backend", []string{"push_files"}},
	{"open a bug on github in acme/payments-api: checkout crashes with a 500 when the cart is empty", []string{"create_issue"}},
	{"I'm done with the dark-mode branch. open a PR into main for jdoe/notes-app, title 'Add dark mode toggle'", []string{"create_pull_request"}},
	{"we need our own copy of facebook/react under the frontend-guild org so we can carry a patch", []string{"fork_repository"}},
	{"cut hotfix/login-timeout off release-3.2 in shopwise/backend on github", []string{"create_branch"}},
	{"what landed on main in torvalds/linux recently? just the last 20 commits or so", []string{"list_commits"}},
	{"show me the open 'good first issue' tickets in rust-lang/rustlings, my student wants something to start on", []string{"list_issues", "search_issues"}},
	{"close #482 in acme/payments-api, yesterday's deploy fixed it", []string{"update_issue"}},
	{"reassign github issue 77 in mapbox/tilekit to sam-ortiz and slap the 'needs-repro' label on it", []string{"update_issue"}},
	{"leave a note on grafana/loki issue 1093 that we can reproduce it on 2.9.3 as well", []string{"add_issue_comment"}},
	{"find me real examples on GitHub of Go code calling pgxpool.NewWithConfig", []string{"search_code"}},
	{"has anybody on github reported esbuild choking on top-level await inside web workers? search across all repos", []string{"search_issues"}},
	{"looking to hire: find GitHub people based in Lisbon who mostly write Elixir", []string{"search_users"}},
	{"what does issue #3021 in pallets/flask actually say? I only saw the title", []string{"get_issue"}},
	{"pull up PR 5567 in hashicorp/terraform. who opened it and is it still open?", []string{"get_pull_request"}},
	{"which PRs are open right now against develop in nimbus/ios-app?", []string{"list_pull_requests", "search_issues"}},
	{"approve pull 88 in acme/payments-api with 'LGTM, nice cleanup'", []string{"create_pull_request_review"}},
	{"squash and merge #231 in lena-dev/tinyqueue, checks are green", []string{"merge_pull_request"}},
	{"which files does django/django pull request 18902 touch? I want to know if migrations are in there", []string{"get_pull_request_files"}},
	{"is CI red or green on PR 77 of shopwise/frontend? don't want to merge a broken build", []string{"get_pull_request_status"}},
	{"PR 341 in shopwise/backend is way behind main, can you bring it up to date", []string{"update_pull_request_branch"}},
	{"what line-by-line comments did people leave on the diff in kelsey/blogengine#56?", []string{"get_pull_request_comments"}},
	{"has anyone signed off on apache/arrow PR 1200 yet or did someone request changes?", []string{"get_pull_request_reviews"}},

	// gitlab
	{"on our GitLab, change .gitlab-ci.yml in infra/pipelines to use the node:20 image and commit it to main", []string{"gitlab_create_or_update_file", "gitlab_push_files"}},
	{"search our gitlab for any project with billing in the name", []string{"gitlab_search_repositories"}},
	{"spin up a new GitLab project called data-contracts, internal visibility, with a readme", []string{"gitlab_create_repository"}},
	{"grab config/settings.yaml from gitlab project 4821 at the staging ref", []string{"gitlab_get_file_contents"}},
	{"push 0012_add_index.sql and 0013_backfill.sql in a single commit to branch db-tune in our gitlab project platform/db", []string{"gitlab_push_files"}},
	{"log a gitlab issue in mobile/android: push notifications stop arriving after the 5.3 update", []string{"gitlab_create_issue"}},
	{"open an MR on gitlab from feature/sso into main for group/webportal, keep it as a draft for now", []string{"create_merge_request"}},
	{"fork opensource/libcsv on gitlab into my personal namespace", []string{"gitlab_fork_repository"}},
	{"on gitlab: new branch release-2026.12 from main in ops/terraform-modules", []string{"gitlab_create_branch"}},

	// filesystem
	{"open ~/projects/api/.env.example and tell me which variables I still need to set", []string{"read_text_file", "read_file"}},
	{"last 50 lines of /var/log/app/server.log please, something crashed around midnight", []string{"read_text_file", "read_file"}},
	{"look at screenshots/error-dialog.png in my project and tell me what the popup says", []string{"read_media_file"}},
	{"compare config/dev.json, config/staging.json and config/prod.json and tell me what's different between them", []string{"read_multiple_files"}},
	{"create docs/CONTRIBUTING.md with a short section on how to run the test suite", []string{"write_file"}},
	{"in src/server.js change the port from 3000 to 8080. only that line, leave the rest alone", []string{"edit_file"}},
	{"set up the folders assets/img/icons and assets/fonts in my site project", []string{"create_directory"}},
	{"what's in my Downloads folder?", []string{"list_directory", "list_directory_with_sizes"}},
	{"my disk is almost full. which files in /home/priya/videos are the biggest?", []string{"list_directory_with_sizes"}},
	{"give me the whole folder layout of ./webapp, skip node_modules and .git", []string{"directory_tree"}},
	{"rename report_final_v3.docx to report-2026-Q4.docx", []string{"move_file"}},
	{"where are all the .proto files in this repo? they're scattered everywhere", []string{"search_files"}},
	{"when was budget.xlsx last changed and how big is it?", []string{"get_file_info"}},
	{"which folders on my computer are you actually allowed to get into?", []string{"list_allowed_directories"}},

	// everything
	{"just echo back 'ping 123' so I know the test server is alive", []string{"echo"}},
	{"use the test server to add 17 and 25", []string{"get-sum"}},
	{"print the env vars the MCP server process sees, I think its PATH is wrong", []string{"get-env"}},
	{"send me that little MCP logo picture from the demo server", []string{"get-tiny-image"}},
	{"compress this log text with gzip and give me a link to download it as trace.log.gz", []string{"gzip-file-as-resource"}},
	{"turn on the fake random log messages from the everything server, I want to test how my client shows them", []string{"toggle-simulated-logging"}},
	{"stop the pretend resource-changed notifications, they're flooding my client", []string{"toggle-subscriber-updates"}},
	{"kick off a slow job with 10 steps over 30 seconds so I can watch the progress bar in my client", []string{"trigger-long-running-operation"}},
	{"which roots did my client hand over to the server?", []string{"get-roots-list"}},
	{"have the server pop up a form asking me for input, I'm testing elicitation support in my client", []string{"trigger-elicitation-request"}},
	{"test the flow where the server sends me off to a browser page, use https://auth.example.com/consent", []string{"trigger-url-elicitation"}},
	{"have the server ask my client's model for a haiku about autumn, cap it at 100 tokens", []string{"trigger-sampling-request"}},
	{"run the fake deep-research demo on 'history of the transistor'", []string{"simulate-research-query"}},
	{"test background sampling: the server hands my client a prompt to run as a task and polls until it's done", []string{"trigger-sampling-request-async"}},
	{"I want to check that my client can collect user input as a background task while the server keeps polling for the answer", []string{"trigger-elicitation-request-async"}},
	{"give me 5 sample resource links from the demo server", []string{"get-resource-links"}},
	{"get a reference to text resource number 42 that my client can resolve", []string{"get-resource-reference"}},
	{"show me an example message carrying priority and audience annotations, the error kind, with the image included", []string{"get-annotated-message"}},
	{"I'm checking that my client validates outputSchema; call the demo tool that returns typed JSON for Chicago", []string{"get-structured-content"}},

	// memory
	{"start keeping track of a new client: Helix Robotics, Series B, based in Austin", []string{"create_entities"}},
	{"note that Jordan reports to Mei, and that Mei runs the Atlas project", []string{"create_relations"}},
	{"add to what you know about Helix Robotics: they moved to quarterly billing and Raj is their CTO now", []string{"add_observations"}},
	{"forget everything about the Orion project, it got cancelled", []string{"delete_entities"}},
	{"that bit you remembered about me being vegetarian, drop it, not true anymore. keep the rest about me", []string{"delete_observations"}},
	{"Jordan doesn't report to Mei anymore, remove that link between them", []string{"delete_relations"}},
	{"dump everything you've got stored about me and my projects so far", []string{"read_graph"}},
	{"do you have anything saved about my dentist?", []string{"search_nodes"}},
	{"pull up your notes on 'Helix Robotics' and 'Raj Patel'", []string{"open_nodes", "search_nodes"}},

	// pdf
	{"which PDFs can you show me?", []string{"list_pdfs"}},
	{"open https://example.com/docs/lease-2027.pdf so I can read through it with you", []string{"display_pdf"}},
	{"in the contract I've got open, highlight every place it says 'termination fee'", []string{"interact"}},
	{"fill in name and date on the W-9 that's up in the viewer: Dana Whitfield, 12/04/2026", []string{"interact"}},
	{"stamp APPROVED on page 1 of the invoice I'm looking at and save it as invoice-approved.pdf", []string{"interact"}},

	// slack
	{"what channels do we have in Slack?", []string{"slack_list_channels"}},
	{"post in #deploys that the 3pm release is pushed to 4:30", []string{"slack_post_message"}},
	{"answer Tom's thread in #support: the fix ships tomorrow morning", []string{"slack_reply_to_thread"}},
	{"put a ✅ on Priya's message in #ops so she knows I saw it", []string{"slack_add_reaction"}},
	{"catch me up on #incidents, what have people been posting the last few hours?", []string{"slack_get_channel_history"}},
	{"read me the whole back-and-forth under the outage announcement in #eng", []string{"slack_get_thread_replies"}},
	{"I need a list of everyone in our slack workspace for the offsite headcount", []string{"slack_get_users"}},
	{"what's U024BE7LH's title and time zone on slack? want to ping them at a sane hour", []string{"slack_get_user_profile"}},

	// google-maps
	{"lat/long for 1600 Amphitheatre Parkway, Mountain View?", []string{"maps_geocode"}},
	{"my GPS logger says 48.8584, 2.2945. what street address is that?", []string{"maps_reverse_geocode"}},
	{"find ramen shops within walking distance of Shinjuku station on google maps", []string{"maps_search_places"}},
	{"opening hours and phone number for the place with id ChIJN1t_tDeuEmsRUsoyG83frY4", []string{"maps_place_details"}},
	{"how long is the drive from each of our warehouses in Reno, Sacramento and Fresno to the San Jose store?", []string{"maps_distance_matrix"}},
	{"how high above sea level is Boulder, CO? planning a run and curious about the altitude", []string{"maps_elevation"}},
	{"walking route from the Colosseum to the Trevi Fountain please", []string{"maps_directions"}},

	// brave-search
	{"what's the latest on EU AI Act enforcement? anything new this week?", []string{"brave_web_search"}},
	{"look online for 2026 benchmarks comparing bun and deno", []string{"brave_web_search"}},
	{"any good pizza places near me in Williamsburg, Brooklyn that stay open late?", []string{"brave_local_search", "maps_search_places"}},

	// postgres
	{"how many users signed up last week? check the users table", []string{"query"}},
	{"what columns does the orders table have in our postgres db?", []string{"query"}},
	{"top 10 customers by total spend this year, from the reporting database", []string{"query"}},

	// sequential-thinking
	{"think this through step by step and feel free to revise as you go: how should we shard our 4TB events table?", []string{"sequentialthinking"}},
	{"I need a careful plan for splitting our monolith into services. break it down in stages, backtrack if something doesn't hold up", []string{"sequentialthinking"}},
}

// TestSearchQualityBlind6 reports recall@5 over blind6 and holds it to
// its floor.
func TestSearchQualityBlind6(t *testing.T) {
	holdToFloor(t, "blind6", blind6, 50, blind6Floor)
}

// blind6Floor is blind6's recall@5 as measured once, on the scorer of
// 2026-12-04 that blind5's misses tuned (2ac5d5c), rounded down to 5 %:
// 87.9 % (94 of 107; first 57.9 %, 62). The set was written by a helper
// from the real set's tool list alone, and committed before it was run.
// Three blind sets in a row came out at 88 % (blind4 88.7, blind5 88.3,
// blind6 87.9): that is this scorer's recall on phrasings it has not
// seen, under the 90 % target.
const blind6Floor = 0.85
