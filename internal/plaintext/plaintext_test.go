package plaintext

import "testing"

func TestListenLoopback(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1:8427": true, "localhost:8427": true, "[::1]:8427": true, "127.0.0.2:1": true,
		":8427": false, "0.0.0.0:8427": false, "[::]:8427": false, "192.168.1.5:8427": false,
		"qrdesk.example:8427": false, "not an address": false,
	} {
		if got := ListenLoopback(addr); got != want {
			t.Errorf("ListenLoopback(%q) = %v, want %v", addr, got, want)
		}
	}
}
