package app

import "context"

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
