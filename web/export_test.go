package web

// SetPasswordCost sets bcrypt's work factor for the tests and returns the
// previous one. The tests sign in dozens of times: at the real cost that
// alone takes half a minute on a busy machine.
func SetPasswordCost(c int) int {
	old := passwordCost
	passwordCost = c
	return old
}
