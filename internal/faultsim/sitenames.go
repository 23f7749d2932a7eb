package faultsim

import "slices"

// A site's identity is the name it starts with (topologySites); the
// rename family gives it the others of its siteNames, back and forth. No
// name is ever another site's, so a name read anywhere (the server's
// tables, a desk's snapshot, a close's event, a backup the server was
// restored from) says which site it is. The harness and the checker judge
// by identity: the server is asked for a site's name now only when it is
// told to do something with it (a move, an enrolment, a rename).

// topologySites are the sites of a run with sites on: desk i starts in
// topologySites[i%3] (main is the deployment's first site).
var topologySites = []string{"main", "North", "South"}

// siteNames are the names each site may carry, its identity first.
var siteNames = [][]string{{"main", "Central", "Harbour"}, {"North", "Nord", "Uptown"}, {"South", "Sud", "Riverside"}}

// maxRenames bounds the site renames of a run with rename on.
const maxRenames = 4

// siteIdentity is the site a name is or was a name of, the name itself
// when it is no site's ("" stays "").
func siteIdentity(name string) string {
	for i, names := range siteNames {
		if slices.Contains(names, name) {
			return topologySites[i]
		}
	}
	return name
}

// siteIdentities maps the site names of a map's values to their sites.
func siteIdentities(m map[string]string) map[string]string {
	for k, v := range m {
		m[k] = siteIdentity(v)
	}
	return m
}
