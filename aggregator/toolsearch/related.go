package toolsearch

import (
	"regexp"
	"slices"
	"strings"
)

// related maps a word of a user's request to the words tools' names and
// descriptions use for the same thing: users say "folder" and "PR",
// tools say "directory" and "pull request". A query's own words weigh 1,
// the related words relatedWeight, so a tool that uses the user's own
// word still comes first. Each line: a word, then what it brings. The
// list is general vocabulary of software and everyday tasks, not the
// reference servers' names.
var related = map[string][][]string{}

const relatedWeight = 0.6

func init() {
	for line := range strings.SplitSeq(`
		pr: pull+request
		prs: pull+request
		mr: merge+request
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
		progress: long+running operation
		slow: long+running
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
		query: search
		search: find query
		locate: search find
		delete: remove erase
		destroy: delete remove
		discard: delete remove
		post: send message publish
		publish: post
		list: show enumerate
		enumerate: list
		fetch: read retrieve download
		retrieve: read fetch
		read: fetch open view
		download: fetch read
		upload: push write
		write: save create
		edit: modify update change
		update: edit modify change
		move: rename relocate
		relocate: move
		copy: fork duplicate
		duplicate: copy
		ticket: issue
		problem: issue bug
		defect: issue bug
		crash: bug issue error
		link: relation connect
		connect: link relation
		street: address location
		lately: recent
		recently: recent
		latest: recent
		folks: user people
		everyone: user people
		bus: transit direction
		train: transit direction
		subway: transit direction
		walk: walking direction
		around: near nearby local
		note: comment observation
		fact: observation
		question: message
		lat: latitude
		lng: longitude
		`, "\n") {
		word, words, ok := strings.Cut(strings.TrimSpace(line), ":")
		if !ok {
			continue
		}
		from := term(word)
		for _, alt := range strings.Fields(words) {
			var terms []string
			for _, w := range strings.Split(alt, "+") {
				if to := term(w); to != "" && to != from {
					terms = append(terms, to)
				}
			}
			if len(terms) > 0 && !slices.ContainsFunc(related[from], func(a []string) bool { return slices.Equal(a, terms) }) {
				related[from] = append(related[from], terms)
			}
		}
	}
}

// hints are the words a query implies by its form, not its words: a
// file's name (notes.txt, README.md) implies "file", and a question
// that asks "when" is after a time.
var hints = []struct {
	word string
	re   *regexp.Regexp
}{
	{"file", regexp.MustCompile(`\w\.[A-Za-z][A-Za-z0-9]{0,4}\b`)},
	{"time", regexp.MustCompile(`(?i)\bwhen\b`)},
}

// weighted is one term of a query and its weight.
type weighted struct {
	term   string
	weight float64
}

// queryGroups returns the query's terms in groups, one per word of the
// query (in sorted order, each word once), each group a list of
// alternatives, each alternative the terms that are summed: the word
// itself at 1, then its related words (a phrase such as "pull request"
// one alternative of two terms) at relatedWeight, leaving out terms the
// query has itself; and each of hints the query's form implies ("file"
// for notes.txt, "time" for "when …") at relatedWeight in a group of its
// own, unless the query says it. Search counts a group
// once, by its best alternative in each tool, so that a word with many
// related words does not outweigh a word with none.
func queryGroups(text string) [][][]weighted {
	own := words(nil, text)
	slices.Sort(own)
	own = slices.Compact(own)
	isOwn := func(w string) bool { _, ok := slices.BinarySearch(own, w); return ok }
	groups := make([][][]weighted, 0, len(own)+1)
	for _, w := range own {
		g := [][]weighted{{{w, 1}}}
		for _, alt := range related[w] {
			var a []weighted
			for _, r := range alt {
				if !isOwn(r) {
					a = append(a, weighted{r, relatedWeight})
				}
			}
			if len(a) > 0 {
				g = append(g, a)
			}
		}
		groups = append(groups, g)
	}
	for _, h := range hints {
		if t := term(h.word); h.re.MatchString(text) && !isOwn(t) {
			groups = append(groups, [][]weighted{{{t, relatedWeight}}})
		}
	}
	return groups
}
