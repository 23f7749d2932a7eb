// Package plaintext tells whether plain HTTP to or on an address stays on
// this machine: the desk's bearer token and the dashboard's passwords
// travel unencrypted over plain HTTP, which is harmless only on loopback.
package plaintext

import (
	"net"
	"strings"
)

// Loopback reports whether host (a name or an address, without a port)
// is this machine only: localhost, 127.0.0.0/8 or ::1. An empty host (a
// listener on every interface) is not.
func Loopback(host string) bool {
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// ListenLoopback reports whether a listen address (HOST:PORT, :PORT)
// accepts connections from this machine only.
func ListenLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	return Loopback(host)
}
