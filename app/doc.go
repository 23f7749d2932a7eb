// Package app is qrdesk's domain: signed one-time codes, the status state
// machine, settings and the services that issue, redeem and inspect codes.
//
// It imports no other qrdesk package. Storage, printing and the user
// interface depend on it through the interfaces declared here (see Store).
package app
