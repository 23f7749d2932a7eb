//go:build windows

package app

import (
	"fmt"
	"io/fs"
	"os"
	"sort"
	"strings"
	"unsafe"

	"golang.org/x/sys/windows"
)

// On Windows a file's mode says nothing about who may read it (every
// writable file reports 0666): its security descriptor does. A key file is
// given a protected DACL (nothing inherited from the folder) with one entry,
// full control for the user who created it. LoadKeys refuses a key file
// whose DACL lets anyone else read it, or change who may; the local system
// account and the Administrators group are let through, as root is on Unix:
// they can take any file on the machine.

// keyReadMask is the access that lets a holder read the secret, directly or
// by granting it to themselves.
const keyReadMask = windows.FILE_READ_DATA | windows.GENERIC_READ | windows.GENERIC_ALL |
	windows.WRITE_DAC | windows.WRITE_OWNER | windows.MAXIMUM_ALLOWED

// fileAllAccess is FILE_ALL_ACCESS: every right on a file.
const fileAllAccess = windows.STANDARD_RIGHTS_REQUIRED | windows.SYNCHRONIZE | 0x1ff

const (
	aceAllowed       = 0x0 // ACCESS_ALLOWED_ACE_TYPE
	aceInheritOnly   = 0x8 // INHERIT_ONLY_ACE: applies to children only
	aceAllowedObject = 0x5 // ACCESS_ALLOWED_OBJECT_ACE_TYPE (not on files, refused if seen)
)

// currentUserSID is the SID of the user this process runs as.
func currentUserSID() (*windows.SID, error) {
	tu, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("read the current user: %w", err)
	}
	return tu.User.Sid.Copy()
}

// protectKeyFile replaces f's DACL with one granting the current user full
// control, marked protected so that the folder's entries are not inherited.
//
// The descriptor is set on a handle (SetKernelObjectSecurity) rather than
// by name with SetNamedSecurityInfo: wine 8.0, where the tests run, accepts
// the latter and changes nothing, while both take effect on Windows.
func protectKeyFile(f *os.File) error {
	me, err := currentUserSID()
	if err != nil {
		return err
	}
	acl, err := windows.ACLFromEntries([]windows.EXPLICIT_ACCESS{{
		AccessPermissions: fileAllAccess,
		AccessMode:        windows.SET_ACCESS,
		Inheritance:       windows.NO_INHERITANCE,
		Trustee: windows.TRUSTEE{
			TrusteeForm:  windows.TRUSTEE_IS_SID,
			TrusteeType:  windows.TRUSTEE_IS_USER,
			TrusteeValue: windows.TrusteeValueFromSID(me),
		},
	}}, nil)
	if err != nil {
		return fmt.Errorf("make an owner-only ACL: %w", err)
	}
	sd, err := windows.NewSecurityDescriptor()
	if err != nil {
		return err
	}
	if err := sd.SetDACL(acl, true, false); err != nil {
		return err
	}
	if err := sd.SetControl(windows.SE_DACL_PROTECTED, windows.SE_DACL_PROTECTED); err != nil {
		return err
	}
	name, err := windows.UTF16PtrFromString(f.Name())
	if err != nil {
		return err
	}
	h, err := windows.CreateFile(name, windows.READ_CONTROL|windows.WRITE_DAC|windows.GENERIC_READ,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE, nil, windows.OPEN_EXISTING, 0, 0)
	if err != nil {
		return fmt.Errorf("open to set an owner-only ACL: %w", err)
	}
	defer windows.CloseHandle(h)
	if err := windows.SetKernelObjectSecurity(h, windows.DACL_SECURITY_INFORMATION, sd); err != nil {
		return fmt.Errorf("set an owner-only ACL: %w", err)
	}
	return nil
}

// checkKeyFileAccess reads path's DACL and refuses it if an account other
// than the current user, SYSTEM or Administrators may read the file.
func checkKeyFileAccess(path string, _ fs.FileInfo) error {
	others, err := keyFileReaders(path)
	if err != nil {
		return fmt.Errorf("cannot check who may read key file %s: %w", path, err)
	}
	if len(others) == 0 {
		return nil
	}
	user := "%USERNAME%"
	if me, err := currentUserSID(); err == nil {
		user = accountName(me)
	}
	return fmt.Errorf("key file %s can be read by other users (%s); run 'qrdesk key protect', "+
		"or in a command prompt: icacls \"%s\" /inheritance:r /grant:r \"%s:F\" /remove %s",
		path, strings.Join(others, ", "), path, user, quoteAll(others))
}

// otherReaders names the accounts keyFileReaders finds, if any.
func otherReaders(path string, _ fs.FileInfo) (string, error) {
	others, err := keyFileReaders(path)
	return strings.Join(others, ", "), err
}

// keyFileReaders names the accounts, other than the current user, SYSTEM
// and Administrators, that path's DACL lets read it. A missing (NULL) DACL
// lets everyone in.
func keyFileReaders(path string) ([]string, error) {
	sd, err := windows.GetNamedSecurityInfo(path, windows.SE_FILE_OBJECT, windows.DACL_SECURITY_INFORMATION)
	if err != nil {
		return nil, err
	}
	dacl, _, err := sd.DACL()
	if err == windows.ERROR_OBJECT_NOT_FOUND || (err == nil && dacl == nil) {
		return []string{"Everyone"}, nil
	}
	if err != nil {
		return nil, err
	}
	me, err := currentUserSID()
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var names []string
	for i := uint32(0); i < uint32(dacl.AceCount); i++ {
		var ace *windows.ACCESS_ALLOWED_ACE
		if err := windows.GetAce(dacl, i, &ace); err != nil {
			return nil, err
		}
		if ace.Header.AceFlags&aceInheritOnly != 0 {
			continue
		}
		switch ace.Header.AceType {
		case aceAllowed:
		case aceAllowedObject:
			return []string{"an object-specific entry"}, nil
		default:
			continue // deny and audit entries take nothing away from the owner
		}
		if ace.Mask&keyReadMask == 0 {
			continue
		}
		sid := sidOf(ace)
		if sid.Equals(me) || sid.IsWellKnown(windows.WinLocalSystemSid) || sid.IsWellKnown(windows.WinBuiltinAdministratorsSid) {
			continue
		}
		if n := accountName(sid); !seen[n] {
			seen[n] = true
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names, nil
}

// accountName is DOMAIN\name for sid, or the SID string if it has no name.
func accountName(sid *windows.SID) string {
	account, domain, _, err := sid.LookupAccount("")
	switch {
	case err != nil:
		return sid.String()
	case domain == "":
		return account
	}
	return domain + `\` + account
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		if strings.HasPrefix(n, "S-1-") {
			n = "*" + n // icacls takes an account without a name by its SID, starred
		}
		q[i] = `"` + n + `"`
	}
	return strings.Join(q, " ")
}

// sidOf is the SID an access entry is for; it starts at SidStart.
func sidOf(ace *windows.ACCESS_ALLOWED_ACE) *windows.SID {
	return (*windows.SID)(unsafe.Pointer(&ace.SidStart))
}
