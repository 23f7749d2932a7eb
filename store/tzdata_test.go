package store

// The day tests' named time zones (Europe/Berlin, Pacific/Kiritimati), built
// into the test binary: Windows has no zoneinfo folder, and a -trimpath test
// binary (the Windows checks) does not know where Go's own copy is.
import _ "time/tzdata"
