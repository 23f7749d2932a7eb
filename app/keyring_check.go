package app

import (
	"context"
	"sort"
	"strconv"
	"strings"
)

// settingRingID is the setting that records which key ring a database
// belongs to (a fingerprint, never key bytes).
const settingRingID = "key_ring_id"

// BindKeyRing records the key ring in a new database, and refuses a
// database made with another ring: its labels could not be verified, and
// new labels would not match the old ones.
func (s *Service) BindKeyRing(ctx context.Context) error {
	set, err := s.Store.LoadSettings(ctx)
	if err != nil {
		return err
	}
	want := s.Keys.RingID()
	switch got := set.Extra[settingRingID]; got {
	case want:
		return nil
	case "":
		_, err := s.UpdateSettings(ctx, map[string]string{settingRingID: want}, "qrdesk")
		return err
	default:
		return Errorf(KindUnavailable, "this database belongs to another key ring (%s, the key file has %s): use the key file it was made with", got, want)
	}
}

// RingIDOf returns the key ring recorded in settings, "" if none.
func RingIDOf(set Settings) string { return set.Extra[settingRingID] }

// CheckKeyFile refuses a key file older than the database: one that lacks
// keys which signed codes the database holds (a backup of the key file
// taken before 'qrdesk key rotate'). Such a desk would call its own
// labels forged and sign new ones with the key rotated out, so it issues
// nothing and says which key is missing until the current key file is
// restored.
func (s *Service) CheckKeyFile(ctx context.Context) error {
	counts, err := s.Store.KeyIDCounts(ctx)
	if err != nil {
		return err
	}
	var missing []string
	labels := 0
	for id, n := range counts {
		if !s.Keys.Has(id) {
			missing = append(missing, string(id))
			labels += n
		}
	}
	if len(missing) == 0 {
		return nil
	}
	sort.Strings(missing)
	which := "key " + missing[0]
	if len(missing) > 1 {
		which = "keys " + strings.Join(missing[:len(missing)-1], ", ") + " and " + missing[len(missing)-1]
	}
	noun := "labels"
	if labels == 1 {
		noun = "label"
	}
	return Errorf(KindUnavailable, "the key file is older than this database (it lacks %s, which signed %s %s): restore the current key file", which, groupThousands(labels), noun)
}

// groupThousands writes n with commas between groups of three digits.
func groupThousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// LabelsByKey returns how many codes of the database each key id signed.
func (s *Service) LabelsByKey(ctx context.Context) (map[byte]int, error) {
	return s.Store.KeyIDCounts(ctx)
}
