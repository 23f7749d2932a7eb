package app

import (
	"errors"
	"fmt"
)

// ErrorKind sorts errors by what the user should do about them.
type ErrorKind int

const (
	KindInternal    ErrorKind = iota // a bug or the environment; see the log
	KindInvalid                      // bad input: fix it and try again
	KindNotFound                     // no such code, batch, …
	KindConflict                     // the state does not allow it (e.g. disable a used code)
	KindUnavailable                  // database busy, read-only or disk full: fix and retry
)

// Error carries a message for the clerk beside the wrapped cause for the log.
type Error struct {
	Kind    ErrorKind
	Message string // what the user sees
	Err     error  // the cause, for logs
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf makes an Error of kind with a formatted user message.
func Errorf(kind ErrorKind, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Sentinel errors that stores return (wrapped in *Error where useful).
var (
	ErrNotFound = errors.New("not found")
)

// ErrorMessage is the text to show a user for err.
func ErrorMessage(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// KindOf returns err's kind, KindInternal when it is not an *Error.
func KindOf(err error) ErrorKind {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return KindInternal
}
