package app

// PrintedSerial reads a serial as the label prints it: the station letter
// and the daily number ("A0007"), the way a clerk reads it off a parcel.
func PrintedSerial(compact string) (station string, serial int, ok bool) {
	if len(compact) < 1+MinSerialLen || compact[0] < 'A' || compact[0] > 'Z' || !IsSerial(compact[1:]) {
		return "", 0, false
	}
	for _, d := range compact[1:] {
		serial = serial*10 + int(d-'0')
	}
	return compact[:1], serial, true
}
