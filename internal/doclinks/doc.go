// Package doclinks holds no code: its test checks that the README and the
// guides in docs/ link only to files and headings that exist, so a guide
// moved or a heading renamed is caught before a reader follows a dead link.
package doclinks
