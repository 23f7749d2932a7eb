//go:build !windows

package deskdir

import "os"

func machineDir(func(string) string) string { return "" }

// Protect makes dir readable by its owner only (mode 0700).
func Protect(dir string) error { return os.Chmod(dir, 0o700) }
