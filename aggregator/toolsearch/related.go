package toolsearch

import (
	"regexp"
	"strings"
)

// related maps a word of a user's request to the words tools' names and
// descriptions use for the same thing: users say "folder" and "PR",
// tools say "directory" and "pull request". A query's own words weigh 1,
// the related words relatedWeight, so a tool that uses the user's own
// word still comes first. Each line: a word, then what it brings. The
// list is general vocabulary of software and everyday tasks, not the
// reference servers' names.
var related = map[string][]string{}

const relatedWeight = 0.6

func init() {
	for line := range strings.SplitSeq(`
		pr: pull request
		prs: pull request
		mr: merge request
		bug: issue
		repo: repository
		repos: repository
		folder: directory
		dir: directory
		find: search
		look: search
		lookup: search
		seek: search
		show: read display view list
		view: read display
		see: read display view
		open: create read display
		make: create
		new: create
		start: create
		add: create sum
		put: write add
		save: write store
		store: write save memory
		remember: memory store create observation entity
		memorize: memory store create
		recall: memory search read
		forget: delete remove memory
		erase: delete remove
		remove: delete
		drop: delete
		rename: move
		change: update edit modify
		modify: update edit
		tweak: edit update
		fix: update edit
		close: update
		reopen: update
		touch: change modify
		commit: push update create
		tell: send post message
		send: post message
		notify: post message send
		say: post message echo
		ping: message post
		chat: message channel
		text: message content
		react: reaction
		emoji: reaction
		answer: reply
		respond: reply
		thread: reply
		database: sql query postgres table
		db: database sql query
		sql: query database
		table: database sql
		record: row database
		internet: web
		online: web
		google: web search
		news: web search
		nearby: local near place
		near: local nearby place
		shop: place business local
		restaurant: place business local
		cafe: place business local
		hotel: place business local
		coffee: place business local
		hours: detail
		address: geocode location
		coordinates: geocode latitude longitude location
		gps: geocode latitude longitude
		drive: direction distance route travel
		route: direction distance
		travel: direction distance
		far: distance
		altitude: elevation
		height: elevation
		high: height elevation
		tall: height elevation
		tree: directory structure
		structure: tree directory
		size: info
		big: size info
		modified: info time
		think: thinking thought reasoning
		reason: thinking thought
		plan: thinking thought
		picture: image
		photo: image
		pdf: document
		document: pdf file
		compress: gzip zip
		zip: compress gzip
		sum: add total
		plus: sum add
		total: sum
		repeat: echo
		echo: repeat
		progress: long running operation
		slow: long running
		allowed: allow permitted access
		access: allow
		permitted: allowed
		profile: user info
		email: user profile
		coworker: user
		colleague: user
		people: user
		person: user entity
		team: channel user
		approve: review
		approved: review
		reviewers: review
		changes: file
		`, "\n") {
		word, words, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		from := term(word)
		for _, w := range strings.Fields(words) {
			if to := term(w); to != "" && to != from {
				related[from] = append(related[from], to)
			}
		}
	}
}

// fileName finds words such as notes.txt or README.md, which name a file.
var fileName = regexp.MustCompile(`\w\.[A-Za-z][A-Za-z0-9]{0,4}\b`)

// queryTerms returns the query's terms and their weights: its own words
// at 1, and their related words (and "file" for a file's name) at
// relatedWeight, unless the query has them itself.
func queryTerms(text string) map[string]float64 {
	own := words(nil, text)
	out := make(map[string]float64, len(own)*3)
	if fileName.MatchString(text) {
		out[term("file")] = relatedWeight
	}
	for _, w := range own {
		for _, r := range related[w] {
			out[r] = max(out[r], relatedWeight)
		}
	}
	for _, w := range own {
		out[w] = 1
	}
	return out
}
