package toolsearch

import "testing"

// blind7 are tasks written on 2026-12-04, a seventh blind set: phrased as
// users of an assistant ask, from the real set's tool list alone, without
// reading the scorer or the other sets' phrasings or misses, and
// committed before they were run.
var blind7 = []struct {
	ask   string
	tools []string
}{
	// github
	{"Open a ticket on acme-corp/billing-service titled 'Invoice PDF shows wrong VAT for EU customers' and tag it bug", []string{"create_issue"}},
	{"what's still open in facebook/react with the 'Type: Bug' label? just the 20 newest", []string{"list_issues", "search_issues"}},
	{"Close #412 in vercel-clone/dashboard, the last release fixed it", []string{"update_issue"}},
	{"Drop a note on issue 88 in tokio-rs/mio saying we can reproduce it on macOS 14.2 with kqueue", []string{"add_issue_comment"}},
	{"Can you pull up rust-lang/cargo #1337 and tell me what the reporter is actually asking for?", []string{"get_issue"}},
	{"Are there any decent self-hosted RSS readers written in Go on GitHub? sort by stars", []string{"search_repositories"}},
	{"Make me a new private repo called dotfiles-2027, initialized with a README", []string{"create_repository"}},
	{"Fork kubernetes/kube-state-metrics into our platform-team org so we can patch it", []string{"fork_repository"}},
	{"cut release/v2.4 off main in shopmate/api", []string{"create_branch"}},
	{"show me the last 10 commits on develop in pallets/flask", []string{"list_commits"}},
	{"What does the Dockerfile at the root of hashicorp/vault look like on main?", []string{"get_file_contents"}},
	{"what's inside the docs/ folder of octocat/Hello-World?", []string{"get_file_contents"}},
	{"Change CONTRIBUTING.md in my jlopez/tiny-lexer repo to say we now require signed commits, commit it straight to main", []string{"create_or_update_file", "push_files"}},
	{"Commit src/index.ts, src/config.ts and package.json to the feature/auth branch of nimbus/web together, message 'wire up OAuth'", []string{"push_files"}},
	{"Open a PR in nimbus/web from feature/auth into main called 'Add OAuth login', keep it as a draft for now", []string{"create_pull_request"}},
	{"Where in the grafana org's code is parseDurationString defined?", []string{"search_code"}},
	{"Has anyone else hit ERR_OSSL_EVP_UNSUPPORTED? find issues or PRs on GitHub that mention it", []string{"search_issues"}},
	{"Look up GitHub accounts of people in Lisbon with 'rustacean' in their profile, most followers first", []string{"search_users"}},
	{"Give me the rundown on django/django PR #5621 — who opened it and is it mergeable?", []string{"get_pull_request"}},
	{"Which PRs are open against main in orbit-labs/mobile-app right now?", []string{"list_pull_requests", "search_issues"}},
	{"Approve PR 231 in orbit-labs/mobile-app with 'LGTM, nice cleanup'", []string{"create_pull_request_review"}},
	{"squash-merge #98 in acme-corp/billing-service, it's green", []string{"merge_pull_request"}},
	{"Which files did vitejs/vite PR #4410 touch?", []string{"get_pull_request_files"}},
	{"Is CI passing on PR 77 in shopmate/api yet?", []string{"get_pull_request_status"}},
	{"PR #512 in shopmate/api is way behind main — can you bring it up to date with the base?", []string{"update_pull_request_branch"}},
	{"What line-by-line comments did people leave on the diff in prometheus/alertmanager PR 1290?", []string{"get_pull_request_comments"}},
	{"Has anyone approved or requested changes on #64 in jlopez/tiny-lexer?", []string{"get_pull_request_reviews"}},

	// gitlab
	{"On our GitLab, edit .gitlab-ci.yml in infra/terraform-modules to add a 'validate' stage and commit it to main", []string{"gitlab_create_or_update_file", "gitlab_push_files"}},
	{"search our gitlab for projects with 'helm-charts' in the name", []string{"gitlab_search_repositories"}},
	{"Create a new internal GitLab project called payments-reconciler, with a README", []string{"gitlab_create_repository"}},
	{"Show me config/settings.yml on the staging ref of gitlab project 4821", []string{"gitlab_get_file_contents"}},
	{"Push db/migrate/001_init.sql and db/migrate/002_users.sql to the schema branch of data/warehouse on GitLab as one commit", []string{"gitlab_push_files"}},
	{"File a gitlab issue in mobile/ios-app: 'Crash on launch on iOS 17.1 when offline', label it crash", []string{"gitlab_create_issue"}},
	{"Open an MR from fix/token-refresh to develop in group/auth-service", []string{"create_merge_request"}},
	{"fork gitlab-org/gitlab-runner on gitlab into my personal namespace", []string{"gitlab_fork_repository"}},
	{"make a hotfix-2.3.1 branch off the v2.3.0 tag in our gitlab project web/storefront", []string{"gitlab_create_branch"}},

	// filesystem
	{"What's in ~/projects/blog/config.toml?", []string{"read_text_file", "read_file"}},
	{"show me the last 50 lines of /var/log/app/server.log", []string{"read_text_file", "read_file"}},
	{"Take a look at the screenshot ~/Desktop/error-dialog.png and tell me what the error says", []string{"read_media_file"}},
	{"Compare src/api/v1/handlers.go with src/api/v2/handlers.go and tell me what changed", []string{"read_multiple_files"}},
	{"Save this as notes/meeting-2026-12-04.md: 'Decided to ship the beta on Jan 15, Ravi owns QA.'", []string{"write_file"}},
	{"In docker-compose.yml, bump the postgres image from 13 to 16 — don't touch anything else", []string{"edit_file"}},
	{"set up src/components/forms and src/hooks folders for me", []string{"create_directory"}},
	{"what's in the ./scripts folder?", []string{"list_directory", "list_directory_with_sizes"}},
	{"Which files in ~/Downloads are hogging the most space?", []string{"list_directory_with_sizes"}},
	{"Give me the whole nested layout of packages/ in the monorepo, skip node_modules", []string{"directory_tree"}},
	{"rename utils/helpers.js to utils/string-helpers.js", []string{"move_file"}},
	{"Find every .proto file anywhere under ~/work/platform", []string{"search_files"}},
	{"When was /etc/nginx/nginx.conf last changed, and who can write to it?", []string{"get_file_info"}},
	{"Which folders on my machine are you actually allowed to get at?", []string{"list_allowed_directories"}},

	// google-maps
	{"What are the lat/long for 1600 Amphitheatre Parkway, Mountain View?", []string{"maps_geocode"}},
	{"what's the street address at 48.8584, 2.2945?", []string{"maps_reverse_geocode"}},
	{"Find coffee shops within 500m of Union Square in San Francisco", []string{"maps_search_places", "brave_local_search"}},
	{"Is the place with id ChIJN1t_tDeuEmsRUsoyG83frY4 open on Sundays, and what's its phone number and rating?", []string{"maps_place_details"}},
	{"How long is the drive from each of our warehouses in Newark, Edison and Secaucus to both JFK and LaGuardia? I want a grid", []string{"maps_distance_matrix"}},
	{"How high above sea level are 39.7392,-104.9903 and 39.2508,-106.2925?", []string{"maps_elevation"}},
	{"Walking route from the Colosseum to the Trevi Fountain please", []string{"maps_directions"}},
	{"how far is it by bike from Amsterdam Centraal to Vondelpark, and how long would it take?", []string{"maps_directions", "maps_distance_matrix"}},

	// brave-search
	{"What's the latest news on EU AI Act enforcement this week?", []string{"brave_web_search"}},
	{"any 24-hour pharmacies near downtown Portland, OR?", []string{"brave_local_search", "maps_search_places"}},
	{"look online for benchmarks comparing Bun vs Deno HTTP throughput", []string{"brave_web_search"}},

	// memory
	{"New person to keep track of: my sister Priya, pediatrician in Austin, birthday March 3", []string{"create_entities"}},
	{"Keep in mind that Dana works at Stripe and reports to Marcus", []string{"create_relations"}},
	{"Update what you know about Project Falcon: launch slipped to February and the budget is now $240k", []string{"add_observations"}},
	{"Forget my old landlord Greg completely, wipe him out", []string{"delete_entities"}},
	{"You have me down as vegetarian — that's not true anymore, drop that detail", []string{"delete_observations"}},
	{"Jordan isn't on the Berlin team anymore, remove that connection", []string{"delete_relations"}},
	{"Dump everything you've stored about me and my stuff so I can review it", []string{"read_graph"}},
	{"what do you remember that has anything to do with kubernetes?", []string{"search_nodes"}},
	{"Pull up what you've saved on 'Acme Corp' and 'Sarah Chen'", []string{"open_nodes", "search_nodes"}},

	// slack
	{"what channels do we have in the workspace?", []string{"slack_list_channels"}},
	{"post in #deploys that v3.2.0 goes out at 4pm", []string{"slack_post_message"}},
	{"Respond under the outage message in #incidents (ts 1733312345.001200) that the fix is deployed", []string{"slack_reply_to_thread"}},
	{"Put a :white_check_mark: on message 1733300000.000400 in #ops", []string{"slack_add_reaction"}},
	{"What's been going on in #general today?", []string{"slack_get_channel_history"}},
	{"Catch me up on the responses to Tom's Q1 roadmap thread in #product (ts 1733290011.000900)", []string{"slack_get_thread_replies"}},
	{"I need a list of everyone in our Slack with their names", []string{"slack_get_users"}},
	{"What's Aisha's title and timezone? her user ID is U04ABC123", []string{"slack_get_user_profile"}},

	// pdf
	{"Which PDFs have you got that you can show me?", []string{"list_pdfs"}},
	{"Open https://arxiv.org/pdf/1706.03762 so I can read it here", []string{"display_pdf"}},
	{"In the contract I have open, highlight every 'termination' in yellow", []string{"interact"}},
	{"On the W-9 that's up, put 'Maria Gonzalez' in the name field and tick individual/sole proprietor", []string{"interact"}},
	{"Stamp APPROVED on page 1 of the invoice I'm looking at and save it as ~/Documents/invoice-approved.pdf", []string{"interact"}},
	{"what page am I on in the viewer, and what's the text I just selected?", []string{"interact"}},
	{"Grab the text from pages 3 to 7 of the report that's open", []string{"interact"}},

	// postgres
	{"How many users signed up in November? table is users, column created_at", []string{"query"}},
	{"what tables are in the public schema of our database?", []string{"query"}},
	{"Top 10 customers by total order value from the orders table", []string{"query"}},

	// sequential-thinking
	{"Let's reason through this carefully, step by step, revising as we go: how do I carve the billing module out of our monolith with zero downtime?", []string{"sequentialthinking"}},
	{"Work through this puzzle slowly and backtrack if a step doesn't hold up: five houses, five owners, who keeps the fish?", []string{"sequentialthinking"}},

	// everything
	{"ping the test server with 'hello from cursor' and show me exactly what it sends back", []string{"echo"}},
	{"Show me a sample error message with priority/audience metadata attached, include the image too", []string{"get-annotated-message"}},
	{"What env vars does the MCP server process actually see? I think my API key isn't being passed through", []string{"get-env"}},
	{"give me a handful of links to sample resources from the demo server, like 5", []string{"get-resource-links"}},
	{"Get me a reference to text resource #42 from the test server", []string{"get-resource-reference"}},
	{"Return the weather for Chicago as typed output with a schema so I can test validation in my client", []string{"get-structured-content"}},
	{"Have the demo server add 1847 and 2963", []string{"get-sum"}},
	{"Send back that little MCP logo picture, I'm checking image rendering in my client", []string{"get-tiny-image"}},
	{"Compress this README text into a .gz called readme.gz and give me a link to download it", []string{"gzip-file-as-resource"}},
	{"turn on the fake random log messages from the demo server", []string{"toggle-simulated-logging"}},
	{"Start pushing the simulated update notifications for subscribed resources", []string{"toggle-subscriber-updates"}},
	{"Kick off a 10-step job that runs about 30 seconds so I can watch the progress bar", []string{"trigger-long-running-operation"}},
	{"What roots has my client shared with the server?", []string{"get-roots-list"}},
	{"Have the server pop up a form asking me for some info — testing my client's ask-the-user dialog", []string{"trigger-elicitation-request", "trigger-elicitation-request-async"}},
	{"Test the flow where the server sends me off to https://auth.example.com/consent in a browser to finish up", []string{"trigger-url-elicitation"}},
	{"Make the server ask my client's model to write a haiku about autumn, 100 tokens max", []string{"trigger-sampling-request", "trigger-sampling-request-async"}},
	{"Run the fake deep-research thing on 'solid-state batteries' and make it ask me a clarifying question first", []string{"simulate-research-query"}},
	{"Test background-task generation: the server asks my client to write a summary as a background job and polls until it's done", []string{"trigger-sampling-request-async"}},
	{"I need to test user-input requests that my client handles as a background task while the server polls for the answer", []string{"trigger-elicitation-request-async"}},
}

// TestSearchQualityBlind7 reports recall@5 over blind7 and holds it to
// its floor.
func TestSearchQualityBlind7(t *testing.T) {
	holdToFloor(t, "blind7", blind7, 50, blind7Floor)
}

// blind7Floor is blind7's recall@5 as measured once, on the scorer of
// 2026-12-04 that blind6's misses tuned (f642836), rounded down to 5 %:
// 97.2 % (106 of 109; first 63.3 %, 69). The set was written by a helper
// from the real set's tool list alone, and committed before it was run.
// Helpers write alike: 64 of its tasks share at least 40 % of their
// words (over two letters) with an earlier task for the same tool; of
// the 45 others, 42 found their tool (93.3 %), and of the 20 that share
// under 25 %, 19. blind6, first run, scored 50 of 53, 33 of 36 and 11 of
// 18 on the same three parts.
const blind7Floor = 0.95
