package toolsearch

import "testing"

// blind5 are tasks written on 2026-12-04, a fifth blind set: phrased as
// users of an assistant ask, from the real set's tool list alone, without
// reading the scorer or the other sets' phrasings or misses, and
// committed before they were run.
var blind5 = []struct {
	ask   string
	tools []string
}{
	// github
	{"fix the typo in README.md of lena/dotfiles on github ('recieve' -> 'receive') and commit it straight to main", []string{"create_or_update_file"}},
	{"is there a maintained Go client for the Proxmox API somewhere on GitHub?", []string{"search_repositories"}},
	{"make me a new private github repo called pantry-tracker, start it with a readme", []string{"create_repository"}},
	{"show me package.json from vercel/next.js on the canary branch", []string{"get_file_contents"}},
	{"what's inside the docs/ folder of astral-sh/uv on github?", []string{"get_file_contents"}},
	{"commit src/main.py, src/utils.py and requirements.txt to feature/etl in jkim/etl-jobs on GitHub, all as one commit", []string{"push_files"}},
	{"file a bug against tailwindlabs/heroicons: arrow-path is missing from the 24px solid set", []string{"create_issue"}},
	{"open a PR in acme/billing on github from fix/tax-rounding into main titled 'Round VAT to 2 decimals'", []string{"create_pull_request"}},
	{"I want my own copy of facebook/react under my GitHub account so I can hack on it", []string{"fork_repository"}},
	{"cut release/2.4 off develop in northwind/api on GitHub", []string{"create_branch"}},
	{"what landed on main in sindresorhus/got recently? show me the commit log", []string{"list_commits"}},
	{"which open bugs in pkaur/recipe-app on github have the 'good first issue' label?", []string{"list_issues", "search_issues"}},
	{"assign #219 in octocat/hello-world to mona and tag it p1", []string{"update_issue"}},
	{"tell the folks on grafana/loki issue 1043 that the fix shipped in v3.1.2", []string{"add_issue_comment"}},
	{"any github repos out there using useSyncExternalStore together with zustand? want to see real code", []string{"search_code"}},
	{"has anyone already reported a websocket memory leak in fastapi? check the github tracker", []string{"search_issues"}},
	{"find github folks based in Lagos who write Elixir", []string{"search_users"}},
	{"pull up microsoft/vscode #5521, what's it about and who's on it?", []string{"get_issue"}},
	{"who opened PR 88 in rust-lang/rustlings and did it ever get merged?", []string{"get_pull_request"}},
	{"what PRs are open against main in hashicorp/terraform-provider-aws right now?", []string{"list_pull_requests", "search_issues"}},
	{"approve #412 in acme/payments on github, comment 'LGTM, ship it'", []string{"create_pull_request_review"}},
	{"squash and merge pull request 57 in tomh/blogengine", []string{"merge_pull_request"}},
	{"which files does django/django PR #3021 touch?", []string{"get_pull_request_files"}},
	{"is CI green on PR 19 in sam/infra-terraform? don't want to merge with failing checks", []string{"get_pull_request_status"}},
	{"my PR #640 in openai/openai-python is behind main, pull the latest main into it", []string{"update_pull_request_branch"}},
	{"what line-by-line remarks did reviewers leave in the diff of pallets/flask PR 1287?", []string{"get_pull_request_comments"}},
	{"has anyone approved or requested changes on PR #77 in acme/mobile yet?", []string{"get_pull_request_reviews"}},

	// everything
	{"just echo back 'ping from staging' so I know the connection works", []string{"echo"}},
	{"show me an example of a content item carrying priority/audience annotations, the error kind, with the image attached", []string{"get-annotated-message"}},
	{"dump the env vars the MCP server process sees, I think MY_API_KEY isn't getting passed through", []string{"get-env"}},
	{"give me 5 sample resource links from the test server", []string{"get-resource-links"}},
	{"hand me a pointer to text resource 12 on the everything server", []string{"get-resource-reference"}},
	{"I'm testing schema validation in my client, return the typed JSON result for New York", []string{"get-structured-content"}},
	{"use the adding tool: 4821 plus 1379", []string{"get-sum"}},
	{"send me the little MCP logo test picture", []string{"get-tiny-image"}},
	{"gzip this log text and give me a link to download it as app.log.gz", []string{"gzip-file-as-resource"}},
	{"turn on the fake random log messages so I can check my client's log panel", []string{"toggle-simulated-logging"}},
	{"start the pretend resource-changed notifications, I'm debugging my subscription handling", []string{"toggle-subscriber-updates"}},
	{"kick off a dummy 10-step job lasting 30 seconds so I can watch the progress bar", []string{"trigger-long-running-operation"}},
	{"which roots has my MCP client told the server about?", []string{"get-roots-list"}},
	{"have the server pop up a form asking me for input, testing elicitation support in my client", []string{"trigger-elicitation-request"}},
	{"test the flow where the server sends me off to https://auth.example.com/login in my browser", []string{"trigger-url-elicitation"}},
	{"make the server ask my client's model to write a haiku about autumn, cap it at 100 tokens", []string{"trigger-sampling-request"}},
	{"run the fake deep-research demo on 'history of the bicycle'", []string{"simulate-research-query"}},
	{"try the background-task variant of sampling where the client generates and the server polls for the result", []string{"trigger-sampling-request-async"}},
	{"try the version of the user-input prompt that the client handles as a background task and the server polls", []string{"trigger-elicitation-request-async"}},

	// filesystem
	{"show me the last 50 lines of /var/log/nginx/error.log", []string{"read_text_file", "read_file"}},
	{"open ~/projects/api/config/settings.yaml and tell me what db host it points at", []string{"read_text_file", "read_file"}},
	{"look at screenshots/checkout-bug.png and tell me what's off in the UI", []string{"read_media_file"}},
	{"read src/auth/login.ts, src/auth/logout.ts and src/auth/session.ts together and compare how they handle tokens", []string{"read_multiple_files"}},
	{"save this as notes/meeting-2026-12-03.md", []string{"write_file"}},
	{"in docker-compose.yml bump the postgres image from 15 to 16, touch nothing else", []string{"edit_file"}},
	{"make the folders assets/img/icons inside my website project", []string{"create_directory"}},
	{"what's in ~/Downloads?", []string{"list_directory", "list_directory_with_sizes"}},
	{"which files in /data/exports are hogging the most space?", []string{"list_directory_with_sizes"}},
	{"give me the whole nested layout of frontend/, skip node_modules", []string{"directory_tree"}},
	{"rename report_final_v2.docx to report.docx in ~/Documents", []string{"move_file"}},
	{"find every .proto file anywhere under ~/work/monorepo", []string{"search_files"}},
	{"when was /etc/hosts last changed and what are its permissions?", []string{"get_file_info"}},
	{"which folders on my machine are you actually able to get at?", []string{"list_allowed_directories"}},

	// gitlab
	{"on our GitLab, add the 1.8.0 notes to CHANGELOG.md in infra/ansible-roles on main", []string{"gitlab_create_or_update_file"}},
	{"look on gitlab for any projects with terraform in the name", []string{"gitlab_search_repositories"}},
	{"spin up a new internal GitLab project called data-pipeline with a readme", []string{"gitlab_create_repository"}},
	{"what's in .gitlab-ci.yml for mobile/ios-app at tag v5.2?", []string{"gitlab_get_file_contents"}},
	{"push deployment.yaml, service.yaml and ingress.yaml to the deploy branch of gitlab project 4471 in one commit", []string{"gitlab_push_files"}},
	{"log a gitlab issue in platform/auth-service: token refresh fails after 24h, label it bug", []string{"gitlab_create_issue"}},
	{"open an MR on gitlab from feature/sso into develop in project 812, mark it draft", []string{"create_merge_request"}},
	{"fork gitlab.com/inkscape/inkscape into my namespace", []string{"gitlab_fork_repository"}},
	{"create hotfix/cve-2026-1234 from main in our GitLab project web/storefront", []string{"gitlab_create_branch"}},

	// memory
	{"remember that Priya Shah is our new account manager at Contoso", []string{"create_entities"}},
	{"in your memory, link Marco to Globex as someone who works there", []string{"create_relations"}},
	{"add to what you know about my sister Anna: she's allergic to peanuts and just moved to Lisbon", []string{"add_observations"}},
	{"forget Project Falcon entirely, it got cancelled", []string{"delete_entities"}},
	{"that thing you have saved about me preferring tabs over spaces is wrong, drop it", []string{"delete_observations"}},
	{"Tom doesn't manage Jess anymore, remove that connection from memory", []string{"delete_relations"}},
	{"dump everything you've got stored about me and my projects", []string{"read_graph"}},
	{"what do you remember that's related to Kubernetes?", []string{"search_nodes"}},
	{"pull up your saved entries for 'Alice Nguyen' and 'Acme Corp'", []string{"open_nodes"}},

	// pdf
	{"which PDFs can you open for me?", []string{"list_pdfs"}},
	{"open https://arxiv.org/pdf/1706.03762 so I can read it alongside you", []string{"display_pdf"}},
	{"in the contract I've got open, highlight the termination clause on page 4", []string{"interact"}},
	{"fill in name and date on the W-9 that's up in the viewer, then save it to ~/signed/w9.pdf", []string{"interact"}},

	// slack
	{"what channels do we have in Slack?", []string{"slack_list_channels"}},
	{"post in #deploys that v2.3.1 is going out at 3pm", []string{"slack_post_message"}},
	{"answer Jen in her #design thread that I'll have the mocks by Friday", []string{"slack_reply_to_thread"}},
	{"stick a :white_check_mark: on the latest message in #support so they know I saw it", []string{"slack_add_reaction"}},
	{"catch me up on what's been said in #incident-2291 today", []string{"slack_get_channel_history"}},
	{"what did people say in response to the Q3 offsite question in #general? I only see the parent message", []string{"slack_get_thread_replies"}},
	{"who's in our slack workspace? need a list of everyone", []string{"slack_get_users"}},
	{"what's U02ABC123's title and timezone on slack?", []string{"slack_get_user_profile"}},

	// google-maps
	{"what are the lat/long of 1600 Amphitheatre Parkway, Mountain View?", []string{"maps_geocode"}},
	{"what street address is at 48.8584, 2.2945?", []string{"maps_reverse_geocode"}},
	{"find coffee shops within 500m of Shibuya Station", []string{"maps_search_places", "brave_local_search"}},
	{"opening hours and phone number for place ChIJN1t_tDeuEmsRUsoyG83frY4?", []string{"maps_place_details"}},
	{"how long is the drive from each of our warehouses in Reno, Fresno and Sacramento to the San Jose store?", []string{"maps_distance_matrix"}},
	{"how high above sea level is the summit of Pikes Peak, roughly 38.8405, -105.0442?", []string{"maps_elevation"}},
	{"how do I get from King's Cross to Heathrow on public transport?", []string{"maps_directions"}},

	// brave-search
	{"what's the latest on EU AI Act enforcement? look it up online", []string{"brave_web_search"}},
	{"google for 2026 benchmarks comparing bun and deno", []string{"brave_web_search"}},
	{"any good Thai spots in Portland, Oregon that stay open late?", []string{"brave_local_search", "maps_search_places"}},

	// postgres
	{"how many orders came in last month? check the database", []string{"query"}},
	{"which customers in our postgres db signed up but never placed an order?", []string{"query"}},

	// sequential-thinking
	{"think this through step by step and revise as you go: how should we shard the users table across three regions?", []string{"sequentialthinking"}},
}

// TestSearchQualityBlind5 reports recall@5 over blind5 and holds it to
// its floor.
func TestSearchQualityBlind5(t *testing.T) {
	holdToFloor(t, "blind5", blind5, 50, blind5Floor)
}

// blind5Floor is blind5's recall@5 as measured once, on the scorer of
// 2026-12-04 that blind4's misses tuned (68586e4), rounded down to 5 %:
// 88.3 % (91 of 103; first 56.3 %, 58). The set was written by a helper
// from the real set's tool list alone; it was run once, with the other
// sets, before it was committed, and nothing changed in between.
const blind5Floor = 0.85
