package sqlstore

import "os"

// CreatePrivate creates path as an empty file readable and writable by
// this user only (0600; on Windows the folder's ACL applies), refusing one
// that exists. A backup is written into it (VACUUM INTO and pg_dump keep
// an existing file's mode), never readable by others, not even while it
// is written.
func CreatePrivate(path string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}
