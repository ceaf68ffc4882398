package toolsearch

import (
	"slices"
	"strings"
	"sync"
)

// related maps a word of a user's request to the words tools' names and
// descriptions use for the same thing: users say "folder" and "PR",
// tools say "directory" and "pull request". A query's own words weigh 1,
// the related words relatedWeight, so a tool that uses the user's own
// word still comes first; a word that means the same (an abbreviation,
// written with "=") weighs 1 too. Each line: a word, then what it
// brings, "+" joining the words of a phrase. The
// list is general vocabulary of software and everyday tasks, not the
// reference servers' names. It is made on first use (see compiled).
var related = sync.OnceValue(relatedWords)

// alternative is one related word of a query's word, or a phrase of
// several terms summed ("pull request"); same is true for a word that
// means the same (an abbreviation: "repo" = repository, "PR" = pull
// request), which weighs as much as the query's own word.
type alternative struct {
	terms []string
	same  bool
}

const relatedWeight = 0.6

// relatedWords parses the table below into related's map.
func relatedWords() map[string][]alternative {
	related := map[string][]alternative{}
	for line := range strings.SplitSeq(`
		pr= pull+request
		prs= pull+request
		mr= merge+request
		bug: issue
		repo= repository
		repos= repository
		folder= directory
		dir= directory
		find: search
		look: search
		lookup: search
		seek: search
		show: read display view list content
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
		remember: memory store observation entity
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
		db= database
		db: sql query
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
		bakery: place business local
		bar: place business local
		pub: place business local
		gym: place business local
		pharmacy: place business local
		hospital: place business local
		clinic: place business local
		museum: place business local
		bank: place business local
		supermarket: place business local
		salon: place business local
		park: place local
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
		report: issue bug
		ci: status check build
		build: status check
		builds: status check
		passing: status check
		failing: status check
		squash: merge
		ship: merge release
		reply: comment
		nitpick: comment review
		feedback: review comment
		sync: update
		behind: update
		squish: compress
		gz= gzip
		screenshot: image picture
		hunt: search find
		swap: replace change edit
		replace: edit update
		jot: note write save
		everything: entire whole
		mark: highlight annotate
		highlight: annotate mark
		lat= latitude
		lng= longitude
		spin: create start
		thumbs: reaction
		upvote: reaction
		space: size
		largest: size
		together: multiple
		both: multiple
		small: tiny little
		tiny: small little
		little: small tiny
		several: multiple
		grep: search find code
		form: elicitation input
		ask: elicitation sampling
		model: sampling llm
		today: recent
		said: message history
		label: issue tag
		tag: label
		layout: structure tree
		skip: exclude ignore
		ignore: exclude
		spot: place local
		food: restaurant place local
		eat: restaurant place local
		lunch: restaurant place local
		dinner: restaurant place local
		breakfast: restaurant place local
		km: distance radius
		mile: distance radius
		timezone: profile user
		job: profile
		mind: memory remember
		know: knowledge memory observation
		notes: observation memory
		manages: relation
		main: branch
		master: branch
		bump: update edit version
		entry: entity node record
		entries: entity node record
		stick: add put
		transport: transit direction
		tell: comment
		cut: create branch
		hotfix: branch fix
		contract: document
		conversation: thread reply message
		discussion: thread reply comment
		`, "\n") {
		line = strings.TrimSpace(line)
		sep := strings.IndexAny(line, ":=")
		if sep < 0 {
			continue
		}
		word, words, same := line[:sep], line[sep+1:], line[sep] == '='
		from := term(word)
		for _, alt := range strings.Fields(words) {
			var terms []string
			for _, w := range strings.Split(alt, "+") {
				if to := term(w); to != "" && to != from {
					terms = append(terms, to)
				}
			}
			if len(terms) > 0 && !slices.ContainsFunc(related[from], func(a alternative) bool { return slices.Equal(a.terms, terms) }) {
				related[from] = append(related[from], alternative{terms, same})
			}
		}
	}
	return related
}
