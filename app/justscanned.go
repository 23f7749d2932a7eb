package app

// OutcomeJustScanned is a label this desk redeemed a moment ago scanned
// again (a scanner that read it twice, a picker who pressed twice): the
// parcel went with the first scan. It is neither a redemption nor a
// refusal, and is counted apart from both.
const OutcomeJustScanned Outcome = "just_scanned"

// justScannedWithin is how soon after this desk's own redemption a scan of
// the same label counts as the same scan: less than 2 s, in the whole
// seconds the scan log keeps.
const justScannedWithin = 2

// JustScanned reports whether v, the verdict of attempt a, is a repeat of
// this desk's own redemption of the same label a moment ago, by a scan
// that followed it (a.InARow: the window's double scan; the command line
// and concurrent scans are refused as already used). A label of an
// entitlement whose other label was used (UsedCode) is a refusal, however
// soon.
func JustScanned(v Verdict, a Attempt) bool {
	return a.InARow && v.Outcome == OutcomeAlreadyUsed && v.UsedCode == "" && v.UsedStation == a.Station &&
		a.At >= v.UsedAt && a.At-v.UsedAt < justScannedWithin
}
