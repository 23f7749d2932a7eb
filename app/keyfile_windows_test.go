package app

import (
	"testing"

	"golang.org/x/sys/windows"
)

// keyFileFix is what a refusal of a readable key file tells the user to run.
const keyFileFix = "icacls"

// assertKeyFilePrivate checks the file's DACL: protected (nothing
// inherited), one entry, full control for the current user. Under wine only
// the last part: wine keeps no DACL, it derives one from the Unix mode it
// sets from the DACL it was given (the local system account, the owner's
// bits, Everyone for the others' bits), so "nobody else may read" is what
// survives the round trip.
func assertKeyFilePrivate(t *testing.T, path string) {
	t.Helper()
	if others, err := keyFileReaders(path); err != nil || len(others) != 0 {
		t.Errorf("keyFileReaders = %v, %v; want none", others, err)
	}
	if underWine() {
		return
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	control, _, err := sd.Control()
	if err != nil {
		t.Fatal(err)
	}
	if control&windows.SE_DACL_PROTECTED == 0 {
		t.Errorf("DACL not protected (inherits from the folder): %v", sd)
	}
	dacl, _, err := sd.DACL()
	if err != nil || dacl == nil {
		t.Fatalf("no DACL (%v): everyone may read", err)
	}
	if dacl.AceCount != 1 {
		t.Errorf("DACL has %d entries, want 1: %v", dacl.AceCount, sd)
	}
	me, err := currentUserSID()
	if err != nil {
		t.Fatal(err)
	}
	var ace *windows.ACCESS_ALLOWED_ACE
	if err := windows.GetAce(dacl, 0, &ace); err != nil {
		t.Fatal(err)
	}
	if sid := sidOf(ace); !sid.Equals(me) || ace.Header.AceType != aceAllowed {
		t.Errorf("DACL entry for %v (type %d), want an allow entry for %v: %v", sid, ace.Header.AceType, me, sd)
	}
}

// underWine reports whether the test runs under wine (its ntdll exports
// wine_get_version).
func underWine() bool {
	return windows.NewLazySystemDLL("ntdll.dll").NewProc("wine_get_version").Find() == nil
}

// makeKeyFileReadable adds an entry letting Everyone read the file.
func makeKeyFileReadable(t *testing.T, path string) {
	t.Helper()
	everyone, err := windows.CreateWellKnownSid(windows.WinWorldSid)
	if err != nil {
		t.Fatal(err)
	}
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		t.Fatal(err)
	}
	old, _, err := sd.DACL()
	if err != nil {
		t.Fatal(err)
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: windows.GENERIC_READ,
		AccessMode:        windows.GRANT_ACCESS,
		Inheritance:       windows.NO_INHERITANCE,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_WELL_KNOWN_GROUP,
			TrusteeValue: windows.TrusteeValueFromSID(everyone),
		},
	}}, old)
	if err != nil {
		t.Fatal(err)
	}
	sd, err = windows.NewSecurityDescriptor()
	if err != nil {
		t.Fatal(err)
	}
	if err := sd.SetDACL(acl, true, false); err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(windows.StringToUTF16Ptr(path), windows.READ_CONTROL|windows.WRITE_DAC|windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer windows.CloseHandle(h)
	if err := windows.SetKernelObjectSecurity(h, windows.DACL_SECURITY_INFORMATION, sd); err != nil {
		t.Fatal(err)
	}
	if others, err := keyFileReaders(path); err != nil || len(others) == 0 {
		t.Fatalf("after granting Everyone read, keyFileReaders = %v, %v", others, err)
	}
}
